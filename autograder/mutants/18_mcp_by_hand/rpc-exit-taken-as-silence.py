def rpc(conn, method, params=None, timeout=2.0):
    """Send one JSON-RPC request; the response to it (a dict with "result" or "error")."""
    request_id = new_id(conn)
    request = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        request["params"] = params
    conn.send(request)
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        line = conn.read_line(remaining) if remaining > 0 else None
        if not line:
            raise MCPError(f"the server did not answer {method} within {timeout} s (timed out)")
        if line == "":
            raise MCPError(f"the server exited (exit code {conn.proc.poll()}) before answering {method}")
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            message = None
        if type(message) is not dict:
            raise MCPError(f"the server wrote something that is not JSON-RPC on stdout: {line.strip()[:120]!r} "
                           "(a server must log to stderr, never stdout)")
        if "method" in message or "id" not in message:
            continue  # a notification, or a request from the server: not our answer
        if message["id"] != request_id:
            raise MCPError(f"reply id {message['id']!r} does not match the request id {request_id}")
        return message
