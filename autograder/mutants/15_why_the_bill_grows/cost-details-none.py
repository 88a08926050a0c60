def cost(usage, prices):
    """The price in US$ of one call's usage (any provider's shape), prices per million tokens."""
    if not isinstance(usage, dict):
        raise TypeError(f"cost needs the usage as a dict (response.usage.model_dump()), "
                        f"got {type(usage).__name__}")
    if "input_tokens" in usage:  # Anthropic: input_tokens excludes both cache counts
        read = usage.get("cache_read_input_tokens") or 0
        written = usage.get("cache_creation_input_tokens") or 0
        if written and prices.get("cache_write") is None:
            raise ValueError("the usage has cache writes but the prices have no cache_write price")
        dollars = (usage["input_tokens"] * prices["input"] + read * prices["cached_input"]
                   + written * (prices.get("cache_write") or 0) + usage["output_tokens"] * prices["output"])
    elif usage.get("prompt_cache_hit_tokens") is not None:  # DeepSeek: hit + miss = prompt
        dollars = (usage["prompt_cache_hit_tokens"] * prices["cached_input"]
                   + usage["prompt_cache_miss_tokens"] * prices["input"]
                   + usage["completion_tokens"] * prices["output"])
    elif "prompt_tokens" in usage:  # OpenAI (and Ollama): cached tokens are part of prompt_tokens
        cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
        dollars = ((usage["prompt_tokens"] - cached) * prices["input"] + cached * prices["cached_input"]
                   + usage["completion_tokens"] * prices["output"])
    else:
        raise ValueError(f"the usage has none of the known shapes (keys: {sorted(usage)})")
    return float(dollars) / 1_000_000
