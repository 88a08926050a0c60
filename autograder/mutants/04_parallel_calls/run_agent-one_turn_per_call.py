def run_agent(client, model, question, tools, impl, max_steps=8, read_only=READ_ONLY):
    """The agent loop: every tool call of a reply answered, by id, in one round."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        if not message.tool_calls:
            messages.append(message.model_dump(exclude_none=True))
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        turn = message.model_dump(exclude_none=True)
        # Mistake: the reply is split into one assistant turn per call, each followed by its result.
        for raw_call, call in zip(turn["tool_calls"], message.tool_calls):
            messages.append({**turn, "tool_calls": [raw_call]})
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": execute(call.function.name, call.function.arguments, impl)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
