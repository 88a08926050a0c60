def request_options(provider, force_tool=False, thinking=True):
    """Extra keyword arguments for chat.completions.create, per provider."""
    # Mistake: Ollama is treated like OpenAI, but it has no tool_choice.
    if provider in ("openai", "fake", "ollama"):
        return {"tool_choice": "required"} if force_tool else {}
    if provider == "deepseek":
        on = thinking and not force_tool
        options = {"extra_body": {"thinking": {"type": "enabled" if on else "disabled"}}}
        if force_tool:
            options["tool_choice"] = "required"
        return options
    raise ValueError(f"unknown provider {provider!r}; known: openai, fake, deepseek, ollama")
