"""The grader's handle on one judge process: start it, give it a test cell, read its verdict."""

from __future__ import annotations

import json
import os
import queue
import select
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any, TextIO

from autograder.course import REPO
from autograder.judge.clocks import monotonic

PID = struct.Struct("!q")  # the zygote's reply to a fork request: the new judge's pid (-1: none)

DIED = ("the judge process ended before its verdict: it is ended when the test makes it pass its own "
        "bounds (its memory, or the test's CPU time in the judge; autograder/judge/limits.py)")
ENV = {"PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}


def _python(module: str, **kw: Any) -> subprocess.Popen[Any]:
    # -P: the working folder is not on sys.path (a module a kernel wrote there is never imported)
    return subprocess.Popen([sys.executable, "-P", "-m", module, *kw.pop("args", ())], env={**os.environ, **ENV},
                            cwd=str(REPO), stderr=subprocess.DEVNULL, **kw)


def spawn_plain() -> subprocess.Popen[str]:
    """A judge in a new interpreter (when no zygote can fork one)."""
    return _python("autograder.judge", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


class Forked:
    """A judge forked by the zygote: the parts of Popen that JudgeProcess uses."""

    def __init__(self, pid: int, stdin: TextIO, stdout: TextIO) -> None:
        self.pid, self.stdin, self.stdout = pid, stdin, stdout

    def wait(self, timeout: float | None = None) -> None:
        try:
            fd = os.pidfd_open(self.pid)
        except OSError:  # gone already (the zygote's children are reaped as they end)
            return
        try:
            if not select.select([fd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"judge {self.pid}", timeout or 0)
        finally:
            os.close(fd)

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass


class Zygote:
    """This worker's zygote (autograder/judge/zygote.py), started on first use."""

    _lock = threading.Lock()
    _current: Zygote | None = None

    def __init__(self) -> None:
        self.control, theirs = socket.socketpair()
        self.owner = os.getpid()
        self.proc = _python("autograder.judge.zygote", args=[str(theirs.fileno())], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, pass_fds=[theirs.fileno()])
        theirs.close()

    @classmethod
    def _get(cls) -> Zygote:
        zygote = cls._current
        if zygote is None or zygote.owner != os.getpid() or zygote.proc.poll() is not None:
            zygote = cls._current = cls()
        return zygote

    @classmethod
    def start(cls) -> None:
        """Start this worker's zygote now, not on a judge's first use."""
        with cls._lock:
            cls._get()

    @classmethod
    def fork(cls) -> Forked | None:
        """A new judge, or None if no zygote can make one (then spawn it plainly)."""
        sys.audit("agentloop.judge.fork")  # a process, started for this caller by the zygote
        with cls._lock:
            zygote = cls._get()
            forked = request_judge(zygote.control)
            if forked is None:
                cls._current = None
            return forked

    @classmethod
    def branch(cls) -> socket.socket | None:
        """The control socket of a new zygote forked from this worker's (zygote.py's `b`), for a
        process that forks its judges itself (`request_judge`); None if none could be made."""
        sys.audit("agentloop.judge.branch")  # a process (a zygote), started for this caller
        with cls._lock:
            ours, theirs = socket.socketpair()
            try:
                socket.send_fds(cls._get().control, [b"b"], [theirs.fileno()])
                reply = cls._get().control.recv(PID.size, socket.MSG_WAITALL)
            except OSError:
                reply = b""
            finally:
                theirs.close()
            if len(reply) != PID.size or PID.unpack(reply)[0] <= 0:
                ours.close()
                return None
            return ours


def request_judge(control: socket.socket) -> Forked | None:
    """Ask the zygote at the other end of `control` for a new judge; None if it made none."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        socket.send_fds(control, [b"f"], [stdin_r, stdout_w])
        reply = control.recv(PID.size, socket.MSG_WAITALL)
        pid = PID.unpack(reply)[0] if len(reply) == PID.size else -1  # short: it hung up
    except OSError:
        pid = -1
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
    if pid <= 0:
        os.close(stdin_w)
        os.close(stdout_r)
        return None
    return Forked(pid, open(stdin_w, "w", buffering=1, encoding="utf-8"), open(stdout_r, encoding="utf-8"))


def command(proc: Forked | subprocess.Popen[str], msg: dict[str, Any]) -> None:
    """One command line to a judge (a judge that is gone answers nothing: its reader says so)."""
    assert proc.stdin is not None  # a pipe, always (spawn_plain, request_judge)
    try:
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass


class JudgeProcess:
    """One judge for one notebook, forked by the worker's zygote (or `python -m autograder.judge`),
    fed over its stdin."""

    def __init__(self, proc: Forked | None = None) -> None:
        """Make the judge now (a fresh interpreter's imports overlap the kernel's start), or take
        one a zygote forked (`request_judge`); `start()` it later."""
        self.proc = proc or Zygote.fork() or spawn_plain()
        self.results: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.dead = False
        self.pending: str | None = None  # the grade_id of the test whose verdict is awaited
        threading.Thread(target=self._read, daemon=True).start()
        self.wall = 0.0

    def start(self, socket_path: str, kernel_pid: int | None, scratch: str | None,
              cpu: float, wall: float, kernel_root: str | None = None, exercises: Sequence[str] = (),
              replay: Sequence[str] = ()) -> None:
        """Where the kernel is, the limits of each test, the chapter's exercise names, and how to
        run the notebook again in another process (`replay`, judge/another.py)."""
        self.wall = wall
        self._send({"op": "start", "socket": socket_path, "kernel_pid": kernel_pid, "scratch": scratch,
                    "cpu": cpu, "wall": wall, "kernel_root": kernel_root, "exercises": list(exercises),
                    "replay": list(replay)})
        self._expect("started", 120)

    def _read(self) -> None:
        assert self.proc.stdout is not None  # a pipe, always (spawn_plain, request_judge)
        for line in self.proc.stdout:
            try:
                self.results.put(json.loads(line))
            except ValueError:
                continue
        self.results.put(None)

    def _send(self, msg: dict[str, Any]) -> None:
        command(self.proc, msg)

    def _expect(self, op: str, timeout: float, grade_id: str | None = None) -> dict[str, Any]:
        if self.dead:
            raise RuntimeError("the judge stopped earlier in this notebook")
        deadline = monotonic() + timeout
        while True:
            try:
                msg = self.results.get(timeout=max(0.0, deadline - monotonic()))
            except queue.Empty:
                self.dead = True  # a judge past every deadline is ended: no late verdict can land
                self.proc.kill()
                raise RuntimeError(f"the judge did not answer in {timeout:g} s (it was stopped)") from None
            if msg is None or msg.get("op") != op:
                self.dead = True
                raise RuntimeError(DIED)
            if grade_id is None or msg.get("grade_id") == grade_id:
                return msg
            # a verdict on another test (one given up on earlier): never this test's

    def test(self, grade_id: str, source: str, hidden: bool, token: str, cells: Sequence[str] | None = None) -> None:
        """Run a test; `cells`, the notebook's code cells before it, when it runs them again."""
        self.pending = str(grade_id)
        msg: dict[str, Any] = {"op": "test", "grade_id": grade_id, "source": source, "hidden": hidden, "token": token}
        if cells is not None:
            msg["cells"] = list(cells)
        self._send(msg)

    def cell_done(self) -> None:
        self._send({"op": "cell_done"})

    def result(self, timeout: float) -> dict[str, Any]:
        """The verdict on the last test (after the kernel's cell ended)."""
        return self._expect("result", timeout, self.pending)

    def close(self) -> None:
        self._send({"op": "quit"})
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
