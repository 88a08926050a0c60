"""Another process for a test: the notebook run again, outside the kernel the student's code knows.

"The same key in another process, a year later" cannot be decided inside the notebook's process,
where the student's code can replace whatever moves the clock or salts `hash()`. So each call a
test makes there (`later.idempotency_key(...)`) starts a fresh Python (`workbook/link/replay.py`;
in a sandbox of its own when the grader has one: `argv` comes from the grader) with another
PYTHONHASHSEED and its C library's clock SECONDS later (libfaketime, preloaded before its first
instruction: for everything in it), hands it the notebook's code cells up to the test and that one
call as JSON, and reads back one line, plain data the judge compares with the kernel's answer.

The grader refuses, with the reason, where libfaketime is missing, and the replay refuses where its
clock did not move: "another process" never quietly becomes the same clock. Its CPU counts in the
test's budget and it may not idle (runner.py); it ends with the test. What the replay does to keep
the notebook from getting around the clock, and what it does not hide, is in its docstring.
"""

from __future__ import annotations

import ast
import builtins
import glob
import json
import os
import secrets
import select
import signal
import subprocess

from autograder.judge.clocks import wall
from workbook.link.kernel_objects import KernelError

MAX_PROCESSES = 4  # other processes one test may start (one a call)
MAX_ANSWER = 1 << 20  # bytes of an answer read
LIBRARIES = ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
             "/usr/lib64/faketime/libfaketime.so.1")  # under /usr: what a sandbox binds
INSTALL = "libfaketime is not installed (Debian/Ubuntu: `apt-get install libfaketime`)"
ERRORS = {
    "clock": "its clock could not be moved (libfaketime did not load)",
    "thread": "a thread of the notebook's still ran when the answer was taken (start none at the top of a cell)",
    "missing": "the notebook, run again, does not define that exercise (keep it in its own answer cell)",
    "plain": "it answered something other than plain data (str, int, float, bool, None, lists, dicts)",
    "signal": "its signals could not be set", "fork": "it could not start the call",
    "input": "it could not read the cells", "harness": "the call could not be made",
}
RAISED = {name: cls for name, cls in vars(builtins).items() if isinstance(cls, type) and issubclass(cls, BaseException)}


def faketime_library() -> str | None:
    """The libfaketime this machine has (preloaded into another process), or None."""
    for pattern in LIBRARIES:
        for path in sorted(glob.glob(pattern)):
            if os.path.isfile(path):
                return path
    return None


class Replay:
    """One call in another process: it runs, answers one line and ends; it is reaped with the test
    (until then its CPU counts: runner.py reads it from /proc)."""

    def __init__(self, argv: list[str], library: str, seconds: float, payload: bytes, check, made: list):
        read, write = os.pipe()
        try:
            self.proc = subprocess.Popen(
                argv + [str(write), str(round(seconds)), str(secrets.randbelow(2**32 - 2) + 1), library,
                        repr(wall() + round(seconds))],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(write,), start_new_session=True)
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        made.append(self)  # its CPU counts from now (runner.py)
        try:
            self.answer = self._exchange(read, payload, check)
        finally:
            os.close(read)

    def _exchange(self, read: int, payload: bytes, check) -> bytes:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(payload)
            self.proc.stdin.close()
        except OSError:
            pass  # it ended early: its answer says why
        got = bytearray()
        while True:
            check()
            if not select.select([read], [], [], 0.05)[0]:
                continue
            chunk = os.read(read, 65536)
            if not chunk:
                return bytes(got)
            got += chunk
            if len(got) > MAX_ANSWER:
                raise KernelError("the notebook, run again in another process, answered too much")

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass


def _lists(value):
    """`value` with its tuples as lists (what Heard walks)."""
    if type(value) in (list, tuple):
        return [_lists(v) for v in value]
    if type(value) is dict:
        return {k: _lists(v) for k, v in value.items()}
    return value


def _raised(cls: type[BaseException]) -> BaseException:
    """What a call raised there, as its nearest built-in class (runner.py: the notebook's own)."""
    try:
        error = cls("raised in another process")
    except TypeError:  # a class that wants other arguments (UnicodeDecodeError)
        error = RuntimeError(f"{cls.__name__} raised in another process")
    error.from_other_side = True  # type: ignore[attr-defined]
    return error


class Another:
    """The notebook in another process: its exercise names, each call run there."""

    def __init__(self, argv: list[str], cells: list[str], seconds: float, test, check, made: list, library: str):
        self._argv, self._cells, self._seconds, self._test = argv, cells, seconds, test
        self._check, self._made, self._library = check, made, library

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self._test.exercises:
            raise AttributeError(f"another process answers only the chapter's exercises, not {name!r}")
        return lambda *args, **kwargs: self._call(name, args, kwargs)

    def _call(self, name: str, args: tuple, kwargs: dict):
        try:
            payload = json.dumps({"cells": self._cells, "call": [name, list(args), kwargs]}).encode()
        except (TypeError, ValueError):
            raise KernelError(f"another process is handed plain data only (str, int, lists, dicts): {name}()") from None
        if len(self._made) >= MAX_PROCESSES:
            raise KernelError(f"a test may start at most {MAX_PROCESSES} other processes (one a call)")
        line = Replay(self._argv, self._library, self._seconds, payload, self._check, self._made).answer
        what, _, rest = line.rstrip(b"\n").partition(b" ")
        if line.count(b"\n") != 1 or not line.endswith(b"\n"):
            raise KernelError("the notebook, run again in another process, ended before it answered "
                              "(an error or a limit at the top level of a cell, or a cell that wrote its own answer)")
        if what == b"ok":
            try:
                value = ast.literal_eval(rest.decode("utf-8", "replace"))
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise KernelError(f"another process: {ERRORS['plain']}") from None
            self._test.end.heard.add(_lists(value))  # the notebook's values: a quiet test shows none
            return value
        if what == b"raised":
            raise _raised(RAISED.get(rest.decode("ascii", "replace"), RuntimeError))
        reason = ERRORS.get(rest.decode("ascii", "replace"), "it gave no answer the grader knows")
        raise KernelError(f"the notebook, run again in another process: {reason}")


def starter(argv: list[str] | None, cells: list[str] | None, test, check, made: list):
    """`notebook_side.ANOTHER` for one test: `another_process(seconds)` makes one (its calls are kept
    in `made`)."""

    def another(seconds: float) -> Another:
        if not argv or cells is None:
            raise KernelError("this grader cannot run the notebook in another process (no replay command)")
        library = faketime_library()
        if library is None:
            raise KernelError(f"this grader cannot move another process's clock: {INSTALL}")
        return Another(list(argv), list(cells), seconds, test, check, made, library)

    return another
