"""Once a notebook has seen hidden inputs, nothing it sends reaches a message (workbook/link/heard.py), and
another process that floods the judge never holds it (judge/another.py): red team, issue 44."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from autograder.judge.another import INSTALL, faketime_library
from autograder.judge.cells import REPLAY
from autograder.judge.process import JudgeProcess
from workbook.link import kernel_side
from workbook.link.heard import VALUE

SEEN: list = []


def echo(*args):
    """The notebook's function: it keeps what it is handed and answers with it, cut short."""
    SEEN.extend(args)
    return [str(a)[i:i + 8] for a in SEEN for i in range(0, len(str(a)), 8)]


@pytest.fixture
def judge(monkeypatch):
    monkeypatch.setitem(vars(sys.modules["__main__"]), "echo", echo)
    SEEN.clear()
    proc = JudgeProcess()
    yield proc
    proc.close()


def run(judge: JudgeProcess, sock: str, name: str, source: str, hidden: bool, cells=None) -> dict:
    judge.test(name, source, hidden=hidden, token=name, cells=cells)
    kernel = threading.Thread(target=kernel_side.serve, args=(sock, name), daemon=True)
    kernel.start()
    kernel.join(60)
    judge.cell_done()
    return judge.result(90)


CHECK = "got = echo({arg!r})\nassert got == ['nothing'], f'echo must answer nothing; got {{got!r}}'\n"


def test_after_a_hidden_test_no_message_carries_what_the_notebook_sends(judge, tmp_path):
    sock = str(tmp_path / "j.sock")
    judge.start(sock, None, None, cpu=20, wall=60, exercises=["echo"])
    before = run(judge, sock, "visible_before", CHECK.format(arg="public input"), hidden=False)
    assert "public i" in before["evalue"], "a visible test before any hidden one shows the value"
    hidden = run(judge, sock, "hidden", CHECK.format(arg="SECRET-hidden-input-42"), hidden=True)
    after = run(judge, sock, "visible_after", CHECK.format(arg="x"), hidden=False)
    for result in (hidden, after):
        assert not result["passed"]
        assert "SECRET" not in result["evalue"] and "input-42" not in result["evalue"], result["evalue"]
        assert result["evalue"] == f"echo must answer nothing; got {VALUE}", result["evalue"]


FLOOD = ("import os, sys\n"
         "if sys.argv and sys.argv[0].endswith('replay.py'):\n"
         "    while True:  # the answer's pipe, flooded and never ended\n"
         "        os.write(int(sys.argv[1]), b'x' * 65536)\n")


@pytest.mark.skipif(faketime_library() is None, reason=f"another process needs libfaketime: {INSTALL}")
def test_another_process_that_floods_and_never_reads_ends_with_its_test(judge, tmp_path):
    sock = str(tmp_path / "f.sock")
    judge.start(sock, None, None, cpu=3, wall=20, exercises=["echo"], replay=REPLAY)
    started = time.monotonic()
    result = run(judge, sock, "flood", "from workbook.notebook_side import another_process\n"
                 "another_process(60).echo('a')\n", hidden=False, cells=[FLOOD])
    assert not result["passed"] and result["ename"] == "KernelError", result
    assert "answered too much" in result["evalue"], result
    assert time.monotonic() - started < 40, "the judge reads a bounded answer; closing it never waits on the flood"
