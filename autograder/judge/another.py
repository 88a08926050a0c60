"""Another process for a test: the notebook run again, outside the kernel the student's code knows.

"The same key in another process, a year later" cannot be decided inside the notebook's process,
where the student's code can replace whatever moves the clock or salts `hash()`. So the judge
starts a fresh Python (`workbook/link/replay.py`; in a sandbox of its own when the grader has one:
`argv` comes from the grader) with another PYTHONHASHSEED and its clock SECONDS later, hands it the
notebook's code cells up to the test, and talks to it over a private socket pair as it talks to
the kernel: a test calls its exercises by name (`later.idempotency_key(...)`) and compares the
answer, as data, with the kernel's. Its CPU counts in the test's budget and it may not idle
(runner.py); it ends with the test.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess

from autograder.judge.names import Namespace
from autograder.judge.remote import JudgeEnd, KernelError
from workbook.link.channel import Channel

MAX_PROCESSES = 4  # other processes one test may start


class Another:
    """The notebook in another process: its exercise names, called there."""

    def __init__(self, argv: list[str], cells: list[str], seconds: float, test: Namespace, check, made: list):
        self._end, self._test = JudgeEnd(), test
        self._end.namespace, self._end.heard = test, test.end.heard  # its records are the test's; its texts heard
        ours, theirs = socket.socketpair()
        token = secrets.token_hex(8)
        self._end.token = token
        try:
            self.proc = subprocess.Popen(
                argv + [str(theirs.fileno()), repr(seconds), str(secrets.randbelow(2**32 - 2) + 1), token],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        made.append(self)  # its CPU counts from now (runner.py)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(cells).encode())
            self.proc.stdin.close()
        except OSError:
            pass  # it ended early: the wait below says so
        self._end.channel = Channel(ours, self._end.serve, orphans="thread")
        self._end.on_wait = check
        try:
            while not self._end.greeted.wait(0.05):  # the cells run, then it says hello
                check()
                if self._end.channel.closed or self.proc.poll() is not None:
                    raise KernelError("the notebook, run again in another process, ended before its cells "
                                      "did (an error or a limit at the top level of a cell)")
        except BaseException:
            self.close()
            made.remove(self)
            raise

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self._test.exercises:
            raise AttributeError(f"another process answers only the chapter's exercises, not {name!r}")
        return self._end.lookup(name)

    def close(self) -> None:
        """Kill it first (a replay that floods the socket and never reads could hold a send), then
        let go of the link."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        channel, self._end.channel = self._end.channel, None
        if channel is not None:
            channel.close("the test is over")
        self._end.forget_test()


def starter(argv: list[str] | None, cells: list[str] | None, test: Namespace, check, made: list):
    """`notebook_side.ANOTHER` for one test: `another_process(seconds)` starts one (kept in `made`)."""

    def another(seconds: float) -> Another:
        if not argv or cells is None:
            raise KernelError("this grader cannot run the notebook in another process (no replay command)")
        if len(made) >= MAX_PROCESSES:
            raise KernelError(f"a test may start at most {MAX_PROCESSES} other processes")
        return Another(list(argv), list(cells), seconds, test, check, made)

    return another
