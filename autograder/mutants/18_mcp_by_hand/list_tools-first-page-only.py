def list_tools(conn, max_pages=20, timeout=2.0):
    """Every tool of the server, following nextCursor, with a guard against a cursor that never ends."""
    tools, cursor, seen = [], None, set()
    for _ in range(max_pages):
        reply = rpc(conn, "tools/list", {"cursor": cursor} if cursor else {}, timeout)
        if "error" in reply:
            raise MCPError(f"tools/list failed: {reply['error'].get('message')}")
        page = reply.get("result") or {}
        tools.extend(page.get("tools") or [])
        cursor = page.get("nextCursor")
        return tools
        if cursor in seen:
            raise MCPError(f"tools/list does not end: the cursor {cursor!r} came back")
        seen.add(cursor)
    raise MCPError(f"tools/list does not end: more than {max_pages} pages")
