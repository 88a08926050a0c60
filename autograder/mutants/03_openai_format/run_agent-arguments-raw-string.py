def run_agent(client, model, question, tools, impl, max_steps=8):
    """The agent loop over Chat Completions: answer, stop status, and the model calls made."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))  # verbatim, before any result
        if not message.tool_calls:
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        for call in message.tool_calls:
            # Mistake: the arguments are passed on as the raw JSON string.
            result = call_tool(impl, call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
