"""The judge's socket and the kernel's hello (red-team cases of issue 24): the socket is open to
the sandbox's uid from its bind (a chmod of its path afterwards followed a symlink the kernel had
swapped in, and made a host file 0777 as root), a path the kernel planted makes the bind fail and
touches nothing, and a connection is served only after its hello with the test's token."""

from __future__ import annotations

import io
import os
import socket
import stat

import pytest

from autograder.judge.runner import Judge
from workbook import probes
from workbook.link.channel import Channel
from workbook.link.judge_end import JudgeEnd, KernelRef
from workbook.link.kernel_side import KernelEnd


def start(path) -> Judge:
    judge = Judge(io.StringIO())
    judge.start({"socket": str(path), "cpu": 5, "wall": 5})
    return judge


def test_the_socket_is_open_to_the_sandbox_from_its_bind(tmp_path):
    old = os.umask(0o077)
    try:
        judge = start(tmp_path / "judge.sock")
    finally:
        os.umask(old)
    mode = os.stat(tmp_path / "judge.sock").st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o777
    assert os.umask(old) == old, "the judge's umask is back after the bind"
    judge.listener.close()


def test_a_symlink_planted_at_the_socket_makes_the_bind_fail_and_touches_nothing(tmp_path):
    target = tmp_path / "hidden_tests.py"
    target.write_text("secret")
    target.chmod(0o600)
    (tmp_path / "judge.sock").symlink_to(target)
    with pytest.raises(OSError):
        start(tmp_path / "judge.sock")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() == "secret"


@pytest.fixture
def link():
    judge_sock, kernel_sock = socket.socketpair()
    judge, kernel = JudgeEnd(), KernelEnd()
    judge.token = "right"
    judge.channel = Channel(judge_sock, judge.serve, orphans="thread")
    kernel.channel = Channel(kernel_sock, kernel.serve, orphans="thread")
    yield judge, kernel
    judge.channel.close()
    kernel.channel.close()


def refusal(reply: dict) -> str:
    return str(reply.get("exc", {}).get("msg", ""))


def test_nothing_is_served_before_the_hello_with_the_tests_token(link):
    judge, kernel = link
    ask = kernel.channel.request
    assert "said hello" in refusal(ask({"op": "call", "hid": 1, "args": [[], {}]})), "served unasked"
    assert "not this test's kernel" in refusal(ask({"op": "hello", "token": "wrong"}))
    assert not judge.greeted.is_set()
    assert ask({"op": "hello", "token": "right"}).get("ok", "refused") is None and judge.greeted.is_set()
    assert "not this test's kernel" in refusal(ask({"op": "hello", "token": "right"})), "a second hello"


def test_a_judge_without_a_token_greets_nobody(link):
    judge, kernel = link
    judge.token = ""
    assert "not this test's kernel" in refusal(kernel.channel.request({"op": "hello", "token": ""}))


def test_a_function_that_calls_itself_a_workbook_function_stays_the_notebooks(ends):
    """The kernel names an object's path: a notebook's function that set its __module__ and
    __qualname__ to a workbook function's would, if the judge swapped in its own copy, be graded
    as the workbook's code (red team, issue 24). A function stays a KernelRef; a workbook class, which
    the tests construct and check with isinstance, is the judge's own."""
    judge, kernel = ends

    def answer(text):
        return "the notebook's own"

    answer.__module__, answer.__qualname__ = "workbook.probes", "elsewhere"
    got = judge.decode(kernel.encode(answer))
    assert isinstance(got, KernelRef) and got("x") == "the notebook's own"
    assert judge.decode(kernel.encode(probes.Overlap)) is probes.Overlap
