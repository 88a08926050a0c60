"""A cell's CPU-time limit: interrupt the kernel when its sandbox used more than `limit` seconds of
CPU during the cell. CPU time, not the clock: a busy machine slows a cell down without making
it use more CPU, so load never turns a correct cell into a timeout."""

from __future__ import annotations

import threading

from autograder.judge.cpu import tree_cpu

POLL = 0.1  # seconds between looks at /proc


class CpuWatch:
    """While a cell runs: call `on_over()` once the process tree under `root` used `limit` s."""

    def __init__(self, root: int | None, limit: float, on_over):
        self.root, self.limit, self.on_over = root, limit, on_over
        self.fired = False
        self._stop = threading.Event()
        self._start = tree_cpu(root)
        self._thread = threading.Thread(target=self._run, daemon=True)
        if root and limit > 0:
            self._thread.start()

    def used(self) -> float:
        return tree_cpu(self.root) - self._start

    def _run(self) -> None:
        while not self._stop.wait(POLL):
            if self.used() > self.limit:
                self.fired = True
                self.on_over()
                return

    def stop(self) -> bool:
        """Stop watching; True if the limit was reached."""
        self._stop.set()
        return self.fired
