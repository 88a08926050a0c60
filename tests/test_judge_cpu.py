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
