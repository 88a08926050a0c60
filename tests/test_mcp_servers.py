"""workbook.mcp_servers: the toy server's flags do what chapter 18's tests rely on, and its
messages have the shapes of the official SDK's server (checked against a real one)."""

import asyncio
import json

import pytest

from workbook.mcp_servers import TooManyMessages, run_async, sdk_command, start, toy_command

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def ask(conn, message, timeout=5.0):
    """Send a request; the first line back that is not a notification, parsed."""
    conn.send(message)
    while True:
        line = conn.read_line(timeout)
        assert line, f"no answer to {message['method']}: {line!r}"
        reply = json.loads(line)
        if "id" in reply:
            return reply


def session(*flags):
    conn = start(toy_command(*flags))
    ask(conn, INIT)
    conn.send(READY)
    return conn


def test_initialize_echoes_a_supported_version_and_strict_order():
    with start(toy_command()) as conn:
        reply = ask(conn, INIT)
        assert reply["result"]["protocolVersion"] == "2025-11-25"
        early = ask(conn, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert early["error"]["code"] == -32600 and "initialized" in early["error"]["message"]
        conn.send(READY)
        assert len(ask(conn, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})["result"]["tools"]) == 5


def test_paging_and_a_cursor_that_loops():
    with session("--page-size", "2") as conn:
        page = ask(conn, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]
        assert [t["name"] for t in page["tools"]] == ["add", "echo"] and page["nextCursor"]
        last = ask(conn, {"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                          "params": {"cursor": "page-4"}})["result"]
        assert [t["name"] for t in last["tools"]] == ["today"] and "nextCursor" not in last
    with session("--page-size", "2", "--loop-cursor") as conn:
        page = ask(conn, {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                          "params": {"cursor": "page-2"}})["result"]
        assert page["nextCursor"] == "page-0"


@pytest.mark.parametrize("style", ["result", "jsonrpc"])
def test_errors_both_ways(style):
    with session("--errors", style) as conn:
        ok = ask(conn, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
        assert ok["result"] == {"content": [{"type": "text", "text": "5"}], "isError": False}
        bad = ask(conn, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "fail", "arguments": {"reason": "x"}}})
        if style == "result":
            assert bad["result"]["isError"] is True and "x" in bad["result"]["content"][0]["text"]
        else:
            assert bad["error"]["code"] == -32602 and "x" in bad["error"]["message"]


def test_misbehaviours():
    with start(toy_command("--log-stdout")) as conn:
        assert conn.read_line(5).startswith("INFO")
    with session("--die-on", "tools/list") as conn:
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert conn.read_line(5) == "" and conn.read_line(0) == ""
    with session("--hang-on", "tools/list") as conn:
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert conn.read_line(0.3) is None
    with session("--wrong-id", "--notify", "--lenient") as conn:
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert "id" not in json.loads(conn.read_line(5))
        assert json.loads(conn.read_line(5))["id"] == 1002
    with session("--chatter-on", "tools/list") as conn:
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert all("id" not in json.loads(conn.read_line(5)) for _ in range(3))
    with start(toy_command("--version", "1999-01-01")) as conn:
        assert ask(conn, INIT)["result"]["protocolVersion"] == "1999-01-01"


def test_run_async_returns_raises_and_times_out():
    async def value():
        return 42

    async def boom():
        raise KeyError("x")

    assert run_async(value) == 42
    with pytest.raises(KeyError):
        run_async(boom)
    with pytest.raises(TimeoutError):
        run_async(lambda: asyncio.sleep(5), timeout=0.2)


def test_the_toy_server_speaks_like_the_sdk_server():
    """The same requests to the real SDK server: the shapes the toy copies."""
    with start(sdk_command()) as conn:
        init = ask(conn, INIT, timeout=30)["result"]
        assert init["protocolVersion"] == "2025-11-25" and "tools" in init["capabilities"]
        conn.send(READY)
        tools = ask(conn, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
        assert {t["name"] for t in tools} == {"add", "shout", "fail"}
        assert all(t["inputSchema"]["type"] == "object" for t in tools)
        ok = ask(conn, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})["result"]
        assert ok["content"] == [{"type": "text", "text": "5"}] and ok["isError"] is False
        bad = ask(conn, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                         "params": {"name": "fail", "arguments": {"reason": "x"}}})["result"]
        assert bad["isError"] is True and bad["content"][0]["type"] == "text"
        missing = ask(conn, {"jsonrpc": "2.0", "id": 5, "method": "no/such"})
        assert missing["error"]["code"] == -32601
        assert not any(line.startswith("{") for line in conn.stderr)  # logs only on stderr


def test_max_sends_stops_a_client_that_never_stops():
    with start(toy_command("--lenient"), max_sends=2) as conn:
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        with pytest.raises(TooManyMessages, match="more than 2 messages"):
            conn.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert len(conn.sent) == 2 and not issubclass(TooManyMessages, Exception)


def test_a_bad_command_is_refused_clearly():
    with pytest.raises(TypeError, match="list of strings"):
        start("python toy_server.py")
