"""Which processes a block of a test started, what they were, and which it left running, read
from /proc by a process outside the code that started them (chapter 25's executor).

    from workbook.notebook_side import watch_processes

    with watch_processes() as seen:
        r = run_code(code, scratch, limits)
    assert not seen.left                  # started in the block, still running after it
    program = seen.program(code)          # the one process that ran `python -I -c code`
    program.limits["cpu_seconds"]         # (soft, hard) as the kernel enforced them on it

Graded, the watch is the judge's: it reads the notebook kernel's processes from outside the
sandbox, so what it says is the operating system's, never what the notebook's code reports (a
`run_code` that rewrites its own result cannot change it). Every process the notebook starts stays
below the kernel's first process there: the sandbox's pid namespace adopts an orphan (a child's
child whose parent died), and the gates' fast runner makes the kernel a child subreaper
(PR_SET_CHILD_SUBREAPER) for the same effect. In a notebook (a learning run), and graded with
`--sandbox none`, the watch reads the notebook's own process: an orphan is adopted by the machine's
init and is not seen there, and where there is no /proc (macOS) it sees nothing (`blind`).

While the block runs a thread reads the new processes every POLL seconds: a program seen at least
once after it started its own Python is described (`Seen`); one that ends sooner may not be.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

POLL = 0.05  # seconds between reads of /proc while the block runs
LINGER = 0.5  # seconds a process may take to end after its SIGKILL was sent (a dying one is not left)
MAX_SEEN = 32  # processes described at most per block
MAX_TEXT = 65536  # bytes read of a process's argv or environment
SIGKILL_BIT = 1 << 8  # SIGKILL (9) in the pending-signal masks of /proc/PID/status
PF_EXITING = 0x4  # a process that has begun to exit (the flags of /proc/PID/stat)
PR_SET_CHILD_SUBREAPER = 36  # prctl(2)
LIMITS = {"Max cpu time": "cpu_seconds", "Max address space": "memory_bytes", "Max processes": "processes",
          "Max file size": "output_bytes"}  # /proc/PID/limits -> chapter 25's names of the rlimits


@dataclass(frozen=True)
class Seen:
    """A process started in the block, as the operating system showed it the last time it was read:
    its argv, the names in its environment (None: unreadable), its rlimits as (soft, hard) with None
    for unlimited, keyed by chapter 25's names, and its working folder (None: unreadable)."""

    pid: int
    argv: tuple[str, ...]
    env: tuple[str, ...] | None
    limits: dict[str, tuple[int | None, int | None]]
    cwd: str | None


def adopt_orphans() -> None:
    """Make this process a child subreaper (Linux): a process below it whose parent ends is adopted
    by it, not by the machine's init, and so stays below it, where a watch of it looks. The gates'
    fast runner calls it in the notebook's process, as the sandbox's pid namespace does the same
    for a graded kernel. A fork does not inherit it."""
    if sys.platform == "linux" and ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _read(path: str, limit: int = MAX_TEXT) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def _fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command's name (state is [0]), or None if it is gone."""
    data = _read(f"/proc/{pid}/stat", 4096)
    return None if not data else data[data.rfind(b")") + 2:].split()


def _scan_below(root: int) -> list[int]:
    """Every process below `root`, from every process's parent (a notebook's own watch)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        fields = _fields(int(name)) if name.isdigit() else None
        if fields is not None and len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(int(name))
    out: list[int] = []
    todo = list(children.get(root, []))
    while todo and len(out) < 4096:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _dying(pid: int, fields: list[bytes]) -> bool:
    """Ended, or ending: a zombie, a process already exiting, or one with a SIGKILL pending."""
    if fields[0] in (b"Z", b"X", b"x"):
        return True
    try:
        if int(fields[6]) & PF_EXITING:
            return True
    except (IndexError, ValueError):
        pass
    status = _read(f"/proc/{pid}/status", 8192) or b""
    for line in status.splitlines():
        if line.startswith((b"SigPnd:", b"ShdPnd:")):
            try:
                if int(line.split()[1], 16) & SIGKILL_BIT:
                    return True
            except (IndexError, ValueError):
                continue
    return False


def _limits(pid: int) -> dict[str, tuple[int | None, int | None]]:
    found: dict[str, tuple[int | None, int | None]] = {}
    for line in (_read(f"/proc/{pid}/limits", 8192) or b"").decode("ascii", "replace").splitlines():
        for label, name in LIMITS.items():
            if line.startswith(label):
                soft, hard = (None if v == "unlimited" else int(v) for v in line[len(label):].split()[:2])
                found[name] = (soft, hard)
    return found


def _describe(key: tuple[int, bytes]) -> Seen | None:
    """The process `key` (pid, start time) as /proc shows it now, or None unless it was there and
    not ending both before and after every read (one read while it ends would give half of it)."""
    pid = key[0]
    argv = _read(f"/proc/{pid}/cmdline")
    env = _read(f"/proc/{pid}/environ")
    try:
        cwd: str | None = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = None
    limits = _limits(pid)
    fields = _fields(pid)
    if not argv or not limits or fields is None or len(fields) < 20 or fields[19] != key[1] or _dying(pid, fields):
        return None
    names = None if env is None else tuple(sorted({v.split(b"=", 1)[0].decode("utf-8", "replace")
                                                   for v in env.split(b"\0") if v}))
    parts = argv[:-1] if argv.endswith(b"\0") else argv  # each argument ends in NUL: an empty last one too
    return Seen(pid, tuple(a.decode("utf-8", "replace") for a in parts.split(b"\0")), names, limits, cwd)


def _shown(seen: Seen | None) -> str:
    """A process in a few words: `python -I -c 'import time\\ntime.sleep(5)'`."""
    if seen is None:
        return "(gone before it could be read)"
    *start, last = seen.argv
    words = [os.path.basename(start[0]), *start[1:], repr(last[:60])] if start else [repr(last[:60])]
    return " ".join(words)[:120]


class ProcessWatch:
    """A `with` block's view of the processes below `root` (a pid) that it started: `left` (after
    the block: descriptions of those still running), `started` (what each looked like: `Seen`),
    `program(code)`. `below(root)` lists the processes below root (the judge passes its own)."""

    def __init__(self, root: int | None, below: Callable[[int], list[int]] | None = None, every: float = POLL):
        if type(root) is not int or root <= 0:
            raise RuntimeError(f"no process to watch: the grader does not know the notebook's process ({root!r})")
        self.root, self._below, self.every = root, below or _scan_below, every
        self.blind = not os.path.exists("/proc/self/stat")  # no /proc here (macOS): nothing is seen
        self.left: list[str] = []
        self._before: set[tuple[int, bytes]] = set()
        self._seen: dict[tuple[int, bytes], Seen] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> list[Seen]:
        return list(self._seen.values())

    def program(self, code: str) -> Seen | None:
        """The process that ran `code` as `python -I -c code` (chapter 25's argv), when it is the only
        process seen whose arguments hold `code`; else None. A second process that carries the
        program (a decoy with the right limits beside the real run, red team 14) leaves which one
        ran it unsaid, and the test then finds no program of its own."""
        carried = [s for s in self.started if any(code in arg for arg in s.argv)]
        if len(carried) != 1 or carried[0].argv[1:] != ("-I", "-c", code):
            return None
        return carried[0]

    def _new(self) -> list[tuple[tuple[int, bytes], list[bytes]]]:
        """(pid, start time) and stat fields of each process below root not there when the block began."""
        out = []
        for pid in self._below(self.root) if not self.blind else []:
            fields = _fields(pid)
            if fields is not None and len(fields) > 19 and (key := (pid, fields[19])) not in self._before:
                out.append((key, fields))
        return out

    def _look(self) -> None:
        for key, _fields in self._new():
            if key in self._seen or len(self._seen) < MAX_SEEN:
                seen = _describe(key)
                if seen is not None:
                    self._seen[key] = seen

    def _poll(self) -> None:
        while not self._stop.wait(self.every):
            self._look()

    def __enter__(self) -> ProcessWatch:
        self._before = {key for key, _fields in self._new()}
        self._thread = threading.Thread(target=self._poll, name="process-watch", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._look()
        running: list[tuple[tuple[int, bytes], list[bytes]]] = []
        pause = threading.Event()  # never set: a wait that no patched time.sleep can shorten
        for _ in range(int(LINGER / 0.01)):  # only a process that is not ending costs this wait
            running = [(key, f) for key, f in self._new() if not _dying(key[0], f)]
            if not running:
                break
            pause.wait(0.01)
        described = {key: self._seen.get(key) or _describe(key) for key, _f in running}
        self.left = [f"pid {key[0]}: {_shown(s)}" for key, s in described.items()]
