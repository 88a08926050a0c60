def initialize(conn, timeout=2.0):
    """The MCP handshake: initialize (pinned version), check the answer, then the initialized notification."""
    reply = rpc(conn, "initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                     "clientInfo": {"name": "agent-loop-by-hand", "version": "1.0"}}, timeout)
    if "error" in reply:
        raise MCPError(f"initialize failed: {reply['error'].get('message')}")
    result = reply.get("result")
    if type(result) is not dict:
        raise MCPError(f"initialize: the response has no result: {reply!r}")
    version = result.get("protocolVersion")
    if version not in SUPPORTED_VERSIONS:
        raise MCPError(f"the server speaks protocol {version!r}; this client speaks {', '.join(SUPPORTED_VERSIONS)}")
    rpc(conn, "notifications/initialized", timeout=0.2)
    return result
