"""Another process for a test (`workbook.notebook_side.another_process`): the notebook run again.

`python -m workbook.link.replay FD SECONDS SEED LIBFAKETIME EXPECT`, started by the judge
(`autograder/judge/another.py`; in a sandbox of its own when the grader has one), with JSON on
stdin: the notebook's code cells up to the test and the one call the test makes,
`{"cells": [...], "call": [name, args, kwargs]}`. It answers one line on FD and ends.

What makes it another process is set below Python, before any of the notebook's code runs, and is
never undone: it starts again (execve) with PYTHONHASHSEED=SEED and libfaketime preloaded with
FAKETIME=+SECONDS, so every clock read through the C library, by any module, C or Python, the real
`datetime` class and the real `time.time` included, is SECONDS later for its whole life. (Moving
the clock in Python left the real clock one attribute away: the moved class's base, the moved
reader's closure; red team 4.) It refuses to run when that clock is not moved (EXPECT is the
judge's clock plus SECONDS), so grading never quietly falls back to a weaker check.

Then it runs the cells as a kernel would (an error ends that cell, not the run), under an audit
hook, set before them and the only one there can be, that refuses what could get around the moved
clock or reach this harness: native code (ctypes, cffi, a second copy of an extension), starting
programs (one without libfaketime), FAKETIME in the environment (libfaketime reads it again),
sockets, tracing and profiling, other audit hooks, the garbage collector's object lists, signals
to other processes.

The answer is taken where nothing of the notebook runs but the call itself: the hook forks, and
the child (one thread: a thread the cells started is not there; red team 4) turns the garbage
collector off, ignores every signal, puts back the `time`, `datetime` and `builtins` modules as
they were before the cells (whatever the answers set: a frozen clock, a stable `hash`), checks
that it is alone (a thread started at fork is refused), calls the exercise and writes what it
returned: `ok REPR` (plain data only), `raised NAME` (the nearest built-in exception class) or
`error WHAT` (a word the judge turns into its own text).

Nothing here is trusted: the judge compares the answer with what the notebook's kernel answered,
and decides. What it does not hide: a file's or a pipe's times and /proc still show the real clock
(the kernel writes them; no Linux namespace moves CLOCK_REALTIME), and cells that write the answer
line themselves and end the process speak for the harness (the first is tests/attacks.py's open
`clock_file_times`).
"""

import os
import sys


def _wanted(argv: list[str]) -> dict[str, str]:
    """The environment this process must start with: its hash seed, its clock moved by libfaketime
    (monotonic left alone: libfaketime's own moves it oddly and breaks `time.sleep`)."""
    return {"PYTHONHASHSEED": argv[2], "LD_PRELOAD": argv[3], "FAKETIME": f"+{int(argv[1])}",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


if __name__ == "__main__" and any(os.environ.get(k) != v for k, v in _wanted(sys.argv[1:]).items()):
    # Both are read when the process starts: start again with them (the answer's pipe stays open).
    os.execve(sys.executable, [sys.executable, "-m", "workbook.link.replay", *sys.argv[1:]],
              {**os.environ, **_wanted(sys.argv[1:])})

import _datetime  # type: ignore[import-not-found]  # noqa: E402
import _posixsubprocess  # noqa: E402 - after the start again, which must come first
import builtins  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
from typing import Any, NoReturn  # noqa: E402

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

MAX_INPUT = 10_000_000  # characters of cells and call read
MAX_ANSWER = 1_000_000  # characters of an answer's repr
MAX_ITEMS = 10_000  # values in an answer
SLACK = 600.0  # seconds the moved clock may differ from what the judge expects
FINISH = "agentloop.replay.finish"  # the audit event that takes the answer (raised after the cells)
REFUSED = frozenset({
    "sys.addaudithook", "sys.settrace", "sys.setprofile", "sys.monitoring.register_callback",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.forkpty", "subprocess.Popen",
    "os.kill", "os.killpg", "signal.pthread_kill", "socket.__new__",
    "resource.setrlimit", "resource.prlimit", "sqlite3.enable_load_extension", "sqlite3.load_extension"})
NATIVE = frozenset({"ctypes", "_ctypes", "cffi", "_cffi_backend", "_posixsubprocess"})
PLAIN = (str, int, float, bool, type(None))
EXCEPTIONS = tuple(sorted((c for c in vars(builtins).values() if isinstance(c, type) and issubclass(c, BaseException)),
                          key=lambda c: -len(c.__mro__)))  # the most derived first


class Refused(RuntimeError):
    """What the other process does not allow (an audit hook's refusal)."""


class RefusedImport(Refused, ImportError):
    """A native module the other process does not load. An ImportError too, as the kernel's would be
    for a module that is not there: the audit event comes before the import system looks, so
    httpx's optional `import brotlicffi` (not installed) was refused as a RuntimeError, `import openai`
    failed, and every cell after a chapter's imports ran into NameErrors, unlike in the kernel."""


def _sleep(seconds: float) -> None:
    """`time.sleep` by select: libfaketime's absolute sleep on the monotonic clock fails (EINVAL)."""
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    select.select([], [], [], seconds)


def _no_fork_exec(*args, **kwargs):
    raise Refused("another process may not start programs")


def _clock_moved(library: str, expect: float) -> bool:
    """libfaketime is loaded and both C clock readers say what the judge expects."""
    with open("/proc/self/maps") as maps:
        loaded = library in maps.read()
    utc = datetime.datetime.now(datetime.UTC).timestamp()
    return loaded and abs(time.time() - expect) < SLACK and abs(utc - expect) < SLACK


def _guard(fd: int, namespace: dict, call: list) -> None:
    """Install the audit hook: it refuses (REFUSED) and, on FINISH, takes the answer. All it uses is
    bound here, so no name the cells rebind reaches it, and nothing but the interpreter holds it."""
    name, args, kwargs = call
    modules = sys.modules
    kept: list = []
    put_back = [(vars(m), dict(vars(m))) for m in (time, datetime, _datetime, builtins)]
    entries = {k: modules[k] for k in ("time", "datetime", "_datetime", "builtins")}
    sys_dict = vars(sys)
    hooks = {k: sys_dict[k] for k in ("excepthook", "unraisablehook", "displayhook", "breakpointhook", "modules")}
    signals = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]
    finishing: list = []
    exact, size, text, subclass = type, len, repr, issubclass
    write, exit_, fork, wait, listdir, callable_ = os.write, os._exit, os.fork, os.waitpid, os.listdir, callable
    disable, callbacks, handle, ignore = gc.disable, gc.callbacks, signal.signal, signal.SIG_IGN
    refused, native, plain, exceptions, bad_types = REFUSED, NATIVE, PLAIN, EXCEPTIONS, (BaseException,)

    def answer(line: bytes) -> NoReturn:
        view = memoryview(line + b"\n")
        while view:
            view = view[write(fd, view):]
        exit_(0)

    def is_plain(value) -> bool:
        todo, left = [value], MAX_ITEMS
        while todo:
            item, left = todo.pop(), left - 1
            if left < 0:
                return False
            kind = exact(item)
            if kind in (list, tuple):
                todo.extend(item)
            elif kind is dict:
                todo.extend(item.keys())
                todo.extend(item.values())
            elif kind not in plain:
                return False
        return True

    def nearest(kind) -> bytes:  # issubclass of a built-in class reads no attribute of `kind`
        for cls in exceptions:
            if subclass(kind, cls):
                return cls.__name__.encode()
        return b"BaseException"

    def take() -> None:
        """In the forked child: nothing of the notebook's but the call runs from here on."""
        disable()
        callbacks.clear()
        sys_dict.update(hooks)
        for number in signals:
            try:
                handle(number, ignore)
            except (OSError, ValueError, RuntimeError):
                answer(b"error signal")
        for current, before in put_back:
            kept.append(dict(current))  # what the cells set stays alive: no finalizer runs now
            current.clear()
            current.update(before)
        modules.update(entries)
        if size(listdir("/proc/self/task")) != 1:
            answer(b"error thread")
        fn: Any = namespace.get(name)
        if not callable_(fn):
            answer(b"error missing")
        try:
            value = fn(*args, **kwargs)
        except bad_types as e:
            answer(b"raised " + nearest(exact(e)))
        shown: str = text(value) if is_plain(value) else ""
        if not shown or size(shown) > MAX_ANSWER:
            answer(b"error plain")
        answer(b"ok " + shown.encode("utf-8", "backslashreplace"))

    def hook(event: str, arguments: tuple) -> None:
        if event in refused:
            raise Refused(f"another process does not allow {event}")
        if event == "import" and arguments and arguments[0] in native:
            raise RefusedImport(f"another process does not load {arguments[0]}")
        if event == "os.putenv" or event == "os.unsetenv":
            key: Any = arguments[0] if arguments else ""
            key = key.decode("latin-1") if exact(key) is bytes else key
            if exact(key) is not str or key.startswith("FAKETIME") or key.startswith("LD_"):
                raise Refused("another process keeps its clock's settings")
        if event == FINISH and not finishing:
            finishing.append(True)
            try:
                child = fork()
            except OSError:
                answer(b"error fork")
            if child == 0:
                try:
                    take()
                except bad_types:
                    answer(b"error harness")
            try:
                wait(child, 0)
            finally:
                exit_(0)

    sys.addaudithook(hook)


def main(argv: list[str]) -> None:
    fd, library, expect = int(argv[0]), argv[3], float(argv[4])
    data = json.loads(sys.stdin.read(MAX_INPUT))
    cells, call = (data.get("cells"), data.get("call")) if type(data) is dict else (None, None)
    if (type(cells) is not list or type(call) is not list or len(call) != 3 or type(call[0]) is not str
            or type(call[1]) is not list or type(call[2]) is not dict):
        os.write(fd, b"error input\n")
        os._exit(0)
    if not _clock_moved(library, expect):
        os.write(fd, b"error clock\n")
        os._exit(0)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - what the cells print goes nowhere
    vars(time)["sleep"] = _sleep  # before the snapshot the answer is taken with
    vars(_posixsubprocess)["fork_exec"] = _no_fork_exec
    shell = InteractiveShell.instance()
    # What a cell's error prints goes nowhere; IPython's coloured traceback (stack_data, pygments)
    # cost two thirds of a replay's CPU, about 2 s each.
    for shows in ("showtraceback", "showsyntaxerror"):
        setattr(shell, shows, lambda *args, **kwargs: None)
    finish = sys.audit
    _guard(fd, shell.user_ns, call)
    for source in cells:
        if type(source) is str:
            shell.run_cell(source, silent=True, store_history=False)
    finish(FINISH)
    os._exit(0)  # only when the cells took the hook's place: no answer, which the judge refuses


if __name__ == "__main__":
    main(sys.argv[1:])
