"""Given code a test must run where the student's code runs: in the notebook's process.

A graded test runs in the judge, outside the notebook, and reaches the notebook only by calling
the chapter's exercises. A few checks need the notebook's process itself: "a year later, in
another process" (`elsewhere` moves the clock and `hash()` around a call there), "a caller changes
the result" (`after_changing`), a real tracer whose current span is the notebook's. A test names
them here, by a fixed path, never by a name the notebook could rebind:

    elsewhere = notebook_side("workbook.probes:elsewhere")
    key = elsewhere(idempotency_key, "call_1", "A-1", 5, seconds=3600)

In a notebook (a learning run) that is the workbook's function itself. In the judge it is the
kernel's copy of it (`REMOTE`, set by the judge), so it runs beside the student's code. Only the
paths in `PATHS` exist, each from a module the chapter's given cells import (nothing is imported
here: the notebook's own module is the one its code uses).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

PATHS = frozenset({"workbook.probes:elsewhere", "workbook.probes:after_changing",
                   "workbook.trace.otel:tracer_for", "workbook.trace.otel:inside",
                   "workbook.mcp_servers.memory:exchange"})
REMOTE: Callable[[str], object] | None = None  # the judge's way to the kernel's copy (autograder/judge/remote.py); None in a notebook


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
