def run_with_money_budget(client, model, messages, tools, impl, budget, cost_of, max_out=200, max_steps=10):
    """The loop, stopped before any call that could take the spending over `budget` (US$)."""
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0:
        raise ValueError(f"budget must be a positive number of dollars, got {budget!r}")
    spent = 0.0
    for step in range(1, max_steps + 1):
        p = prompt_tokens(messages, tools)
        worst = cost_of({"prompt_tokens": p, "completion_tokens": max_out, "total_tokens": p + max_out})
        if spent + worst > budget:
            return BudgetResult(None, "STOPPED: budget", step - 1, spent)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        spent += cost_of(response.usage.model_dump())
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return BudgetResult(message.content, "done", step, spent)
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return BudgetResult(None, "STOPPED: step limit", max_steps, spent)
