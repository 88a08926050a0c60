def cost(usage, prices):
    """The price in US$ of one call's usage (any provider's shape), prices per million tokens."""
    if not isinstance(usage, dict):
        raise TypeError(f"cost needs the usage as a dict (response.usage.model_dump()), "
                        f"got {type(usage).__name__}")
    if "prompt_tokens" not in usage:
        raise ValueError(f"the usage has no prompt_tokens (keys: {sorted(usage)})")
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    dollars = ((usage["prompt_tokens"] - cached) * prices["input"] + cached * prices["cached_input"]
               + usage["completion_tokens"] * prices["output"])
    return float(dollars) / 1_000_000
