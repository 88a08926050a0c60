"""CPU time of a process tree, read from /proc: what a test's time limit counts.

A limit in CPU seconds does not move with the machine's load: a correct notebook that needs
3 s of CPU needs 3 s whether the machine is idle or busy. The wall clock is only a backstop.
"""

from __future__ import annotations

import os

TICK = os.sysconf("SC_CLK_TCK")


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


def tree_cpu(root: int | None) -> float:
    """CPU seconds used by `root` and every process below it (0 if there is none)."""
    if not root:
        return 0.0
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _stat(name)
            if found is not None:
                stats[int(name)] = found
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo, seen = 0.0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        total += stats[pid][1]
        todo += children.get(pid, [])
    return total
