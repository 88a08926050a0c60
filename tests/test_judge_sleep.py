"""Sleeping is not free (issue 44 item 10): a kernel that only waits is ended by the idle clock
(autograder/judge/cpu.py, IdleClock: seconds in which a process tree neither ran on a CPU nor
waited for one) soon after its CPU limit, while a kernel starved of the CPU by a busy machine is
never idle, so load still cannot end it before it used its CPU limit.

The busy machine is made here: hogs pinned to the victim's CPU (os.sched_setaffinity). Limits are
a second or two and the graces are made small; every bound asserted is generous."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

from autograder.judge import cpu, runner, watch
from autograder.judge.runner import TimeUp

pytestmark = pytest.mark.skipif(not cpu.SCHEDSTATS, reason="this kernel counts no run delays")

CPU = max(os.sched_getaffinity(0))  # the victim's CPU, and its hogs'
HOGS = 4  # a victim among them gets ~1/5 of its CPU
SPIN = f"import os\nos.sched_setaffinity(0, {{{CPU}}})\nprint('ready', flush=True)\nwhile True:\n    pass\n"
SLEEP = "import time\nprint('ready', flush=True)\ntime.sleep(600)\n"


def _start(code: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()


@pytest.fixture
def sleeper():
    proc = _start(SLEEP)
    yield proc
    _stop(proc)


@pytest.fixture
def starved():
    """A busy loop that gets a fifth of its CPU: the rest goes to HOGS busy loops beside it. The
    hogs slow every other test of the run too (make test's gates, +100 s on 2 cores), so these run
    in the load tier with tests/test_load_gate.py (GATES_LOAD=1); test_judge_cpu.py checks the
    same counting on a made-up /proc in every run."""
    if os.environ.get("GATES_LOAD") != "1":
        pytest.skip("starves a CPU on purpose: set GATES_LOAD=1 (the load tier)")
    hogs = [_start(SPIN) for _ in range(HOGS)]
    proc = _start(SPIN)
    yield proc
    _stop(proc, *hogs)


@pytest.fixture
def graces(monkeypatch):
    """Graces of half a second, so a limit of a second ends a sleeper in about two."""
    for module in (watch, runner):
        monkeypatch.setattr(module, "IDLE_GRACE", 0.5)
    monkeypatch.setattr(watch, "END_GRACE", 0.5)


def _wait(what, timeout: float = 30.0) -> float:
    """Seconds until `what()` is true (polled every 50 ms); fails past `timeout`."""
    started = time.monotonic()
    while not what():
        assert time.monotonic() - started < timeout, "never ended"
        time.sleep(0.05)
    return time.monotonic() - started


def test_a_sleeping_process_is_idle_at_the_clocks_speed_and_a_starved_one_is_not(sleeper, starved):
    asleep = cpu.IdleClock(lambda: [cpu.Party(sleeper.pid)])
    hungry = cpu.IdleClock(lambda: [cpu.Party(starved.pid)])
    time.sleep(2.0)
    assert asleep.seconds() >= 1.0, asleep.idle
    assert hungry.seconds() <= 0.5, hungry.idle  # it used ~0.4 s of CPU and waited ~1.6 s for more
    assert cpu.tree_cpu(starved.pid) < 1.5  # it really was starved


def test_a_cell_that_sleeps_is_interrupted_soon_after_its_cpu_limit(sleeper, graces):
    fired = threading.Event()
    cell = watch.CpuWatch(sleeper.pid, 1.0, fired.set)
    took = _wait(fired.is_set)
    cell.stop()
    assert 1.0 <= took < 10.0, took  # idle 1 + 0.5 s, where the clock's backstop took 5 x 1 s
    assert cell.why.startswith("interrupted after 1.5 s of waiting without using the CPU"), cell.why
    assert cell.used() < 0.5


def test_a_starved_cell_is_interrupted_for_its_cpu_only_once_it_used_it(starved, graces):
    fired = threading.Event()
    cell = watch.CpuWatch(starved.pid, 1.0, fired.set)
    took = _wait(fired.is_set)
    cell.stop()
    assert cell.why == "interrupted after 1 s of CPU time", cell.why
    assert cell.used() >= 1.0
    assert took >= 2.0, took  # a fifth of a CPU: ~5 s; idle 1.5 s would have fired at ~2 s


class _Box:
    """A process as NotebookWatch sees the sandbox's first one (`pid`, `kill()`)."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.pid, self.killed = proc, proc.pid, threading.Event()

    def kill(self) -> bool:
        self.proc.kill()
        self.killed.set()
        return True


def _killed(proc: subprocess.Popen, limit: float, **kw) -> tuple[float, str]:
    """Watch `proc` as a notebook's sandbox (NotebookWatch) until it is killed: (seconds, why)."""
    box = _Box(proc)
    nb = watch.NotebookWatch(limit, lambda: box, box.kill, **kw)
    try:
        took = _wait(box.killed.is_set)
    finally:
        nb.stop()
    return took, nb.why


def test_a_kernel_that_sleeps_through_a_cell_is_killed(sleeper, graces, monkeypatch):
    monkeypatch.setattr(watch, "WALL_FACTOR", 10_000)  # the clock's backstop out of reach
    took, why = _killed(sleeper, 100, cell_limit=1.0, cell=lambda: 3)
    assert took < 10.0, took  # idle 1 + 2 x 0.5 + 0.5 s in cell 3
    assert why == ("the kernel waited more than 2.5 s in cell 3 without using the CPU "
                      "(a cell's limit: 1 s of CPU)"), why


def test_a_notebook_that_sleeps_is_killed_past_its_limit(sleeper, graces, monkeypatch):
    monkeypatch.setattr(watch, "WALL_FACTOR", 10_000)
    took, why = _killed(sleeper, 1.0)
    assert took < 10.0
    assert why.startswith("the notebook waited more than 1.5 s without using the CPU"), why


def test_a_starved_notebook_is_killed_for_its_cpu_only(starved, graces, monkeypatch):
    monkeypatch.setattr(watch, "WALL_FACTOR", 10_000)
    _, why = _killed(starved, 1.0, cell_limit=1.0, cell=lambda: 0)
    assert why == "the notebook used more than 1 s of CPU", why


def test_the_idle_clock_waits_for_the_first_cell(sleeper, graces, monkeypatch):
    """A kernel's start (before its first cell) is the start-up timeout's: never idle."""
    monkeypatch.setattr(watch, "WALL_FACTOR", 10_000)
    box, index = _Box(sleeper), [-1]
    nb = watch.NotebookWatch(0.5, lambda: box, box.kill, cell_limit=0.5, cell=lambda: index[0])
    try:
        assert not box.killed.wait(2.5), nb.why
        index[0] = 0
        assert _wait(box.killed.is_set) < 10.0
    finally:
        nb.stop()


def test_without_run_delays_only_the_clocks_backstop_ends_a_sleeper(sleeper, graces, monkeypatch):
    monkeypatch.setattr(cpu, "SCHEDSTATS", False)  # a kernel built without schedstats
    _, why = _killed(sleeper, 0.4, cell_limit=0.1, cell=lambda: 0)
    assert why.startswith(f"the notebook ran longer than {0.4 * watch.WALL_FACTOR:g} s by the clock"), why


def _time_up(kernel_pid: int) -> tuple[float, str]:
    """Seconds until a judge's budget for a test of 1 s of CPU raised TimeUp (checked every 50 ms,
    as the judge does while it waits on the kernel), and its message."""
    judge = runner.Judge(out=None)
    judge.kernel_pid, judge.cpu_limit, judge.wall_limit = kernel_pid, 1.0, 1000.0
    check, started = judge._budget(), time.monotonic()
    while time.monotonic() - started < 30:
        try:
            check()
        except TimeUp as e:
            return time.monotonic() - started, str(e)
        time.sleep(0.05)
    raise AssertionError("the test never timed out")


def _in_a_judge(kernel_pid: int) -> tuple[float, str]:
    """_time_up in a process of its own, as a judge is: the kernel and the hogs (this process's
    children) are not below it, where the judge's own CPU and waits would count them."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(_time_up, (kernel_pid,))


def test_the_judge_ends_a_test_whose_kernel_sleeps(sleeper, graces):
    took, why = _in_a_judge(sleeper.pid)
    assert took < 10.0, took
    assert why == ("the test waited over 1.5 s for the notebook's kernel, which used no CPU meanwhile "
                   "(its limit: 1 s of CPU time)"), why


def test_the_judge_ends_a_test_whose_kernel_is_starved_for_its_cpu_only(starved, graces):
    took, why = _in_a_judge(starved.pid)
    assert why == "the test ran over its limit of 1 s of CPU time", why
    assert took >= 2.0, took
