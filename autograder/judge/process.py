"""The grader's handle on one judge process: start it, give it a test cell, read its verdict."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

from autograder.course import REPO


class JudgeProcess:
    """One judge for one notebook (`python -m autograder.judge`), fed over its stdin."""

    def __init__(self):
        """Start the process now (its imports overlap the kernel's start); `start()` it later."""
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
        # -P: the working folder is not on sys.path (a module a kernel wrote there is never imported)
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "autograder.judge"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                     cwd=str(REPO), text=True, bufsize=1)
        self.results: queue.Queue = queue.Queue()
        self.dead = False
        threading.Thread(target=self._read, daemon=True).start()
        self.wall = 0.0

    def start(self, socket_path: str, kernel_pid: int | None, scratch: str | None,
              cpu: float, wall: float, kernel_root: str | None = None) -> None:
        """Where the kernel is, and the limits of each test."""
        self.wall = wall
        self._send({"op": "start", "socket": socket_path, "kernel_pid": kernel_pid, "scratch": scratch,
                    "cpu": cpu, "wall": wall, "kernel_root": kernel_root})
        self._expect("started", 120)

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                self.results.put(json.loads(line))
            except ValueError:
                continue
        self.results.put(None)

    def _send(self, msg: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    def _expect(self, op: str, timeout: float) -> dict:
        if self.dead:
            raise RuntimeError("the judge stopped earlier in this notebook")
        try:
            msg = self.results.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"the judge did not answer in {timeout:g} s") from None
        if msg is None or msg.get("op") != op:
            self.dead = True
            raise RuntimeError("the judge stopped")
        return msg

    def test(self, grade_id: str, source: str, hidden: bool, token: str) -> None:
        self._send({"op": "test", "grade_id": grade_id, "source": source, "hidden": hidden, "token": token})

    def cell_done(self) -> None:
        self._send({"op": "cell_done"})

    def result(self, timeout: float) -> dict:
        """The verdict on the last test (after the kernel's cell ended)."""
        return self._expect("result", timeout)

    def close(self) -> None:
        self._send({"op": "quit"})
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
