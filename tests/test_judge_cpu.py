"""The CPU time of a process tree (autograder/judge/cpu.py): what every CPU limit counts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.judge import cpu

# A parent that forks a child; each burns CPU and then sleeps, so their times stand still.
TREE = """
import os, sys, time
def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
if os.fork() == 0:
    if os.fork() == 0:
        burn(0.3)
    else:
        burn(0.2)
else:
    burn(0.1)
print("ready", flush=True)
time.sleep(60)
"""


@pytest.fixture
def tree():
    """The running tree above; every process of it is killed afterwards."""
    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(3):  # the three processes each say so once they have burned their share
            assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.1)
        yield proc
    finally:
        for pid in cpu.descendants(proc.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()


def test_the_walk_down_the_tree_counts_every_descendant_as_a_scan_does(tree, monkeypatch):
    walked = cpu.tree_cpu(tree.pid)
    monkeypatch.setattr(cpu, "_children", lambda pid: None)  # a kernel with no children files
    scanned = cpu.tree_cpu(tree.pid)
    assert walked >= 0.55, walked  # 0.1 + 0.2 + 0.3 s, in clock ticks
    assert abs(walked - scanned) <= 0.03, (walked, scanned)


def test_a_process_of_many_threads_is_walked_by_a_scan(tree, monkeypatch):
    walked = cpu.tree_cpu(tree.pid)
    monkeypatch.setattr(cpu, "MAX_THREADS", 0)  # every process here has more threads than that
    monkeypatch.setattr(cpu, "_scan", counted := _Counted(cpu._scan))
    assert abs(cpu.tree_cpu(tree.pid) - walked) <= 0.03
    assert counted.calls == 1  # one scan for the whole tree


class _Counted:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


def test_descendants_are_every_process_below_the_root_and_not_the_root(tree):
    below = cpu.descendants(tree.pid)
    assert len(below) == 2 and tree.pid not in below, below


def test_a_process_that_is_gone_or_none_has_used_nothing():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert cpu.tree_cpu(proc.pid) == 0.0
    assert cpu.tree_cpu(None) == 0.0


class _Machine:
    """What IdleClock reads, made up: the clock, each process's CPU, each thread's run delay."""

    def __init__(self, monkeypatch):
        self.now, self.steal = 0.0, 0.0
        self.cpu: dict[int, float] = {}
        self.threads: dict[int, dict[int, float]] = {}  # pid -> thread id -> run delay (s)
        self.known = True  # run delays can be read
        monkeypatch.setattr(cpu, "SCHEDSTATS", True)
        monkeypatch.setattr(cpu, "monotonic", lambda: self.now)
        monkeypatch.setattr(cpu, "_tree", lambda root: iter([(root, self.cpu.get(root, 0.0))]))
        monkeypatch.setattr(cpu, "_steal", lambda: self.steal)
        monkeypatch.setattr(cpu, "_delays", self._delays)

    def _delays(self, pid: int, into: dict[int, int]) -> bool:
        into.update({tid: round(s * 1e9) for tid, s in self.threads.get(pid, {}).items()})
        return self.known

    def step(self, clock: cpu.IdleClock, seconds: float = 1.0) -> float:
        """Idle seconds the clock counts for the next `seconds`."""
        before = clock.seconds()
        self.now += seconds
        return round(clock.seconds() - before, 6)


def test_idle_is_the_clock_less_cpu_and_waits_for_a_cpu_never_below_0_in_a_read(monkeypatch):
    m = _Machine(monkeypatch)
    m.threads[10] = {10: 0.0}
    clock = cpu.IdleClock(lambda: [cpu.Party(10)])
    assert m.step(clock) == 1.0  # asleep
    m.cpu[10], m.threads[10] = 0.3, {10: 0.5}
    assert m.step(clock) == 0.2  # ran 0.3 s, waited 0.5 s for a CPU
    m.cpu[10] = 2.3
    assert m.step(clock) == 0.0  # two CPUs' worth: nothing idle, and no credit for later
    assert m.step(clock) == 1.0
    m.steal = 0.6
    assert m.step(clock) == 0.4  # what the hypervisor took is no idle time
    assert m.step(clock, 10.0) == cpu.MAX_STEP  # a clock that jumped


def test_threads_that_come_and_go_keep_their_waits(monkeypatch):
    m = _Machine(monkeypatch)
    m.threads[10] = {10: 0.0, 11: 0.0}
    clock = cpu.IdleClock(lambda: [cpu.Party(10)])
    m.threads[10] = {10: 0.0, 11: 0.5}
    assert m.step(clock) == 0.5
    m.threads[10] = {10: 0.0, 12: 0.7}  # 11 ended (its 0.5 s stay counted), 12 began since
    assert m.step(clock) == 0.3
    m.threads[10] = {10: 0.0, 12: 0.2}  # 12's id reused by a new thread
    assert m.step(clock) == 0.8


def test_a_party_counts_from_when_it_is_first_seen(monkeypatch):
    m = _Machine(monkeypatch)
    parties = [cpu.Party(10)]
    clock = cpu.IdleClock(lambda: parties)
    parties.append(cpu.Party(20))
    m.cpu[20], m.threads[20] = 50.0, {20: 40.0}  # a judge's past, before this clock
    assert m.step(clock) == 1.0
    m.cpu[20], m.threads[20] = 50.4, {20: 40.0}
    assert m.step(clock) == 0.6


def test_a_party_whose_cpu_is_no_work_counts_only_its_waits(monkeypatch):
    m = _Machine(monkeypatch)
    m.threads[30] = {30: 0.0}
    clock = cpu.IdleClock(lambda: [cpu.Party(30, whole=False)])
    m.cpu[30], m.threads[30] = 0.9, {30: 0.25}  # the grader, busy with a flood of messages
    assert m.step(clock) == 0.75


def test_unknown_waits_are_never_idle(monkeypatch):
    m = _Machine(monkeypatch)
    clock = cpu.IdleClock(lambda: [cpu.Party(10)])
    m.known = False  # more threads than MAX_WAITERS
    assert m.step(clock) == 0.0
    m.known = True
    monkeypatch.setattr(cpu, "SCHEDSTATS", False)  # a kernel without schedstats
    assert m.step(clock) == 0.0


def test_the_clock_reads_proc_at_most_every_poll(monkeypatch):
    m = _Machine(monkeypatch)
    reads = _Counted(cpu._delays)
    monkeypatch.setattr(cpu, "_delays", reads)
    clock = cpu.IdleClock(lambda: [cpu.Party(10)], every=0.25)
    assert reads.calls == 1
    assert m.step(clock, 0.1) == 0.0 and reads.calls == 1
    assert m.step(clock, 0.2) == 0.3 and reads.calls == 2


@pytest.mark.skipif(not cpu.SCHEDSTATS, reason="this kernel counts no run delays")
def test_run_delays_of_a_real_tree_are_read(tree):
    delays: dict[int, int] = {}
    for pid in [tree.pid, *cpu.descendants(tree.pid)]:
        assert cpu._delays(pid, delays)
    assert len(delays) >= 3 and all(ns >= 0 for ns in delays.values()), delays
