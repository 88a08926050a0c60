"""The judge process (`python -m autograder.judge`): runs a notebook's test cells, outside the
sandbox, against the student's kernel over a unix socket.

It reads one JSON command a line on stdin and writes one JSON line a result on the stdout it
was started with (anything else that writes to fd 1 goes nowhere):

    {"op": "start", "socket": PATH, "kernel_pid": N, "scratch": DIR, "cpu": S, "wall": S,
     "exercises": [NAME, ...],  the chapter's exercise names: the only names asked of the kernel
     "replay": [ARGV...]}       how to start the notebook again in another process (another.py)
    {"op": "test", "grade_id": ID, "source": CODE, "hidden": BOOL, "token": T,
     "cells": [CODE, ...]}      the notebook's code cells before it (for another process)
        -> {"op": "result", "grade_id": ID, "passed": BOOL, "ename": ..., "evalue": ...,
            "traceback": [...], "stdout": TEXT, "cpu": S, "wall": S, "timeout": BOOL}
    {"op": "cell_done"}     the kernel's cell is over (it will not connect any more)
    {"op": "quit"}

A test passes when its code ran to its end here. Nothing the kernel says about itself counts:
it sends data, and the asserts run on this side.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import linecache
import os
import queue
import signal
import socket
import sys
import tempfile
import threading
import traceback

import anthropic  # noqa: F401  (loaded while the kernel starts, not inside a test's time)
import openai  # noqa: F401

from autograder.judge.another import starter
from autograder.judge.clocks import monotonic, process_time
from autograder.judge.cpu import IDLE_GRACE, IdleClock, Party, descendants, tree_cpu
from autograder.judge.files import SandboxFiles
from autograder.judge.limits import MEMORY, limit_cpu, limit_process
from workbook import notebook_side
from workbook.link.channel import Channel, LinkClosed
from workbook.link.exc_classes import QUIET, known_name, shown_name
from workbook.link.heard import mask_values
from workbook.link.judge_end import JudgeEnd, KernelError
from workbook.link.names import Namespace
from workbook.process_watch import ProcessWatch

MAX_STDOUT = 20_000  # characters of the test code's own prints kept
MAX_EVALUE = 2_000


class Stop(BaseException):
    """The judge stops a test (its time is up, or the kernel is gone): nothing may catch it."""

    link_stop = True


class TimeUp(Stop):
    """The judge stops a test that ran over its CPU time or its clock: the grader records a timeout."""


def _alarm(signum, frame):
    raise TimeUp("the test ran over its time by the clock")


class Judge:
    def __init__(self, out):
        self.out = out
        self.end = JudgeEnd()
        self.ns = Namespace(self.end)
        self.ns["__name__"] = "__test__"  # what the test's own functions and classes say they are
        notebook_side.REMOTE = self.end.given  # given code a test runs in the notebook: the kernel's copy
        notebook_side.AFTER = self.end.after  # what the notebook's code made of a test's argument
        self.listener: socket.socket | None = None
        self.kernel_pid: int | None = None
        self.cpu_limit, self.wall_limit = 30.0, 150.0
        self.cell_done = threading.Event()
        self.replay: list[str] | None = None  # the command that runs the notebook again (another.py)
        self.others: list = []  # the other processes of this test
        self.after_hidden = False  # a hidden test has run: the notebook has seen hidden inputs

    def start(self, cmd: dict) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # The sandbox's uid must be able to connect: the socket is made 0777 by the umask at bind
        # (never by a chmod of its path afterwards, which a kernel could swap for a symlink).
        # bind() never follows a symlink: a path the kernel planted makes it fail, and no test runs.
        old_umask = os.umask(0)
        try:
            self.listener.bind(cmd["socket"])
        finally:
            os.umask(old_umask)
        self.listener.listen(4)
        self.listener.settimeout(0.05)
        self.kernel_pid = cmd.get("kernel_pid")
        # What the kernel's processes are is read here, from /proc: the kernel's tree holds all it started
        # (the sandbox's pid namespace, or the fast runner's subreaper, adopts an orphan).
        notebook_side.PROCESSES = functools.partial(ProcessWatch, self.kernel_pid, descendants)
        exercises = cmd.get("exercises") or []
        self.ns.exercises = frozenset(n for n in exercises if type(n) is str and n.isidentifier())
        replay = cmd.get("replay")
        self.replay = [str(a) for a in replay] if type(replay) is list and replay else None
        self.cpu_limit, self.wall_limit = float(cmd.get("cpu", 30)), float(cmd.get("wall", 150))
        if cmd.get("kernel_root"):  # a sandboxed kernel: its files, on request (judge/files.py)
            notebook_side.FILES = files = SandboxFiles(str(cmd["kernel_root"]))
            self.end.path_type = files.Path
        if cmd.get("scratch"):  # the judge's own temporary files
            tempfile.tempdir = str(cmd["scratch"])
            os.environ["TMPDIR"] = tempfile.tempdir

    def _budget(self):
        started, kernel0, judge0 = monotonic(), tree_cpu(self.kernel_pid), process_time()
        # Waiting uses no CPU: the test ends once it and the kernel were idle (neither on a CPU nor
        # waiting for one, cpu.IdleClock) past its CPU limit, long before the clock's backstop.
        parties = [Party(os.getpid())] + ([Party(self.kernel_pid)] if self.kernel_pid else [])
        idle = IdleClock(lambda: parties + [Party(o.proc.pid) for o in list(self.others)])
        idle_limit = self.cpu_limit + IDLE_GRACE

        def check():
            used = (tree_cpu(self.kernel_pid) - kernel0 + process_time() - judge0
                    + self._others_cpu())
            if used > self.cpu_limit:
                raise TimeUp(f"the test ran over its limit of {self.cpu_limit:g} s of CPU time")
            if monotonic() - started > self.wall_limit:
                raise TimeUp(f"the test ran over {self.wall_limit:g} s by the clock")
            if idle.seconds() > idle_limit:
                raise TimeUp(f"the test waited over {idle_limit:g} s for the notebook's kernel, which used "
                             f"no CPU meanwhile (its limit: {self.cpu_limit:g} s of CPU time)")
            if self.cell_done.is_set() and (self.end.channel is None or self.end.channel.closed):
                raise Stop("the notebook's kernel stopped answering the grader")

        return check

    def _connect(self, token: str, check) -> Channel:
        assert self.listener is not None, "start() binds the listener before any test"
        while True:
            check()
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                if self.cell_done.is_set():
                    raise Stop("the notebook's kernel did not take the test (the cell ended without "
                               "answering the grader)") from None
                continue
            conn.settimeout(None)
            self.end.greeted.clear()
            channel = Channel(conn, self.end.serve, orphans="thread")
            while not self.end.greeted.wait(0.05):  # nothing is asked of it before its hello
                check()
                if channel.closed or self.cell_done.is_set():
                    break
            if self.end.greeted.is_set():
                return channel
            channel.close("no hello with this test's token")
            if self.cell_done.is_set():
                raise Stop("the notebook's kernel did not take the test (it connected to the grader "
                           "without this test's hello)")

    def test(self, cmd: dict) -> dict:
        grade_id, hidden = str(cmd["grade_id"]), bool(cmd.get("hidden"))
        quiet = hidden or self.after_hidden  # from here the notebook has seen hidden inputs (heard.py)
        filename = f"<hidden test {grade_id}>" if hidden else f"<test {grade_id}>"
        self.ns.forget_kernel()
        started, judge0 = monotonic(), process_time()
        kernel0 = tree_cpu(self.kernel_pid)
        check = self._budget()
        printed = io.StringIO()
        result = {"op": "result", "grade_id": grade_id, "passed": False, "ename": "", "evalue": "",
                  "traceback": [], "stdout": "", "timeout": False}
        if not hidden:  # so a visible test's traceback shows its lines (a hidden one shows none)
            lines = str(cmd["source"]).splitlines(True)
            linecache.cache[filename] = (len(cmd["source"]), None, lines, filename)
        self.end.token = str(cmd.get("token", ""))
        cells = cmd.get("cells")
        notebook_side.ANOTHER = starter(self.replay, cells if type(cells) is list else None, self.ns, check,
                                        self.others)
        limit_cpu(self.cpu_limit)  # the backstop: past it the kernel ends this judge (limits.py)
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, self.wall_limit)  # also while this thread serves a call
        try:
            code = compile(cmd["source"], filename, "exec", dont_inherit=True)  # not this module's __future__
            self.end.channel = self._connect(self.end.token, check)
            self.end.on_wait = check
            os.environ[QUIET] = "1" if quiet else ""  # checks.said: no notebook text
            with contextlib.redirect_stdout(printed):
                exec(code, self.ns)
            result["passed"] = True
        except BaseException as e:  # noqa: BLE001 - every way a test can fail is a failed test
            result.update(self._failure(e, filename, hidden, quiet=quiet, source=str(cmd["source"])),
                          timeout=isinstance(e, TimeUp))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            other_cpu = self._others_cpu()
            self._hang_up()
        result["stdout"] = printed.getvalue()[:MAX_STDOUT]
        self.after_hidden = self.after_hidden or hidden
        result["cpu"] = round(tree_cpu(self.kernel_pid) - kernel0 + process_time() - judge0 + other_cpu, 3)
        result["wall"] = round(monotonic() - started, 3)
        return result

    def _failure(self, e: BaseException, filename: str, hidden: bool, quiet: bool, source: str = "") -> dict:
        """The verdict's error. `quiet` (a hidden test, or any test after one): only words the
        grader wrote, never a text or a value the notebook sent (workbook/link/heard.py)."""
        if isinstance(e, Stop):
            ename, evalue = "TestStopped", str(e)
        elif isinstance(e, LinkClosed):
            ename, evalue = "KernelGone", f"the notebook's kernel stopped answering the grader ({e})"
        elif isinstance(e, KernelError):
            ename, evalue = "KernelError", str(e)
        elif isinstance(e, MemoryError):
            ename, evalue = "JudgeMemoryError", (f"the test made the judge need more than its {MEMORY >> 20} MB "
                                                 "of memory (the notebook's objects or files are too big)")
        else:
            ename, evalue = (known_name(type(e)) if quiet else shown_name(e)), str(e)
        ename = ename if ename.isidentifier() else "Error"
        if quiet and getattr(e, "from_other_side", False):  # the notebook's own exception, let through
            evalue = "raised by your code (after a hidden test its message is not shown)"
        elif quiet:
            evalue = mask_values(self.end.heard.redact(evalue[: 4 * MAX_EVALUE], source, self.ns.exercises))
        frames = []
        if not hidden:  # only the visible test's own lines, and where the notebook's code raised
            tb = traceback.extract_tb(e.__traceback__)
            frames = [f"  line {f.lineno}: {f.line}" for f in tb if f.filename == filename][-3:]
            frames = [f for f in frames if not f.endswith(": ")] or frames
            if not quiet:
                frames += [f"  ({note[:300]})" for note in getattr(e, "__notes__", [])[:2] if isinstance(note, str)]
        return {"ename": ename[:80], "evalue": evalue[:MAX_EVALUE], "traceback": frames}

    def _others_cpu(self) -> float:
        """CPU seconds of the test's other processes (the notebook run again: another.py)."""
        return sum(tree_cpu(o.proc.pid) for o in list(self.others))

    def _hang_up(self) -> None:
        notebook_side.ANOTHER = None
        while self.others:
            self.others.pop().close()
        channel, self.end.channel, self.end.on_wait = self.end.channel, None, None
        self.end.forget_test()
        if channel is not None:
            with contextlib.suppress(LinkClosed, OSError, ValueError):
                channel._send({"op": "done", "id": 0, "parent": None})
            channel.close("the test is over")

    def send(self, msg: dict) -> None:
        self.out.write(json.dumps(msg) + "\n")
        self.out.flush()


def main() -> None:
    limit_process()
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = io.StringIO()
    judge, tests = Judge(out), queue.Queue[dict]()

    def read_commands():
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd.get("op") == "cell_done":
                judge.cell_done.set()
                continue
            if cmd.get("op") == "test":  # here, in order: its cell_done may come before it starts
                judge.cell_done.clear()
            tests.put(cmd)
        tests.put({"op": "quit"})

    threading.Thread(target=read_commands, daemon=True).start()
    while True:
        cmd = tests.get()
        if cmd["op"] == "quit":
            break
        if cmd["op"] == "start":
            judge.start(cmd)
            judge.send({"op": "started"})
        elif cmd["op"] == "test":
            judge.send(judge.test(cmd))
    os._exit(0)  # threads serving a kernel that never hung up must not keep the judge alive
