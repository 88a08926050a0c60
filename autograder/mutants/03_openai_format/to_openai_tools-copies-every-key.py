def to_openai_tools(specs):
    """Anthropic-style tool definitions -> OpenAI Chat Completions tool definitions."""
    # Mistake: every other key (cache_control, ...) is copied into the OpenAI definition.
    tools = []
    for spec in specs:
        function = {k: v for k, v in spec.items() if k != "input_schema"}
        function["parameters"] = copy.deepcopy(spec["input_schema"])
        tools.append({"type": "function", "function": function})
    return tools
