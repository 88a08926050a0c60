def run_with_budget(client, model, messages, tools, impl, window, compact, trim,
                    threshold=0.75, keep_last=2, max_steps=30):
    """run_agent that compacts past threshold * window and trims to the window, before each call."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold is a share of the window, 0 < threshold <= 1; got {threshold!r}")
    run = BudgetRun(None, "STOPPED: step limit", 0)
    for step in range(1, max_steps + 1):
        if prompt_tokens(messages, tools) > threshold * window:
            messages = compact(messages, client, keep_last)
            run.compactions += 1
        if prompt_tokens(messages, tools) > window:
            messages = trim(messages, window, tools)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        run.prompt_tokens.append(response.usage.prompt_tokens)
        run.steps = step
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            run.answer, run.status = message.content, "done"
            return run
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return run
