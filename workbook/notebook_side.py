"""Given code a test must run where the student's code runs: in the notebook's process.

A graded test runs in the judge, outside the notebook, and reaches the notebook only by calling
the chapter's exercises. A few checks need the notebook's process itself: a real tracer whose
current span is the notebook's, an MCP exchange beside the student's server. A test names them
here, by a fixed path, never by a name the notebook could rebind:

    tracer_for = notebook_side("workbook.trace.otel:tracer_for")
    traced = tracer_for(sink.export)

What such code decides, the notebook could decide too (it may patch its own workbook), so a test
uses it to set things up, never as the verdict: a property only the notebook's process can see
(a dict handed out twice) is not graded at all (chapter 10 checks it in an ungraded cell).

In a notebook (a learning run) that is the workbook's function itself. In the judge it is the
kernel's copy of it (`REMOTE`, set by the judge), so it runs beside the student's code. Only the
paths in `PATHS` exist, each from a module the chapter's given cells import (`local` imports
nothing: the notebook's own module is the one its code uses).

"In another process" is decided outside the notebook's process: `another_process(seconds)` is the
chapter's code cells with the notebook's answers (no cell the notebook added) run again, graded, in
a fresh sandboxed Python whose built-in `hash()` differs and whose wall clock is `seconds` later,
both put back after the cells (the judge starts it: `ANOTHER`); its exercises are called by name:

    later = another_process(seconds=365 * 24 * 3600)
    assert later.idempotency_key("call_1", "A-1", 5) == idempotency_key("call_1", "A-1", 5)

In a learner's kernel it is `workbook.probes.elsewhere` around the notebook's own function, called
across the link as graded (workbook/loopback.py).

Which processes the notebook started, and which it left running, is decided outside it too:
`watch_processes()` is a `with` block's view of them from /proc (workbook/process_watch.py); graded,
the judge's view of the kernel's processes (the judge sets `PROCESSES`), so a `run_code` that
rewrites what it reports cannot change it:

    with watch_processes() as seen:
        r = run_code(code, scratch, limits)
    assert not seen.left and seen.program(code).limits["cpu_seconds"] == (1, 2)

In a notebook it watches the notebook's own process.

A folder the test hands the notebook's code is the notebook's: `notebook_folder()` makes a new,
empty one and removes it after the `with` block. In a notebook it is a temporary folder, a
`pathlib.Path`; graded, a folder inside the kernel's sandbox that the judge reads and writes on
request, by descriptor, capped (`FILES`, autograder/judge/files.py): a `KernelPath` with the same
methods (`/`, `read_text`, `write_text`, `mkdir`, `symlink_to`, `iterdir`, `exists`, `resolve`,
`replace`...). A path the notebook's code returns is one too. So a test writes plain pathlib code:

    with notebook_folder() as folder:
        save_checkpoint(folder / "run.json", state)
        assert json.loads((folder / "run.json").read_text(encoding="utf-8")) == state

`notebook_path(text)` is a path the notebook's code gave as text, the same way.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from workbook.probes import elsewhere
from workbook.process_watch import ProcessWatch

PATHS = frozenset({"workbook.trace.otel:tracer_for", "workbook.trace.otel:inside",
                   "workbook.mcp_servers.memory:exchange", "workbook.frameworks:run_adapted"})
REMOTE: Callable[[str], object] | None = None  # the judge's way to the kernel's copy (workbook/link/judge_end.py); None in a notebook
ANOTHER: Callable[[float], object] | None = None  # the judge's: the notebook run again elsewhere (autograder/judge/another.py)
PROCESSES: Callable[[], ProcessWatch] | None = None  # the judge's: a watch of the kernel's processes (runner.py)
AFTER: Callable[[object], object] | None = None  # the judge's: what the kernel made of an argument (link/judge_end.py)
FILES: Any = None  # the judge's: the sandboxed kernel's files (autograder/judge/files.py SandboxFiles); None in a notebook


def after(value):
    """`value` (a list, dict or set the test handed the notebook's code) as that code left it: the
    state the kernel sent back after the test's last call that took it, a copy (in a learner's
    kernel too: workbook/loopback.py); nothing the kernel sends is written into the test's own
    objects. So a test reads `messages = after(messages)` after calling `one_step(messages, ...)`.
    Outside a test (no link) it is `value` itself."""
    return value if AFTER is None else AFTER(value)


def local(path: str):
    """The object at `path` in this process's workbook (a module the notebook imported)."""
    if path not in PATHS:
        raise ValueError(f"{path!r} is not given code a test may run in the notebook: one of {sorted(PATHS)}")
    module, _, name = path.partition(":")
    if module not in sys.modules:
        raise LookupError(f"the notebook has not imported {module} (its given cells do): run them first")
    return getattr(sys.modules[module], name)


def notebook_side(path: str):
    """The workbook function `path` ("module:name", one of PATHS) as the notebook's process has it."""
    if path not in PATHS:
        raise ValueError(f"{path!r} is not given code a test may run in the notebook: one of {sorted(PATHS)}")
    return local(path) if REMOTE is None else REMOTE(path)


class Elsewhere:
    """In a learner's kernel: the notebook's own functions, each run by `elsewhere` (clock moved,
    hash() salted)."""

    def __init__(self, seconds: float):
        self._seconds = seconds

    def __getattr__(self, name: str):
        fn = vars(sys.modules["__main__"]).get(name) if not name.startswith("_") else None
        if not callable(fn):
            raise AttributeError(f"the notebook defines no function {name!r}: run its cells first")
        return lambda *args, **kwargs: elsewhere(fn, *args, seconds=self._seconds, hash_salt="another process",
                                                 **kwargs)


def another_process(seconds: float = 0):
    """The notebook in another Python process (another hash seed), its clock `seconds` later: call
    an exercise of it by name, `another_process(3600).idempotency_key(...)`."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 10 * 365 * 86400:
        raise ValueError(f"seconds must be a number of seconds from 0 to ten years, not {seconds!r}")
    return Elsewhere(float(seconds)) if ANOTHER is None else ANOTHER(float(seconds))


def watch_processes() -> ProcessWatch:
    """A `with` block's view of the processes the notebook starts inside it, from /proc: `left`
    (those still running after it), `program(code)` (the process that ran `code`: its argv,
    environment names, rlimits, folder). Graded, the judge's view from outside the sandbox."""
    return ProcessWatch(os.getpid()) if PROCESSES is None else PROCESSES()


@contextlib.contextmanager
def notebook_folder() -> Iterator[pathlib.PurePath]:
    """A new, empty folder the notebook's code can read and write, removed after the block."""
    if FILES is not None:
        with FILES.folder() as folder:
            yield folder
        return
    with tempfile.TemporaryDirectory(prefix="agentloop-") as tmp:
        yield pathlib.Path(tmp).resolve()


def notebook_path(path: str | os.PathLike) -> pathlib.PurePath:
    """A path the notebook's code gave (as text or a path), as the test reads it."""
    return pathlib.Path(path) if FILES is None else FILES.Path(os.fspath(path))
