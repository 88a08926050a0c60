"""The fast runner's chapter processes, forked from one template instead of started afresh.

A new interpreter that imports tests/fast_runner.py (IPython, nbformat, the judge's runner, openai
and anthropic) spends ~2.3 s of CPU before its chapter's first cell: ~60 s over every chapter of a
run. `python -m tests.fast_template SOCKET` imports that module (and `SHARED`) once, and does nothing else, then
forks one chapter process per request. Each child starts from the state a new interpreter has after
the same imports (no cell has run in the template, nothing is set up, no thread runs there), in a
session of its own, and does what `python -m tests.fast_runner JOB OUT ZYGOTE` does.

Protocol: the test process sends one JSON line ({"job": path, "out": path}) with two file
descriptors (the chapter's zygote, its log); the template answers the child's pid as 8 bytes,
with a pidfd for it. End of file ends the template; the chapters it forked live on.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import select
import socket
import struct
import subprocess
import sys
import traceback
from pathlib import Path

from autograder.course import REPO
from tests import fast_runner

PID = struct.Struct("!q")
# Libraries a chapter process would otherwise import itself, each time: the frameworks (chapters
# 11 and 24), the MCP SDK (chapter 18), and all three in every chapter's cheats_everywhere, whose
# cell imports every workbook module (~1.7 s of CPU a chapter, ~45 s a run). They read nothing of
# the chapter's environment when imported and start no thread (a fork copies only one).
SHARED = ("agents", "pydantic_ai", "mcp", "ipywidgets")


def _child(request: dict, control: int, log: int) -> None:
    os.setsid()  # as start_new_session: fast_results ends the chapter's process group
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    fast_runner.CONTROL = socket.socket(fileno=control)
    fast_runner.run_job(json.loads(Path(request["job"]).read_text(encoding="utf-8")), Path(request["out"]))


def serve(sock: socket.socket) -> None:
    """Fork a chapter process for every request until the test process hangs up."""
    for module in SHARED:
        importlib.import_module(module)
    gc.freeze()  # the imported modules are never walked (nor copied) by a chapter's collections
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, 65536, 2)
        except OSError:
            return
        if not data or len(fds) != 2:
            return
        pid = os.fork()
        if pid == 0:
            sock.close()
            code = 0
            try:
                _child(json.loads(data), *fds)
            except BaseException:  # noqa: BLE001 - said in the chapter's log (its stderr is a buffer by now)
                traceback.print_exc(file=sys.__stderr__)
                code = 1
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)  # before it can be reaped: it stays a zombie until waitpid below
        socket.send_fds(sock, [PID.pack(pid)], [pidfd])
        os.close(pidfd)
        try:  # reap the chapters that ended (the test process holds a pidfd on each)
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


class Chapter:
    """A chapter process the template forked (its pid and a pidfd that is readable once it ended)."""

    def __init__(self, pid: int, pidfd: int):
        self.pid, self.pidfd, self.ended = pid, pidfd, False

    def running(self, timeout: float | None = 0) -> bool:
        if not self.ended and select.select([self.pidfd], [], [], timeout)[0]:
            self.ended = True
            os.close(self.pidfd)
        return not self.ended


class Template:
    """The template process, started in `env` with REPO as its folder; `fork` asks it for a chapter."""

    def __init__(self, env: dict[str, str], log: Path):
        self.sock, theirs = socket.socketpair()
        self.log = log
        with open(log, "wb") as f:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.fast_template", str(theirs.fileno())],
                                         cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                         pass_fds=[theirs.fileno()])
        theirs.close()

    def fork(self, job: Path, out: Path, control: socket.socket, log: Path) -> Chapter:
        with open(log, "wb") as f:
            socket.send_fds(self.sock, [json.dumps({"job": str(job), "out": str(out)}).encode()],
                            [control.fileno(), f.fileno()])
        data, fds, _flags, _addr = socket.recv_fds(self.sock, PID.size, 1, socket.MSG_WAITALL)
        if len(data) != PID.size or len(fds) != 1:
            said = self.log.read_text(encoding="utf-8", errors="replace")[-1500:]
            raise RuntimeError(f"the fast runner's template made no chapter process (exit code {self.proc.poll()}): {said}")
        return Chapter(PID.unpack(data)[0], fds[0])

    def close(self) -> None:
        self.sock.close()
        self.proc.wait()


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
