def run_agent(client, model, question, tools, impl, max_steps=8, read_only=READ_ONLY):
    """The agent loop: every tool call of a reply answered, by id, in one round."""
    messages = [{"role": "user", "content": question}]
    pending = []  # calls asked for but not answered yet
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        if message.tool_calls:
            messages.append(message.model_dump(exclude_none=True))
            pending += list(message.tool_calls)
        elif not pending:
            messages.append(message.model_dump(exclude_none=True))
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        # Mistake: one result per round; the model is called again before the other calls are answered.
        call = pending.pop(0)
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": execute(call.function.name, call.function.arguments, impl)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
