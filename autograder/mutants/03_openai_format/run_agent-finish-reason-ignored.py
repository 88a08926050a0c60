def run_agent(client, model, question, tools, impl, max_steps=8):
    """The agent loop over Chat Completions: answer, stop status, and the model calls made."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))  # verbatim, before any result
        if not message.tool_calls:
            # Mistake: any reply without tool calls counts as an answer, even one cut off.
            return AgentResult(message.content, "done", step)
        for call in message.tool_calls:
            try:
                args = json.loads(call.function.arguments)
            except json.JSONDecodeError as e:
                result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
            else:
                result = call_tool(impl, call.function.name, args)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
