def to_openai_tools(specs):
    """Anthropic-style tool definitions -> OpenAI Chat Completions tool definitions."""
    # Mistake: the flat shape of the Responses API, not the nested one Chat Completions expects.
    tools = []
    for spec in specs:
        tool = {"type": "function", "name": spec["name"]}
        if spec.get("description"):
            tool["description"] = spec["description"]
        tool["parameters"] = copy.deepcopy(spec["input_schema"])
        tools.append(tool)
    return tools
