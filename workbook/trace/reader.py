"""Read a JSONL trajectory; bad content becomes readable problems, never an exception."""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Any

from workbook.engine.protocol import json_kind
from workbook.trace.messages import from_messages
from workbook.trace.model import (
    STEP_FIELDS,
    SUMMARY_FIELDS,
    Call,
    Step,
    Summary,
    Trajectory,
)


def read_jsonl(source) -> Trajectory:
    """Read a trajectory from a path, JSONL text, bytes or an open file; see `.problems`."""
    text, name, problems = _text_of(source)
    traj = Trajectory(source=name, problems=problems)
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        traj.problems.append("the trajectory is empty: no step lines and no summary line")
        return traj
    last = max(n for n, line in enumerate(lines, start=1) if line.strip())
    # A writer that was stopped mid-line leaves a last line without its newline.
    cut_off = not text.endswith(("\n", "\r"))
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue  # blank lines carry nothing; skipping them loses nothing
        where = f"line {n}"
        try:
            obj = json.loads(line)
        except ValueError as e:  # a JSONDecodeError, or e.g. an integer past Python's digit limit
            why = f"{e.msg} at column {e.colno}" if isinstance(e, json.JSONDecodeError) else str(e)
            if n == last and cut_off:
                traj.problems.append(f"{where}: the last line is cut off ({why}); "
                                     "the run may have stopped while writing it")
            else:
                traj.problems.append(f"{where}: not valid JSON ({why})")
            continue
        if not isinstance(obj, dict):
            traj.problems.append(f"{where}: must be a JSON object, got {json_kind(obj)}")
            continue
        if traj.summary is not None:
            traj.problems.append(f"{where}: comes after the summary line "
                                 f"(line {traj.summary.line}); the summary must be last")
        kind = obj.get("type")
        if kind == "step":
            traj.steps.append(_step(obj, where, n, traj.problems))
        elif kind == "summary":
            if traj.summary is not None:
                traj.problems.append(f"{where}: a second summary line; the first one is kept")
            else:
                traj.summary = _summary(obj, where, n, traj.problems)
        elif "type" not in obj:
            traj.problems.append(f"{where}: has no 'type'; expected \"step\" or \"summary\"")
        else:
            traj.problems.append(f"{where}: unknown type {obj['type']!r}; "
                                 "expected \"step\" or \"summary\"")
    traj.problems += _consistency(traj)
    return traj


def as_trajectory(value) -> Trajectory:
    """A Trajectory as it is; a message list through from_messages; anything else through read_jsonl."""
    if isinstance(value, Trajectory):
        return value
    if isinstance(value, (list, tuple)):
        return from_messages(value)
    return read_jsonl(value)


def _text_of(source) -> tuple[str, str, list[str]]:
    """The text to parse, a name for messages, and any problem found while decoding it."""
    if hasattr(source, "read"):
        data, name = source.read(), getattr(source, "name", "<file>")
    elif isinstance(source, (bytes, bytearray)):
        data, name = bytes(source), "<bytes>"
    elif isinstance(source, PurePath) or (isinstance(source, str) and _looks_like_path(source)):
        path: Any = source if hasattr(source, "read_bytes") else Path(source)  # a graded test's KernelPath too
        if not path.is_file():
            raise FileNotFoundError(f"no trajectory file at {str(path)!r}; give a path to a "
                                    ".jsonl file, or the JSONL text itself")
        data, name = path.read_bytes(), path.name
    elif isinstance(source, str):
        data, name = source, "<text>"
    else:
        hint = " (for a message list use from_messages)" if isinstance(source, list) else ""
        raise TypeError(f"read_jsonl takes a path, JSONL text or an open file, "
                        f"not {type(source).__name__}{hint}")
    if isinstance(data, str):
        return data, str(name), []
    try:
        return data.decode("utf-8"), str(name), []
    except UnicodeDecodeError as e:
        return (data.decode("utf-8", errors="replace"), str(name),
                [f"not valid UTF-8 (byte {e.start}); unreadable bytes are shown as �"])


def _looks_like_path(s: str) -> bool:
    # JSONL text always holds a "{" or a newline; a file name never does in practice.
    return bool(s.strip()) and "\n" not in s and not s.lstrip().startswith(("{", "["))


def _is_int(v) -> bool:
    return type(v) is int and v >= 0  # bool is an int subclass; true as a count is a slip


def _is_number(v) -> bool:
    return type(v) in (int, float) and v >= 0


def _str_or_null(v) -> bool:
    return v is None or isinstance(v, str)


# What each field may hold, and how to say it in a message.
_STEP_RULES = {
    "step": (lambda v: _is_int(v) and v >= 1, "a whole number from 1"),
    "thought": (_str_or_null, "a string or null"),
    "tool": (_str_or_null, "a string or null"),
    "input": (lambda v: v is None or isinstance(v, (dict, str)), "an object, a string or null"),
    "result_preview": (_str_or_null, "a string or null"),
    "tokens_in": (_is_int, "a whole number ≥ 0"),
    "tokens_out": (_is_int, "a whole number ≥ 0"),
    "ms": (_is_number, "a number ≥ 0"),
    "messages": (lambda v: isinstance(v, list) and all(isinstance(m, dict) for m in v),
                 "a list of message objects"),
    "calls": (lambda v: isinstance(v, list) and all(isinstance(c, dict) and "tool" in c for c in v),
              "a list of objects with 'tool', 'input' and 'result_preview'"),
}
_SUMMARY_RULES = {
    "status": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "steps": (_is_int, "a whole number ≥ 0"),
    "tokens_in": (_is_int, "a whole number ≥ 0"),
    "tokens_out": (_is_int, "a whole number ≥ 0"),
    "total_tokens": (_is_int, "a whole number ≥ 0"),
    "answer": (_str_or_null, "a string or null"),
}


def _fields(obj: dict, required, rules, what: str, where: str, problems: list[str]) -> dict:
    """The values that pass their rule (others become None), with a problem for each miss."""
    if missing := [k for k in required if k not in obj]:
        problems.append(f"{where}: {what} is missing {', '.join(repr(k) for k in missing)}")
    values = {}
    for key, (ok, expected) in rules.items():
        if key not in obj:
            continue
        if ok(obj[key]):
            values[key] = obj[key]
        else:
            problems.append(f"{where}: {key!r} must be {expected}, got {json.dumps(obj[key])[:60]}")
    return values


def _step(obj: dict, where: str, n: int, problems: list[str]) -> Step:
    v = _fields(obj, STEP_FIELDS, _STEP_RULES, "step", where, problems)
    extra = {k: x for k, x in obj.items() if k not in _STEP_RULES and k != "type"}
    step = Step(v.get("step"), v.get("thought"), v.get("tool"), v.get("input"),
                v.get("result_preview"), v.get("tokens_in"), v.get("tokens_out"), v.get("ms"),
                v.get("messages"), extra=extra, line=n)
    # "calls" lists every call of a parallel step; the top-level fields repeat its first one.
    calls = [Call(c.get("tool"), c.get("input"), c.get("result_preview")) for c in v.get("calls", [])]
    if calls:
        if step.tool is None:
            step.tool, step.input, step.result_preview = calls[0].tool, calls[0].input, calls[0].result_preview
        step.more_calls = calls[1:]
    return step


def _summary(obj: dict, where: str, n: int, problems: list[str]) -> Summary:
    v = _fields(obj, SUMMARY_FIELDS, _SUMMARY_RULES, "summary", where, problems)
    status = v.get("status")
    if status is not None and status != "done" and not status.startswith("STOPPED"):
        problems.append(f"{where}: status {status!r} should be \"done\" or \"STOPPED: <reason>\"")
    extra = {k: x for k, x in obj.items() if k not in _SUMMARY_RULES and k != "type"}
    return Summary(status, v.get("steps"), v.get("tokens_in"), v.get("tokens_out"),
                   v.get("total_tokens"), v.get("answer"), extra, n)


def _consistency(traj: Trajectory) -> list[str]:
    """Problems between lines: step numbering, a missing summary, totals that do not add up."""
    out = []
    expected = 1
    for s in traj.steps:
        if s.step is not None and s.step != expected:
            out.append(f"line {s.line}: step {s.step} where step {expected} was expected "
                       "(a step is missing, repeated or out of order)")
        expected = (s.step or expected) + 1
    summary = traj.summary
    if summary is None:
        if traj.steps:
            out.append("no summary line at the end: the run may not have finished")
        return out
    tin, tout = traj.totals()
    checks = [("steps", summary.steps, len(traj.steps), "there are {} step lines")]
    # Token sums are only comparable when every step's counts could be read.
    if all(s.tokens_in is not None for s in traj.steps):
        checks.append(("tokens_in", summary.tokens_in, tin, "the steps' tokens_in add up to {}"))
    if all(s.tokens_out is not None for s in traj.steps):
        checks.append(("tokens_out", summary.tokens_out, tout, "the steps' tokens_out add up to {}"))
    if summary.tokens_in is not None and summary.tokens_out is not None:
        checks.append(("total_tokens", summary.total_tokens, summary.tokens_in + summary.tokens_out,
                       "its tokens_in + tokens_out make {}"))
    for key, said, counted, what in checks:
        if said is not None and said != counted:
            out.append(f"line {summary.line}: the summary says {key} = {said}, but "
                       + what.format(counted))
    return out
