"""Chapter 18's judge-side `Connection` (workbook/mcp_servers) is bounded against the client it is
handed. The red team's kernel reached `conn.lines.put` (the judge's stdout queue) and put 8 MB
strings in it until the judge held 628 MB; `conn.send(huge)` grew `conn.sent` the same way. The
queue is private now (the link hands out no `_` name) and what one connection sends is capped."""

from __future__ import annotations

import pytest

import workbook.mcp_servers as mcp
from tests.judge_ends import in_kernel
from workbook.link.codec import LinkError
from workbook.mcp_servers import start, toy_command


def reach_queue(conn):
    """The attack: put into the judge's line queue (before: `conn.lines.put`)."""
    found = []
    for name in ("lines", "_lines"):
        try:
            getattr(conn, name).put("x" * 1000)
            found.append(name)
        except (LinkError, AttributeError) as e:
            found.append(f"refused {name}: {type(e).__name__}")
    return found


def test_the_kernel_cannot_reach_the_line_queue(ends):
    judge, kernel = ends
    with start(toy_command("--lenient")) as conn:
        got = in_kernel(judge, kernel, reach_queue)(conn)
        assert got[0].startswith("refused lines") and got[1].startswith("refused _lines"), got
        assert conn._lines.qsize() == 0, "nothing was put in the judge's queue"


def test_what_one_connection_sends_is_capped(ends, monkeypatch):
    judge, kernel = ends
    monkeypatch.setattr(mcp, "MAX_SENT", 5)

    def flood(conn):
        big = "x" * (mcp.MAX_SENT_BYTES // 2)
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": big}})
        conn.send({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": big}})

    with start(toy_command("--lenient")) as conn:
        with pytest.raises(ValueError, match="at most"):
            in_kernel(judge, kernel, flood)(conn)
        assert len(conn.sent) == 1, "the refused message is not kept"
        for n in range(4):
            conn.send({"jsonrpc": "2.0", "id": n + 3, "method": "ping"})
        with pytest.raises(mcp.TooManyMessages, match="more than 5 messages"):
            conn.send({"jsonrpc": "2.0", "id": 9, "method": "ping"})
        assert len(conn.sent) == 5
