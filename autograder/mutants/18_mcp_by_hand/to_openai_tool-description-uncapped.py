def to_openai_tool(tool, max_description=MAX_DESCRIPTION):
    """The OpenAI tool definition for an MCP tool: a checked name, a capped description, its schema."""
    name = tool.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
        raise ValueError(f"the tool name {name!r} is not one a provider accepts (letters, digits, _ and -)")
    schema = tool.get("inputSchema", {"type": "object", "properties": {}})
    if type(schema) is not dict or schema.get("type") != "object":
        raise ValueError(f"the inputSchema of {name!r} is not an object schema: {schema!r}")
    description = tool.get("description") or ""
    return {"type": "function", "function": {"name": name, "description": str(description),
                                             "parameters": schema}}
