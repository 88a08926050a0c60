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
            try:
                args = json.loads(call.function.arguments)
            except json.JSONDecodeError as e:
                result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
            else:
                result = call_tool(impl, call.function.name, args)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    # Mistake: the stop is dressed up as an answer.
    return AgentResult("Sorry, I could not finish in time.", "done", max_steps)
