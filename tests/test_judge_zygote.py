"""Judges forked from the worker's zygote (autograder/judge/zygote.py): each is fresh, a dead
zygote costs nothing but a slower judge, and a judge's state never reaches the next one."""

import os
import signal
import threading

import pytest

from autograder.judge import process
from autograder.judge.process import JudgeProcess, Zygote
from workbook.link import kernel_side


@pytest.fixture
def folder(tmp_path):
    return tmp_path


def _run(judge: JudgeProcess, folder, name: str, source: str) -> dict:
    """Give `judge` one visible test and answer it from this process, as a kernel's cell would."""
    sock = str(folder / f"{name}.sock")
    judge.start(sock, None, None, cpu=20, wall=60)
    judge.test(name, source, hidden=False, token=name)
    kernel = threading.Thread(target=kernel_side.serve, args=(sock, name), daemon=True)
    kernel.start()
    kernel.join(60)
    judge.cell_done()
    return judge.result(60)


def test_judges_are_forked_from_one_zygote_and_start_fresh(folder):
    first = JudgeProcess()
    zygote = Zygote._current
    assert zygote is not None and zygote.proc.poll() is None
    try:
        marked = _run(first, folder, "a", "import workbook.link.judge_end as r\nr.LEFT_BY_A = 1\n")
    finally:
        first.close()
    assert marked["passed"], marked
    second = JudgeProcess()
    try:
        assert Zygote._current is zygote and second.proc.pid != first.proc.pid
        fresh = _run(second, folder, "b", "import workbook.link.judge_end as r\n"
                                          "assert not hasattr(r, 'LEFT_BY_A'), 'state crossed judges'\n")
    finally:
        second.close()
    assert fresh["passed"], fresh


def test_a_failing_test_fails_in_a_forked_judge(folder):
    judge = JudgeProcess()
    try:
        result = _run(judge, folder, "c", "assert 1 == 2, 'one is not two'\n")
    finally:
        judge.close()
    assert not result["passed"] and result["ename"] == "AssertionError" and "one is not two" in result["evalue"]


def test_a_dead_zygote_is_replaced(folder):
    JudgeProcess().close()
    old = Zygote._current
    os.kill(old.proc.pid, signal.SIGKILL)
    old.proc.wait(10)
    judge = JudgeProcess()
    try:
        assert Zygote._current is not old
        assert _run(judge, folder, "d", "pass\n")["passed"]
    finally:
        judge.close()


def test_a_branched_zygote_forks_fresh_judges(folder):
    """The fast runner's chapter processes fork their judges from a branch of the worker's zygote."""
    control = Zygote.branch()
    assert control is not None
    judges = []
    try:
        for name in ("e", "f"):
            forked = process.request_judge(control)
            assert forked is not None
            judge = JudgeProcess(forked)
            judges.append(judge)
            assert _run(judge, folder, name, f"import workbook.link.judge_end as r\nassert not hasattr(r, 'SEEN')\n"
                                             f"r.SEEN = {name!r}\n")["passed"]
        assert judges[0].proc.pid != judges[1].proc.pid
    finally:
        for judge in judges:
            judge.close()
        control.close()
    assert process.request_judge(control := Zygote.branch()) is not None  # the worker's zygote lives on
    control.close()
