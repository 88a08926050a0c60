"""Chapter 18 under the judge: what of an MCP server crosses the link to the student's kernel.

A judged test starts the toy server on the judge's side and hands the student's client the
`Connection`. Its methods and data cross (`send`, `read_line`, `sent`, `returncode`); the
subprocess behind it never does, so the kernel cannot signal, kill or rewire the server the
asserts read. The two ends run in this process over a socket pair, as the judge and a kernel do.
"""

from __future__ import annotations

import json

import pytest

from tests.judge_ends import in_kernel
from workbook.link.codec import LinkError
from workbook.link.exc_classes import stand_in
from workbook.mcp_servers import start, toy_command


def client(conn):
    """What a student's rpc does with the connection it was handed (in the kernel)."""
    conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    line = conn.read_line(10.0)
    try:
        conn.proc.kill()
        reached = "the subprocess"
    except AttributeError as e:  # not part of what the judge offers (trust.surface)
        reached = f"refused: {e}"
    return {"reply": json.loads(line), "sent": conn.sent, "returncode": conn.returncode, "proc": reached}


def test_a_connection_crosses_but_not_its_subprocess(ends):
    judge, kernel = ends
    with start(toy_command("--lenient")) as conn:
        out = in_kernel(judge, kernel, client)(conn)
        assert out["reply"] == {"jsonrpc": "2.0", "id": 1, "result": {}}
        assert out["sent"] == [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
        assert out["returncode"] is None
        assert out["proc"].startswith("refused: the grader's Connection has no attribute 'proc'")
        assert conn.proc.poll() is None, "the server is still running: the kernel never reached it"
        assert conn.sent == out["sent"], "the judge's record is the one the asserts read"


def test_a_kernel_cannot_lift_the_send_limit(ends):
    judge, kernel = ends

    def flood(conn):
        conn.max_sends = None  # sets an attribute of the kernel's proxy only
        for n in range(10):
            conn.send({"jsonrpc": "2.0", "id": n + 1, "method": "ping"})

    with start(toy_command("--lenient"), max_sends=3) as conn:
        with pytest.raises(BaseException, match="more than 3 messages"):
            in_kernel(judge, kernel, flood)(conn)
        assert len(conn.sent) == 3


def test_returncode_is_the_exit_code():
    with start(toy_command("--die-on", "ping")) as conn:
        assert conn.returncode is None
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert conn.read_line(10.0) == ""
        assert conn.returncode == 3


class MCPError(Exception):
    """A notebook's own exception class (chapter 18 defines one in its given code)."""


def refuse(text):
    raise MCPError(f"refused: {text}")


def test_a_notebook_exception_class_is_its_built_in_bases_stand_in_in_the_judge(ends):
    """Issue 44: the judge makes no class from a name the kernel sends."""
    judge, kernel = ends
    cls = judge.decode(kernel.encode(MCPError))
    assert cls is stand_in("__main__:Other", ["Other", "Exception"]), "one stand-in per built-in base"
    assert cls.__name__ == "Exception" and cls.__bases__ == (Exception,)
    with pytest.raises(cls, match="refused: no") as raised:  # checks.raises(Exception) catches it
        in_kernel(judge, kernel, refuse)("no")
    assert raised.value.notebook_class == "MCPError", "the notebook's name, as data"
    with pytest.raises(LinkError, match="cannot hand the notebook"):
        in_kernel(judge, kernel, lambda c: c is MCPError)(cls)  # which of its classes? none is guessed


def test_a_class_that_only_says_it_is_an_exception_gets_a_builtin_base(ends):
    judge, kernel = ends
    forged = {"$h": 12345, "side": "k", "kind": "class", "exc": True, "path": "__main__:Sneaky",
              "mro": ["Sneaky", "SystemExit", "KeyboardInterrupt", "BaseException"]}
    cls = judge.decode(forged)
    assert cls.__mro__[1] is BaseException and not issubclass(cls, (SystemExit, KeyboardInterrupt))


@pytest.mark.parametrize("path", ["workbook.link.judge_end:JudgeEnd", "workbook.link.names:Namespace",
                                  "workbook.link.kernel_objects:Record", "workbook.link.channel:LoopChannel",
                                  "workbook.fresh:Fresh", "workbook.loopback:Loop"])
def test_a_class_of_the_links_own_is_never_picked_by_a_name_the_kernel_sends(ends, path):
    """The judge's end now lives in the workbook: a kernel naming one of its classes gets a KernelRef."""
    judge, _ = ends
    got = judge.decode({"$h": 12345, "side": "k", "kind": "class", "path": path})
    assert type(got).__name__ == "KernelRef", got
