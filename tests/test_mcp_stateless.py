"""The stateless MCP revision (2026-07-28) as chapter 18 teaches it: the toy server's stateless
answers have the shapes of the official SDK's own server (started here over stdio), the flags
the chapter's tests use do what they say, and `exchange_async` shows an SDK server's wire."""


import json

from mcp.server.mcpserver import MCPServer

from workbook.mcp_servers import Chatter, run_async, sdk_command, start, toy_command
from workbook.mcp_servers.memory import exchange_async

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}}


def request(n, method, meta=META, **params):
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": {**params, "_meta": meta}}


def ask(conn, message, timeout=60.0):
    """Send a request; its response (notifications and server requests skipped)."""
    conn.send(message)
    while True:
        line = conn.read_line(timeout)
        assert line, f"no answer to {message['method']}: {line!r}"
        reply = json.loads(line)
        if "id" in reply and "method" not in reply:
            return reply


def conversation(conn):
    """The same five stateless requests the chapter sends, and their answers."""
    old = {**META, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}
    no_caps = {k: v for k, v in META.items() if "Capabilities" not in k}
    return [ask(conn, m) for m in (
        request(1, "server/discover"), request(2, "tools/list"),
        request(3, "tools/call", name="add", arguments={"a": 2, "b": 3}),
        request(4, "tools/list", meta=old), request(5, "tools/list", meta=no_caps), request(6, "ping"))]


def shape(reply):
    """What a client reads of a reply: its keys, an error's code and data, a result's kinds."""
    if "error" in reply:
        return {"error": reply["error"]["code"], "data": reply["error"].get("data")}
    result = reply["result"]
    return {"result": sorted(k for k in result if k not in ("capabilities", "tools", "structuredContent")),
            "resultType": result.get("resultType"), "serverInfo": "io.modelcontextprotocol/serverInfo" in result["_meta"]}


def test_the_toy_server_answers_stateless_requests_as_the_sdk_server_does():
    with start(sdk_command()) as conn:
        sdk = conversation(conn)
    with start(toy_command()) as conn:
        toy = conversation(conn)
    assert [shape(r) for r in toy] == [shape(r) for r in sdk]
    assert sdk[3]["error"] == {"code": -32022, "message": "Unsupported protocol version",
                               "data": {"supported": ["2026-07-28"], "requested": "2027-01-01"}}
    assert toy[3]["error"] == sdk[3]["error"]
    assert sdk[4]["error"]["code"] == toy[4]["error"]["code"] == -32602
    assert sdk[5]["error"]["code"] == toy[5]["error"]["code"] == -32601  # ping is gone in 2026-07-28
    assert sdk[0]["result"]["supportedVersions"] == toy[0]["result"]["supportedVersions"] == ["2026-07-28"]
    assert sdk[2]["result"]["content"] == toy[2]["result"]["content"] == [{"type": "text", "text": "5"}]


def test_the_flags_chapter_18_relies_on():
    with start(toy_command("--input-required")) as conn:
        assert ask(conn, request(1, "tools/call", name="add", arguments={"a": 1, "b": 2}))["result"]["resultType"] == "input_required"
    with start(toy_command("--legacy-only")) as conn:
        refused = ask(conn, request(1, "server/discover"))
        assert refused["error"]["code"] == -32600 and "before initialization" in refused["error"]["message"]
    with start(toy_command("--legacy-only", "--lenient")) as conn:
        assert "resultType" not in ask(conn, request(1, "tools/list"))["result"]
    with start(toy_command("--fail-on", "initialize")) as conn:
        assert ask(conn, {"jsonrpc": "2.0", "id": 1, "method": "initialize"})["error"]["message"] == (
            "initialize refused: the server is not available")
    with start(toy_command("--ask", "--lenient")) as conn:
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert json.loads(conn.read_line(10)) == {"jsonrpc": "2.0", "id": "toy-1", "method": "roots/list"}
        assert json.loads(conn.read_line(10)) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    with start(toy_command("--extra-blocks", "--lenient")) as conn:
        blocks = ask(conn, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})["result"]["content"]
        assert [b["type"] for b in blocks] == ["text", "image", "text"]


def test_exchange_shows_both_eras_of_an_sdk_server():
    server = MCPServer("probe")

    @server.tool(name="add")
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    modern = run_async(lambda: exchange_async(server, [request(1, "server/discover"), request(
        2, "tools/call", name="add", arguments={"a": 2, "b": 3})]))
    assert [r["id"] for r in modern] == [1, 2]
    assert modern[0]["result"]["supportedVersions"] == ["2026-07-28"]
    assert modern[1]["result"]["content"] == [{"type": "text", "text": "5"}]
    legacy = run_async(lambda: exchange_async(server, [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]))
    assert legacy[0]["result"]["protocolVersion"] == "2025-11-25" and "resultType" not in legacy[1]["result"]
    assert [t["name"] for t in legacy[1]["result"]["tools"]] == ["add"]


def test_chatter_talks_every_period_then_falls_silent():
    with Chatter(period=0.01, lines=5) as conn:
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert conn.read_line(0.001) is None, "a read shorter than the period gets nothing"
        lines = [json.loads(conn.read_line(1.0)) for _ in range(5)]
        assert [m["method"] for m in lines] == ["notifications/progress"] * 5 and all("id" not in m for m in lines)
        assert conn.read_line(0.01) is None and conn.sent == [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
        assert conn.returncode is None
