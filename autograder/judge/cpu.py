"""CPU time of a process tree, read from /proc: what a test's time limit counts.

A limit in CPU seconds does not move with the machine's load: a correct notebook that needs
3 s of CPU needs 3 s whether the machine is idle or busy. The wall clock is only a backstop, and
the idle clock (IdleClock, below) ends what only waits.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from autograder.judge.clocks import monotonic

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


# The idle clock: a limit in CPU seconds never ends a process that only waits (a sleep, a read
# that never returns), so the clock's backstop held such a kernel WALL_FACTOR times its limit,
# and a cohort of them held every worker that long. Idle time is the clock's seconds in which the
# processes a cell waits on neither ran on a CPU nor waited for one: a kernel starved by a busy
# machine waits for a CPU (its run delay, field 2 of /proc/TID/schedstat), so load never makes
# it idle; one that sleeps is idle at the clock's speed and is ended soon after its CPU limit.
IDLE_GRACE = 5.0  # idle seconds past a CPU limit before the waiting is ended
IDLE_POLL = 0.25  # seconds between reads of /proc (each a walk of the trees and their threads)
MAX_STEP = 2.0  # idle seconds one read counts at most: a clock that jumped (a paused VM) ends nothing
MAX_WAITERS = 1024  # threads read at most: past them the waits are unknown and count as none idle


@dataclass(frozen=True)
class Party:
    """A process a cell waits on: `whole`, it and everything below it, its CPU time and its waits
    for a CPU; else only its own threads' waits (the grader: the CPU it spends on what a kernel
    sends it is no work of the kernel's, and a flood of messages must not count as work)."""

    pid: int
    whole: bool = True


def _delays(pid: int, into: dict[int, int]) -> bool:
    """Add each live thread of `pid` -> its run delay (ns) to `into`; False if this kernel keeps
    no schedstats, or past MAX_WAITERS threads."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True  # gone: it waits for nothing
    if len(into) + len(tasks) > MAX_WAITERS:
        return False
    for tid in tasks:
        try:
            fd = os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY)
        except FileNotFoundError:
            if os.path.exists(f"/proc/{pid}/task/{tid}"):
                return False  # a kernel built without schedstats
            continue
        except OSError:
            continue
        try:
            into[int(tid)] = int(os.read(fd, 128).split()[1])
        except (OSError, ValueError, IndexError):
            continue
        finally:
            os.close(fd)
    return True


def _steal() -> float:
    """Seconds the hypervisor took from this machine's CPUs (all of them), from /proc/stat."""
    try:
        with open("/proc/stat", "rb") as f:
            return int(f.readline().split()[8]) / TICK
    except (OSError, ValueError, IndexError):
        return 0.0


def _schedstats() -> bool:
    """Whether this kernel counts run delays: this process has run, so its schedstat says so (a
    kernel that keeps none has no such file, or writes "0 0 0" in it)."""
    try:
        with open("/proc/self/schedstat", "rb") as f:
            return any(int(x) > 0 for x in f.read().split()[:3])
    except (OSError, ValueError):
        return False


SCHEDSTATS = _schedstats()


class IdleClock:
    """Idle seconds of `parties()` since the clock was made: the clock's time less their CPU time,
    their threads' waits for a CPU and the hypervisor's steal, counted between reads and never
    below 0 in one. Where run delays cannot be read, nothing is idle (the clock's backstop
    stays). Threads that come and go are counted while they live (each thread's delay is counted
    as it grows, read to read, so an ended one keeps what was read of it)."""

    def __init__(self, parties: Callable[[], list[Party]], every: float = IDLE_POLL):
        self.parties, self.every, self.idle = parties, every, 0.0
        self._lock = threading.Lock()
        self._cpu: dict[int, float] = {}  # party pid -> CPU seconds at the last read
        self._delay: dict[int, int] = {}  # thread id -> run delay (ns) at the last read
        self._at, self._steal = monotonic(), _steal()
        self._read(self._at)

    def seconds(self) -> float:
        """Idle seconds so far, read afresh if `every` s have passed since the last read."""
        now = monotonic()
        if now - self._at >= self.every and self._lock.acquire(blocking=False):
            try:
                self._read(now)
            finally:
                self._lock.release()
        return self.idle

    def _read(self, now: float) -> None:
        busy, known = 0.0, SCHEDSTATS
        delays: dict[int, int] = {}  # thread id -> run delay (ns), this read
        for party in self.parties():
            first = party.pid not in self._cpu
            mine: dict[int, int] = {}
            if party.whole:
                cpu = 0.0
                for pid, seconds in _tree(party.pid):
                    cpu += seconds
                    known = known and _delays(pid, mine)
                busy += 0.0 if first else max(0.0, cpu - self._cpu[party.pid])
            else:
                cpu = 0.0
                known = known and _delays(party.pid, mine)
            self._cpu[party.pid] = cpu
            for tid, ns in mine.items():  # a thread new (or its id reused) waited since it began
                seen = self._delay.get(tid, ns if first else 0)
                busy += (ns - seen if ns >= seen else ns) / 1e9
            delays.update(mine)
        steal = _steal()
        step = now - self._at - busy - max(0.0, steal - self._steal)
        if known and step > 0:
            self.idle += min(step, MAX_STEP)
        self._at, self._steal, self._delay = now, steal, delays
