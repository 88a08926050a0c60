"""Test cells run as the grader wrote them, and prove they reached their last line.

A test cell is not sent to the kernel as text. The grader sends one line that decodes the cell,
compiles it with `compile()` and runs it in the notebook's namespace, followed by a statement
that stores a per-run random token under a per-run random name. After the cell, the grader reads
that name back over its own request (and removes it). So:

- IPython's input and AST transformers, custom `run_cell`s and similar rewrites see only the
  wrapper line, never the test's `assert`s, and cannot drop them;
- a cell that was skipped, cut short or replaced never stores the token: it scores 0 and is
  reported as tampering;
- hidden test code is not stored in `In`, `_ih`, the history or `linecache`, and after it ran the
  grader clears what the kernel still keeps of it (`sys.last_traceback`, IPython's cell cache).

This is a second line of defence: code that targets this protocol itself (decoding the wrapper in
a rewritten `do_execute`) is still possible inside the kernel; the OS sandbox limits what such a
kernel can reach, and scoring only counts cells that ran to the end without an error.
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
    name: str  # where the token is stored
    token: str  # what must be stored there when the cell reached its end


def wrap(source: str, grade_id: str, hidden: bool) -> Wrapped:
    """The wrapper line for one test cell, with a fresh name and token."""
    name, token = f"_{MARK}{secrets.token_hex(8)}", secrets.token_hex(16)
    body = source.rstrip() + f"\nglobals()[{name!r}] = {token!r}\n"
    blob = base64.b64encode(zlib.compress(body.encode("utf-8"))).decode("ascii")
    filename = f"<hidden test {grade_id}>" if hidden else f"<test {grade_id}>"
    show = "" if hidden else (f"__import__('linecache').cache[{filename!r}] = "
                              f"(len(_{MARK}src), None, _{MARK}src.splitlines(True), {filename!r}); ")
    code = (f"_{MARK}src = __import__('zlib').decompress(__import__('base64').b64decode({blob!r})).decode(); "
            f"{show}exec(compile(_{MARK}src, {filename!r}, 'exec'), globals()); del _{MARK}src\n")
    return Wrapped(code, name, token)


def read_expression(wrapped: Wrapped) -> str:
    """A user expression that returns the stored token (or None) and removes it."""
    return f"globals().pop({wrapped.name!r}, None)"


# Run silently after a hidden test cell, before any student code runs again.
FORGET_HIDDEN = f"""
import linecache as _l, sys as _s
for _c in (_l.cache, getattr(_l, '_ipython_cache', {{}})):
    for _k in [k for k, v in list(_c.items()) if {MARK!r} in ''.join(v[2] if len(v) > 2 else '')]:
        _c.pop(_k, None)
_s.last_type = _s.last_value = _s.last_traceback = None
if hasattr(_s, 'last_exc'):
    _s.last_exc = None
globals().pop('_{MARK}src', None)
del _l, _s, _c
"""


def token_ok(reply_expressions: dict, wrapped: Wrapped) -> bool:
    """Did the kernel give back exactly this cell's token?"""
    result = reply_expressions.get("proof", {})
    return result.get("status") == "ok" and result.get("data", {}).get("text/plain") == repr(wrapped.token)


def _decode_for_tests(code: str) -> str:  # used by tests to check what the kernel receives
    blob = code.split("b64decode(", 1)[1].split(")", 1)[0].strip("'\"")
    return zlib.decompress(base64.b64decode(blob)).decode()
