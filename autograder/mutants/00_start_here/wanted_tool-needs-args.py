def wanted_tool(reply):
    """The name of the tool the reply asks for, or None for a final answer."""
    if "args" in reply:
        return reply["tool"]
    return None
