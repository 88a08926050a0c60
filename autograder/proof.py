"""Test cells run as the grader wrote them, and prove they returned.

A test cell is not sent to the kernel as text. The grader sends one line that hands the cell,
compressed, to the test runner the guard installed before any student code ran
(`kernel_guard._runner`): it decodes the cell with the builtins of that moment, `compile()`s it,
runs it in the notebook's namespace, and records under a per-cell random name that the code
returned. After the cell, the grader asks the runner for that record over its own request. So:

- IPython's input and AST transformers, a custom `run_cell` or `compile`, or a `compile` defined
  in the notebook see only the wrapper line, never the test's `assert`s;
- a cell that was skipped, cut short, replaced or whose error was hidden has no record: it scores
  0 and is reported as tampering;
- hidden test code is not stored in `In`, `_ih`, the history or `linecache`, and after it ran the
  grader clears what the kernel still keeps of it (`sys.last_traceback`, IPython's cell cache).

This is a second line of defence, not a proof against code aimed at it: a student's function
called by a test runs in the same interpreter and can, with frame and closure introspection, find
the runner's record and forge it. The OS sandbox bounds what such code can reach (its own grade
only), and the README says so. Only running tests out of process would close it.
"""

from __future__ import annotations

import base64
import secrets
import zlib
from dataclasses import dataclass

MARK = "__autograder_test__"


@dataclass(frozen=True)
class Wrapped:
    code: str  # what the kernel executes
    name: str  # the random name the runner records the cell's end under


def _runner(token: str) -> str:
    """The test runner the guard installed (kernel_guard._runner), found without any name a
    student's cell could rebind."""
    return f"[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_AutograderRunner_{token}'][0]"


def wrap(source: str, grade_id: str, hidden: bool, token: str) -> Wrapped:
    """The wrapper line for one test cell, with a fresh random name."""
    name = f"{MARK}{secrets.token_hex(8)}"
    blob = base64.b64encode(zlib.compress(source.encode("utf-8"))).decode("ascii")
    filename = f"<hidden test {grade_id}>" if hidden else f"<test {grade_id}>"
    code = f"{_runner(token)}.run({blob!r}, {filename!r}, {name!r}, {not hidden})  # {MARK}\n"
    return Wrapped(code, name)


def read_expression(wrapped: Wrapped, token: str) -> str:
    """A user expression: did this cell's code return? (True once, then forgotten)."""
    return f"{_runner(token)}.read({wrapped.name!r})"


# Run silently after a hidden test cell, before any student code runs again.
FORGET_HIDDEN = f"""
import linecache as _l, sys as _s
for _c in (_l.cache, getattr(_l, '_ipython_cache', {{}})):
    for _k in [k for k, v in list(_c.items()) if {MARK!r} in ''.join(v[2] if len(v) > 2 else '')]:
        _c.pop(_k, None)
_s.last_type = _s.last_value = _s.last_traceback = None
if hasattr(_s, 'last_exc'):
    _s.last_exc = None
del _l, _s, _c
"""


def ended(reply_expressions: dict) -> bool:
    """Did the runner record that the cell's code returned?"""
    result = reply_expressions.get("proof", {})
    return result.get("status") == "ok" and result.get("data", {}).get("text/plain") == "True"
