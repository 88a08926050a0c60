def trim_history(messages, budget, tools=None):
    """The head (system prompt and task) and the newest whole blocks that fit in `budget` tokens."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise ValueError(f"budget must be a positive number of tokens, got {budget!r}")
    n = 0
    while n < len(messages) and messages[n].get("role") == "system":
        n += 1
    if n < len(messages) and messages[n].get("role") == "user":
        n += 1
    head, rest = list(messages[:n]), blocks(messages[n:])
    for start in range(len(rest)):
        kept = head + [m for b in rest[start:] for m in b]
        if prompt_tokens(kept, None) <= budget:  # the messages are what grows
            return kept
    if not rest and prompt_tokens(head, tools) <= budget:
        return head
    raise ValueError(f"the system prompt, the task and the newest step need more than the budget "
                     f"of {budget} tokens: nothing sensible fits")
