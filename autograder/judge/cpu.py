"""CPU time of a process tree, read from /proc: what a test's time limit counts.

A limit in CPU seconds does not move with the machine's load: a correct notebook that needs
3 s of CPU needs 3 s whether the machine is idle or busy. The wall clock is only a backstop.
"""

from __future__ import annotations

import os

TICK = os.sysconf("SC_CLK_TCK")
MAX_THREADS = 64  # past this, a process's children are found by a scan, so a kernel's threads never cost more


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    try:  # after the name: state ppid ... utime(12) stime(13) cutime(14) cstime(15), from 0
        return int(fields[1]), sum(int(x) for x in fields[11:15]) / TICK
    except (IndexError, ValueError):
        return None


def started(pid: int) -> int | None:
    """When the process `pid` started (clock ticks since boot; field 22 of its stat), or None if
    there is none: with the pid, it names one process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rpartition(b")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _children(pid: int) -> list[int] | None:
    """Children of `pid` from /proc/PID/task/*/children (each thread's), or None where the kernel
    has no such file (built without CONFIG_PROC_CHILDREN)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []  # gone
    if len(tasks) > MAX_THREADS:
        return None  # a process of many threads: one scan costs less than a read for each
    out = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(x) for x in f.read().split()]
        except FileNotFoundError:
            if os.path.exists(f"/proc/{pid}/task/{tid}"):
                return None
        except (OSError, ValueError):
            continue  # a thread that ended meanwhile
    return out


def _scan() -> dict[int, list[int]]:
    """Parent pid -> child pids, from every process's stat (the slow way: ~100 reads)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _stat(name)
            if found is not None:
                children.setdefault(found[0], []).append(int(name))
    return children


def _tree(root: int):
    """(pid, CPU seconds) of `root` and of every process below it: walked down through each
    process's children files (a few reads, where a scan of every process on the machine took
    ~1.5 ms a call: the judge and the watches call it several times a second), or by a scan where
    this kernel lists no children."""
    scanned: dict[int, list[int]] | None = None
    todo, seen = [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        found = _stat(str(pid))
        if found is None:
            continue
        yield pid, found[1]
        below = _children(pid) if scanned is None else None
        if below is None:
            scanned = scanned if scanned is not None else _scan()
            below = scanned.get(pid, [])
        todo += below


def tree_cpu(root: int | None) -> float:
    """CPU seconds used by `root` and every process below it (0 if there is none)."""
    return sum(cpu for _pid, cpu in _tree(root)) if root else 0.0


def descendants(root: int) -> list[int]:
    """Every live process below `root` (the tests' Jupyter servers: kernels they leave behind)."""
    return [pid for pid, _cpu in _tree(root) if pid != root]
