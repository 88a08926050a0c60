def run_agent(client, model, question, tools, impl, max_steps=8, read_only=READ_ONLY):
    """The agent loop: every tool call of a reply answered, by id, in one round."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        calls = message.tool_calls
        # Mistake: every call of the reply runs in the pool, refunds included.
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            contents = list(pool.map(lambda c: execute(c.function.name, c.function.arguments, impl), calls))
        messages += [{"role": "tool", "tool_call_id": c.id, "content": content}
                     for c, content in zip(calls, contents)]
    return AgentResult(None, "STOPPED: step limit", max_steps)
