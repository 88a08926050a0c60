def to_openai_tools(specs):
    """Anthropic-style tool definitions -> OpenAI Chat Completions tool definitions."""
    # Mistake: the schema keeps Anthropic's key, input_schema, instead of parameters.
    tools = []
    for spec in specs:
        function = {"name": spec["name"]}
        if spec.get("description"):
            function["description"] = spec["description"]
        function["input_schema"] = copy.deepcopy(spec["input_schema"])
        tools.append({"type": "function", "function": function})
    return tools
