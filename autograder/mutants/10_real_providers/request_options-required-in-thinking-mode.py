def request_options(provider, force_tool=False, thinking=True):
    """Extra keyword arguments for chat.completions.create, per provider."""
    if provider in ("openai", "fake"):
        return {"tool_choice": "required"} if force_tool else {}
    if provider == "deepseek":
        # Mistake: tool_choice="required" is sent with thinking still on.
        options = {"extra_body": {"thinking": {"type": "enabled" if thinking else "disabled"}}}
        if force_tool:
            options["tool_choice"] = "required"
        return options
    if provider == "ollama":
        return {}
    raise ValueError(f"unknown provider {provider!r}; known: openai, fake, deepseek, ollama")
