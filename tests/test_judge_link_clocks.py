"""The judge's budgets read clocks bound when it started (autograder/judge/clocks.py): a test that
moves `time.monotonic` or `time.process_time` on (to put the student's world a year later) does
not stop itself, and a test that really runs over its budget still fails. A judge process runs
the test; the kernel's end is served from this process, as a kernel's cell would."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from autograder.judge import clocks
from autograder.judge.another import INSTALL, faketime_library
from autograder.judge.cells import GRACE, REPLAY, grace
from autograder.judge.process import JudgeProcess
from workbook.link import kernel_side

MOVED = """
import time
real = time.{name}
time.{name} = lambda: real() + 365 * 24 * 3600  # the student's world, a year later
try:
    assert slow() == "done"
finally:
    time.{name} = real
"""


def slow():
    """A notebook function that takes longer than the link's poll: the judge checks its budget."""
    time.sleep(0.5)
    return "done"


@pytest.fixture
def judge():
    proc = JudgeProcess()
    yield proc
    proc.close()


def run(judge: JudgeProcess, folder, name: str, source: str, cpu: float = 20, wall: float = 60) -> dict:
    sock = str(folder / f"{name}.sock")
    judge.start(sock, None, None, cpu=cpu, wall=wall, exercises=["slow", "stamp", "pid_of_kernel"])
    judge.test(name, source, hidden=False, token=name)
    kernel = threading.Thread(target=kernel_side.serve, args=(sock, name), daemon=True)
    kernel.start()
    kernel.join(60)
    judge.cell_done()
    return judge.result(60)


@pytest.fixture
def notebook(monkeypatch):
    monkeypatch.setitem(vars(sys.modules["__main__"]), "slow", slow)


@pytest.mark.parametrize("name", ["monotonic", "process_time", "time", "perf_counter"])
def test_a_test_that_moves_the_clock_does_not_stop_itself(judge, tmp_path, notebook, name):
    result = run(judge, tmp_path, name, MOVED.format(name=name))
    assert result["passed"] and result["timeout"] is False, result
    assert 0 <= result["wall"] < 60 and 0 <= result["cpu"] < 60, "the judge's own figures use its own clocks"


def test_a_test_over_its_time_still_fails(judge, tmp_path, notebook):
    result = run(judge, tmp_path, "over", "import time\ntime.monotonic = lambda: 0.0\nwhile True:\n    slow()\n",
                 wall=2)
    assert not result["passed"] and result["ename"] == "TestStopped", result
    assert result["timeout"] is True, "a test the judge stopped for time is a timeout (the grader records it)"


def test_a_kernel_stopped_for_its_time_is_interrupted_at_once_and_others_have_grace():
    """A judged timeout leaves the kernel in the student's code (a loop): interrupting it at once
    saves GRACE seconds of its CPU per such cell; any other verdict waits GRACE for the cell to end."""
    assert grace({"passed": False, "timeout": True}) == 0
    assert grace({"passed": False, "ename": "AssertionError"}) == grace({"passed": True}) == GRACE > 0
    assert grace({"passed": False, "timeout": "yes"}) == GRACE  # only the judge's own True


def test_a_kernel_that_never_answers_is_not_a_timeout(judge, tmp_path):
    judge.start(str(tmp_path / "gone.sock"), None, None, cpu=20, wall=60)
    judge.test("gone", "assert True\n", hidden=False, token="gone")
    judge.cell_done()  # the cell ended without serving the test
    result = judge.result(60)
    assert not result["passed"] and result["ename"] == "TestStopped" and result["timeout"] is False, result


def test_the_clocks_are_the_time_modules_own():
    assert (clocks.monotonic, clocks.wall, clocks.perf_counter, clocks.process_time) == (
        time.monotonic, time.time, time.perf_counter, time.process_time)


ANOTHER = """
from workbook.notebook_side import another_process

year = 365 * 24 * 3600
later = another_process(seconds=year)
moved, now = later.stamp(), stamp()
assert now[1] == pid_of_kernel, "stamp runs in the kernel"
assert moved[1] != now[1] and moved[0] - now[0] > year - 60, ("another process, a year later", moved, now)
assert moved[2] != now[2], "with another hash()"
"""
STAMP = "import os, time\n\ndef stamp():\n    return (time.time(), os.getpid(), hash('key'))\n"


@pytest.mark.skipif(faketime_library() is None, reason=f"another process needs libfaketime: {INSTALL}")
def test_another_process_is_the_notebook_run_again_by_the_judge(judge, tmp_path, monkeypatch):
    """Chapter 08 runs the student's idempotency_key a year later and in another process: the judge
    runs the notebook's cells (sent with the test) again in a fresh Python, outside the kernel,
    with the clock moved and another hash seed (autograder/judge/another.py)."""
    main = vars(sys.modules["__main__"])
    monkeypatch.setitem(main, "stamp", lambda: (time.time(), os.getpid(), hash("key")))
    monkeypatch.setitem(main, "pid_of_kernel", os.getpid())
    sock = str(tmp_path / "another.sock")
    judge.start(sock, None, None, cpu=20, wall=60, exercises=["stamp", "pid_of_kernel"], replay=REPLAY)
    judge.test("another", ANOTHER, hidden=False, token="another", cells=[STAMP])
    kernel = threading.Thread(target=kernel_side.serve, args=(sock, "another"), daemon=True)
    kernel.start()
    kernel.join(60)
    judge.cell_done()
    result = judge.result(60)
    assert result["passed"], result
    assert time.time is clocks.wall, "the kernel's clock was never moved"


def test_a_test_cell_is_compiled_as_its_own_module(judge, tmp_path):
    """A dataclass defined in a test cell works in the judge as in the kernel: the cell does not
    inherit the runner's `from __future__ import annotations` (its fields' annotations would be
    strings that dataclasses looks up in a module that is not there)."""
    source = ("from dataclasses import dataclass\n\n@dataclass\nclass Result:\n    answer: str\n    steps: int = 0\n\n"
              "assert Result('done').steps == 0\nassert isinstance(Result.__annotations__['answer'], type)\n")
    result = run(judge, tmp_path, "dataclass", source)
    assert result["passed"], result
