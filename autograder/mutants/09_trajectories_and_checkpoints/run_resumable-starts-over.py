def run_resumable(client, model, question, tools, impl, path, max_steps=8):
    """The agent loop with a checkpoint after every step: a run that crashed continues where it stopped."""
    # Mistake: the checkpoint is written but never read: every run starts over.
    state = {"step": 0, "messages": [{"role": "user", "content": question}],
                                      "status": "running", "answer": None}
    messages = state["messages"]
    while state["step"] < max_steps:
        state["step"] += 1
        choice = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0]
        message = choice.message.model_dump(exclude_none=True)
        messages.append(message)
        if not message.get("tool_calls"):
            done = choice.finish_reason == "stop"
            state["status"] = "done" if done else f"STOPPED: {choice.finish_reason}"
            state["answer"] = message.get("content") if done else None
            save_checkpoint(path, state)
            return AgentResult(state["answer"], state["status"], state["step"])
        messages.extend(tool_message(call, impl) for call in message["tool_calls"])
        save_checkpoint(path, state)  # this step is finished: it will never run again
    state["status"] = "STOPPED: step limit"
    save_checkpoint(path, state)
    return AgentResult(None, state["status"], state["step"])
