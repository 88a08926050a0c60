DEEPSEEK_FORCED = {"tool_choice": "required", "extra_body": {"thinking": {"type": "disabled"}}}


def request_options(provider, force_tool=False, thinking=True):
    """Extra keyword arguments for chat.completions.create, per provider."""
    if provider in ("openai", "fake"):
        return {"tool_choice": "required"} if force_tool else {}
    if provider == "deepseek":
        if force_tool:
            return DEEPSEEK_FORCED  # Mistake: the same dict every time; a caller's change sticks
        return {"extra_body": {"thinking": {"type": "enabled" if thinking else "disabled"}}}
    if provider == "ollama":
        return {}
    raise ValueError(f"unknown provider {provider!r}; known: openai, fake, deepseek, ollama")
