def to_openai_tools(specs):
    """Anthropic-style tool definitions -> OpenAI Chat Completions tool definitions."""
    # Mistake: the caller's specs are renamed in place (input_schema popped), so they are gone.
    tools = []
    for spec in specs:
        spec["parameters"] = spec.pop("input_schema")
        tools.append({"type": "function", "function": spec})
    return tools
