"""Helpers for test cells: a fresh private copy of the workbook, and clear assertion messages.

    from workbook.checks import fresh
    wb = fresh()                                   # loaded from the files, not from sys.modules
    llm = wb.fake_llm.FakeLLM(wb.scenarios.taxi_spending())
    wb.checks.equal(add(2, 3), 5, "add(2, 3)")     # AssertionError: add(2, 3) should be 5, got '23'

Test helpers (docs/CHAPTERS.md, "Test helpers"): `equal`, `is_type`, `expect`, `kind`, and two context
managers; `raises` is the ONLY form (no `raises(fn, *args)`): the block must raise.

    with wb.checks.raises(ValueError, match="unknown tool", what="run_tool('nope', {})"):
        run_tool("nope", {})
    with wb.checks.no_raise("agent(question, model)", hint="errors are observations"):
        result = agent(question, model)

A failure is an AssertionError naming `what`; a NotImplementedError (an unfinished exercise) passes
through. Helpers' frames carry `__tracebackhide__`, failures `_render_traceback_` (IPython's hook):
a notebook shows the test's line, the student's frames and the message, never this file. Graded,
test cells run in the judge with its own copy of this module (a rebinding never reaches `fresh()`'s)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sys
import types

from workbook.compare import mismatch, short, with_article
from workbook.fresh import Fresh, fresh  # noqa: F401  (a test cell imports `fresh` from here)
from workbook.link.codec import is_pydantic
from workbook.link.exc_classes import said
from workbook.probes import Overlap  # noqa: F401  (a test helper, reached as wb.checks.Overlap)


def frames_without(tb: types.TracebackType | None, drop) -> types.TracebackType | None:
    """`tb` without the frames `drop(frame)` says to leave out (a new chain; the frames are the same)."""
    kept, out = [], None
    while tb is not None:
        if not drop(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def _shown(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback without the helpers' frames (`__tracebackhide__`) and IPython's own."""
    return frames_without(tb, lambda frame: frame.f_locals.get("__tracebackhide__")
                          or str(frame.f_globals.get("__name__")).startswith("IPython"))


def _render(error: BaseException) -> list[str]:
    """IPython's display of `error`, ending at the test's line or the student's code."""
    shell = sys.modules["IPython"].get_ipython()  # IPython calls this hook, so it is loaded
    try:
        return shell.InteractiveTB.structured_traceback(type(error), error, _shown(error.__traceback__),
                                                        tb_offset=0)
    except Exception:  # noqa: BLE001 - never hide a failure behind a display bug: the usual display
        return shell.InteractiveTB.structured_traceback(type(error), error, error.__traceback__)


def failure(message: str) -> AssertionError:
    """The AssertionError a helper raises: in a notebook its traceback ends in the test, not here."""
    error = AssertionError(message)
    error._render_traceback_ = functools.partial(_render, error)  # type: ignore[attr-defined]
    return error


class CappedClient:
    """Wraps a client: chat.completions.create passes through at most `cap` times, then fails.
    Old name, kept until the chapters stop using it: prefer `llm.client(max_calls=cap)`."""

    LINK_DATA = ("chat",)

    def __init__(self, client, cap: int, hint: str = "does the loop stop at max_steps?"):
        self.client, self.cap, self.hint, self.n = client, cap, hint, 0
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        __tracebackhide__ = True  # the failure shows the student's call of the model, not this line
        self.n += 1
        if self.n > self.cap:  # a loop without a limit fails the test instead of hanging it
            raise failure(f"the model was called more than {self.cap} times: {self.hint}")
        return self.client.chat.completions.create(**kwargs)


def equal(actual, expected, what: str = "the result", hint: str = "") -> None:
    """Assert `actual == expected`, with the same plain types all the way down (no look-alikes); a
    wrong part is named after the whole: "... should be (None, 1), got ('x', 1): item [0] ...", or
    alone when the whole is long: "messages: item [2]['content'] should be 'x', got 'y'"."""
    __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
    message = mismatch(actual, expected, what)
    if message:
        raise failure(message + (f" — {hint}" if hint else ""))


def is_type(value, types_, what: str = "the result") -> None:
    """Assert `value` is an instance of `types_` (a type or a tuple of types)."""
    __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
    if not isinstance(value, types_):
        names = " or ".join(t.__name__ for t in (types_ if isinstance(types_, tuple) else (types_,)))
        if with_article(names).startswith("an "):  # whole templates, so a catalog can drop the article
            raise failure(f"{what} should be an {names}, got {type(value).__name__} {short(value, 80)}")
        raise failure(f"{what} should be a {names}, got {type(value).__name__} {short(value, 80)}")


def kind(value) -> str | None:
    """The name of a record's class: a dataclass instance's or a pydantic model's; graded, a record
    of the notebook's that the test has no class for crosses as data that carries that name (the
    kernel's word for it: workbook/link/kernel_objects.py, `Record`). None for anything else."""
    said_kind = getattr(type(value), "__record_kind__", None)
    if callable(said_kind):
        return said_kind(value)
    plain_record = dataclasses.is_dataclass(value) and not isinstance(value, type)
    return type(value).__name__ if plain_record or is_pydantic(value) else None


def expect(condition, message: str) -> None:
    """Assert `condition` with a message that tells the student what to fix."""
    __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
    if not condition:
        raise failure(message)


def error_text(observation, what: str = "the observation") -> str:
    """The text of an error observation, the JSON text `{"error": "..."}` (docs/CHAPTERS.md,
    glossary); an AssertionError naming `what` when the observation is anything else."""
    __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
    try:
        data = json.loads(observation) if type(observation) is str else None
    except (ValueError, RecursionError):
        data = None
    if type(data) is not dict or type(data.get("error")) is not str or not data["error"].strip():
        raise failure(f'{what} should be an error observation, the JSON text {{"error": "..."}}, '
                             f"got {short(observation, 160)}")
    return data["error"]


_PASS_THROUGH = (NotImplementedError, AssertionError)  # unfinished work, a test's own assert


class _Block:
    """A context manager written as a class: no contextlib frames in a student's traceback."""

    def __enter__(self):
        return self


class raises(_Block):
    """Assert the block raises `exc_type` (with the regex `match` searched in its message); a
    NotImplementedError passes through unless it is what the block should raise."""

    def __init__(self, exc_type, match: str | None = None, what: str = "the call"):
        self.exc_type, self.match, self.what = exc_type, match, what

    def __exit__(self, typ, e, tb):
        __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
        name = self.exc_type.__name__
        if typ is None:
            raise failure(f"{self.what} should raise {name}, but it returned normally")
        if issubclass(typ, NotImplementedError) and not issubclass(self.exc_type, NotImplementedError):
            return False
        if issubclass(typ, self.exc_type):
            if self.match is not None and not re.search(self.match, str(e)):
                raise failure(f"{self.what} raised {said(typ, e, '{name}({repr})')}, but the message "
                                     f"should mention {self.match!r}").with_traceback(tb and tb.tb_next) from None
            return True
        if issubclass(typ, Exception):  # with the error's own frames: where the student's code failed
            raise failure(f"{self.what} should raise {name}, it raised {said(typ, e)}"
                                 ).with_traceback(tb and tb.tb_next) from None
        return False


class no_raise(_Block):
    """Assert the block raises nothing: an exception becomes an AssertionError naming `what`.
    NotImplementedError, AssertionError and the types in `allow` (the refusals an exercise promises,
    e.g. PermissionError) pass through unchanged."""

    def __init__(self, what: str = "the call", hint: str = "", allow: tuple = ()):
        self.what, self.hint, self.allow = what, hint, _PASS_THROUGH + tuple(allow)

    def __exit__(self, typ, e, tb):
        __tracebackhide__ = True  # IPython hides this frame unless it is the innermost one
        if typ is None or issubclass(typ, self.allow) or not issubclass(typ, Exception):
            return False
        raise failure(f"{self.what} raised {said(typ, e)}" + (f" — {self.hint}" if self.hint else "")
                             ).with_traceback(tb and tb.tb_next) from None  # frames below the block: where it failed
