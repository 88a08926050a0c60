def run_with_approval(client, model, question, tools, impl, path, needs_approval, decision=None,
                      max_steps=8):
    """The checkpointed loop that pauses before tools in `needs_approval` until a human decides."""
    state = load_checkpoint(path) or {"step": 0, "messages": [{"role": "user", "content": question}],
                                      "status": "running", "answer": None, "pending": None, "approvals": {}}
    if state["status"] == "paused":
        if decision is None:
            return AgentResult(None, "PAUSED: approval needed", state["step"])
        state["approvals"][state["pending"]["id"]] = decision
        state["status"], state["pending"] = "running", None
    if state["status"] != "running":
        return AgentResult(state["answer"], state["status"], state["step"])
    messages = state["messages"]
    while True:
        message = messages[-1]
        if not (message["role"] == "assistant" and message.get("tool_calls")):  # no step half done
            if state["step"] >= max_steps:
                state["status"] = "STOPPED: step limit"
                break
            state["step"] += 1
            choice = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0]
            message = choice.message.model_dump(exclude_none=True)
            messages.append(message)
            if not message.get("tool_calls"):
                done = choice.finish_reason == "stop"
                state["status"] = "done" if done else f"STOPPED: {choice.finish_reason}"
                state["answer"] = message.get("content") if done else None
                break
        results = []
        for call in message["tool_calls"]:  # from the first call, also when the step runs again
            name = call["function"]["name"]
            answer = state["approvals"].get(call["id"])
            if name in needs_approval and answer is None:
                try:
                    args = json.loads(call["function"]["arguments"])
                except json.JSONDecodeError:
                    args = call["function"]["arguments"]
                state["status"], state["pending"] = "paused", {"id": call["id"], "tool": name, "input": args}
                save_checkpoint(path, state)  # without this step's results: it runs again on resume
                return AgentResult(None, "PAUSED: approval needed", state["step"])
            if name in needs_approval and answer is False:  # Mistake: any decision, "no" too, lets it run
                result = {"error": f"the customer did not approve this {name}; do not try it again"}
                results.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
            else:
                results.append(tool_message(call, impl))
        messages.extend(results)
        save_checkpoint(path, state)
    save_checkpoint(path, state)
    return AgentResult(state["answer"], state["status"], state["step"])
