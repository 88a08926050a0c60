"""A cell's and a notebook's limits (CpuWatch, NotebookWatch). A cell's CPU-time limit: interrupt the kernel when its sandbox used more than `limit` seconds of
CPU during the cell. CPU time, not the clock: a busy machine slows a cell down without making
it use more CPU, so load never turns a correct cell into a timeout. A cell that only waits (a
sleep, a read that never returns) uses no CPU: it is interrupted once it was idle (cpu.IdleClock:
neither on a CPU nor waiting for one) `limit` + IDLE_GRACE seconds."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from autograder.judge.cells import GRACE as END_GRACE
from autograder.judge.clocks import monotonic
from autograder.judge.cpu import IDLE_GRACE, IdleClock, Party, tree_cpu
from autograder.settings import WALL_FACTOR

POLL = 0.1  # seconds between looks at /proc
NOTEBOOK_POLL = 0.5  # seconds between looks at the sandbox's CPU time (a scan of /proc)


class CpuWatch:
    """While a cell runs: call `on_over()` once the process tree under `root` used `limit` s of
    CPU, or sat idle `limit` + IDLE_GRACE s (the grader's own waits for a CPU count as not idle:
    a kernel waits on it). `why` says which, once it fired."""

    def __init__(self, root: int | None, limit: float, on_over: Callable[[], Any]):
        self.root, self.limit, self.on_over = root, limit, on_over
        self.fired, self.why = False, ""
        self._stop = threading.Event()
        self._start = tree_cpu(root)
        if root and limit > 0:
            parties = [Party(root), Party(os.getpid(), whole=False)]
            idle = IdleClock(lambda: parties)
            threading.Thread(target=self._run, args=(idle,), daemon=True).start()

    def used(self) -> float:
        return tree_cpu(self.root) - self._start

    def _run(self, idle: IdleClock) -> None:
        while not self._stop.wait(POLL):
            if self.used() > self.limit:
                self.why = f"interrupted after {self.limit:g} s of CPU time"
            elif idle.seconds() > self.limit + IDLE_GRACE:
                self.why = (f"interrupted after {self.limit + IDLE_GRACE:g} s of waiting without "
                            f"using the CPU (its limit: {self.limit:g} s of CPU time)")
            else:
                continue
            self.fired = True
            self.on_over()
            return

    def stop(self) -> bool:
        """Stop watching; True if the limit was reached."""
        self._stop.set()
        return self.fired


class KernelIdle:
    """A notebook's idle seconds (cpu.IdleClock), counted from its first cell on: those of the
    sandbox's processes (`process()`, its first, or None), the judge's (`judge()`, its pid, or
    None: a kernel serving a test waits on it) and the grader's own waits for a CPU; in the
    notebook, and in the cell being run (`cell()`, its index: -1 before the first)."""

    def __init__(self, process: Callable[[], Any], cell: Callable[[], int],
                 judge: Callable[[], int | None]):
        self.process, self.cell_index, self.judge = process, cell, judge
        self.clock: IdleClock | None = None
        self.cell, self._cell_start = -1, 0.0  # the cell being run, the idle seconds when it began

    def _parties(self) -> list[Party]:
        process, judge = self.process(), self.judge()
        return ([Party(process.pid)] if process is not None else []) + (
            [Party(judge)] if judge else []) + [Party(os.getpid(), whole=False)]

    def seconds(self, process) -> tuple[float, float]:
        """(idle seconds in the notebook, in the cell being run); `process`: the sandbox's first."""
        index = self.cell_index()
        if self.clock is None:
            if process is None or index < 0:
                return 0.0, 0.0
            self.clock = IdleClock(self._parties)
        idle = self.clock.seconds()
        if index != self.cell:
            self.cell, self._cell_start = index, idle
        return idle, idle - self._cell_start


class NotebookWatch:
    """A notebook's time limit: `limit` s of CPU used by the sandbox's processes (the kernel and all
    it started), with the clock as a backstop WALL_FACTOR times longer. CPU, so a busy machine
    never turns a correct notebook into a timeout; the clock, so a kernel that floods its channels
    still ends. A kernel that only waits is ended by the idle clock (judge/cpu.py: seconds in which
    the kernel, the judge and the grader neither ran nor waited for a CPU, so load makes nothing
    idle), from the first cell on: idle `limit` + IDLE_GRACE s in the notebook, or `cell_limit` +
    2 x IDLE_GRACE + END_GRACE s in one cell (`cell()`, its index: an interrupt at `cell_limit` +
    IDLE_GRACE, or the judge's verdict and the interrupt END_GRACE s after it, had time to end
    it). Calls `kill()` every NOTEBOOK_POLL s once over, until it returns True."""

    def __init__(self, limit: float, process, kill, cell_limit: float = 0.0,
                 cell: Callable[[], int] = lambda: 0, judge: Callable[[], int | None] = lambda: None):
        self.limit, self.wall = float(limit), float(limit) * WALL_FACTOR
        self.process, self.kill = process, kill  # process(): the sandbox's first process, or None
        self.cell_limit = float(cell_limit)
        self.idle = KernelIdle(process, cell, judge)  # judge(): the judge's pid, or None
        self.why = ""
        self._stop = threading.Event()
        self._started = monotonic()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(NOTEBOOK_POLL):
            if not self.why:
                process = self.process()
                cpu = tree_cpu(process.pid) if process is not None else 0.0
                idle, in_cell = self.idle.seconds(process)
                cell_idle = self.cell_limit + 2 * IDLE_GRACE + END_GRACE
                if cpu > self.limit:
                    self.why = f"the notebook used more than {self.limit:g} s of CPU"
                elif monotonic() - self._started > self.wall:
                    self.why = (f"the notebook ran longer than {self.wall:g} s by the clock (its limit: "
                                f"{self.limit:g} s of CPU)")
                elif idle > self.limit + IDLE_GRACE:
                    self.why = (f"the notebook waited more than {self.limit + IDLE_GRACE:g} s without "
                                f"using the CPU (its limit: {self.limit:g} s of CPU)")
                elif self.cell_limit and in_cell > cell_idle:
                    self.why = (f"the kernel waited more than {cell_idle:g} s in cell {self.idle.cell} "
                                f"without using the CPU (a cell's limit: {self.cell_limit:g} s of CPU)")
            if self.why and self.kill():
                return

    def stop(self) -> None:
        self._stop.set()
