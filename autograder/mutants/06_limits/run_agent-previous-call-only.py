def run_agent(client, model, question, tools, impl, max_steps=8, max_tokens=60_000,
              timeout_s=120.0, max_result_chars=4_000, clock=time.monotonic):
    """The loop with limits: answer, stop status, and the model calls made."""
    messages = [{"role": "user", "content": question}]
    started, tokens, last, repeats = clock(), 0, None, 0
    for step in range(1, max_steps + 1):
        if clock() - started >= timeout_s:
            return AgentResult(None, "STOPPED: timeout", step - 1)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        tokens += response.usage.total_tokens
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        if choice.finish_reason not in ("stop", "tool_calls"):
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        if not message.tool_calls:
            return AgentResult(message.content, "done", step)
        if tokens > max_tokens:
            return AgentResult(None, "STOPPED: token budget", step)
        for call in message.tool_calls:
            try:
                key = (call.function.name, json.dumps(json.loads(call.function.arguments), sort_keys=True))
            except ValueError:
                key = (call.function.name, call.function.arguments)
            # Mistake: counts only repeats in a row; alternating calls never stop.
            repeats = repeats + 1 if key == last else 1
            last = key
            if repeats >= 3:
                return AgentResult(None, "STOPPED: loop", step)
            tool_msg = tool_message(call, impl)
            content = tool_msg["content"]
            if len(content) > max_result_chars:
                content = (f"{content[:max_result_chars]}\n[truncated] cut "
                           f"{len(content) - max_result_chars} of {len(content)} characters")
            messages.append({**tool_msg, "content": content})
    return AgentResult(None, "STOPPED: step limit", max_steps)
