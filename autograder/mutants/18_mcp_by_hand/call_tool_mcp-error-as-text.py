def call_tool_mcp(conn, name, arguments, timeout=2.0):
    """Run one tool on the server: its text, or {"error": ...} for either kind of failure."""
    reply = rpc(conn, "tools/call", {"name": name, "arguments": arguments}, timeout)
    if "error" in reply:
        return "ERROR: " + str(reply["error"].get("message"))
    result = reply.get("result") or {}
    text = "\n".join(block.get("text", "") for block in result.get("content") or []
                     if block.get("type") == "text")
    if result.get("isError"):
        return "ERROR: " + text
    return text
