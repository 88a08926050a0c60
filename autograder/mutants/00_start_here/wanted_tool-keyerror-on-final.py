def wanted_tool(reply):
    """The name of the tool the reply asks for, or None for a final answer."""
    return reply["tool"]
