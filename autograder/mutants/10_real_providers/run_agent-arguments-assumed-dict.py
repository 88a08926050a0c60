def run_agent(client, model, question, tools, impl, system=None, max_steps=8, **options):
    """The chapter 03 loop, provider-neutral: system prompt, reasoning kept, options passed through."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": question})
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools, **options)
        choice = response.choices[0]
        message = choice.message
        turn = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            turn["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.function.name, "arguments": c.function.arguments}}
                                  for c in message.tool_calls]
        if getattr(message, "reasoning_content", None):
            turn["reasoning_content"] = message.reasoning_content
        messages.append(turn)
        if not message.tool_calls:
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        for call in message.tool_calls:
            # Mistake: the arguments are assumed to be a dict already (they are a JSON string).
            result = call_tool(impl, call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
