def call_tool_mcp(conn, name, arguments, timeout=2.0):
    """Run one tool on the server: its text, or {"error": ...} for either kind of failure."""
    reply = rpc(conn, "tools/call", {"name": name, "arguments": arguments}, timeout)
    if "error" in reply:
        return {"error": str(reply["error"].get("message", "the server refused the call"))}
    result = reply.get("result") or {}
    text = "\n".join(block.get("text", "") for block in result.get("content") or []
                     if block.get("type") == "text")
    return text
