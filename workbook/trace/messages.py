"""Build a trajectory from an OpenAI-format message list (what a loop keeps anyway), or from a
Responses API conversation (items), read as the same messages."""

from __future__ import annotations

import json

from workbook.engine.responses_items import to_messages as items_as_messages
from workbook.engine.tokens import prompt_tokens, tokens
from workbook.engine.turns import text_of
from workbook.trace.model import Call, Step, Summary, Trajectory, preview

NO_ANSWER = "STOPPED: the messages end without a final answer"


def from_messages(messages, tools=None, status: str | None = None) -> Trajectory:
    """One step per assistant turn; tool results attached by tool_call_id as previews.

    A message list records no usage, so tokens are estimated with the fake model's rule
    (one token per 4 characters of JSON; pass the `tools` that were sent for exact fake counts)
    and `ms` is unknown (None). `status` overrides the guessed stop status.
    """
    traj = Trajectory(source="<messages>")
    if isinstance(messages, (str, bytes, dict)) or not hasattr(messages, "__iter__"):
        traj.problems.append(f"from_messages needs a list of messages, got {type(messages).__name__}"
                             " (for a JSONL file or text use read_jsonl)")
        return traj
    messages, problem = _items_read(list(messages))
    if problem:
        traj.problems.append(problem)
    msgs = []
    for n, m in enumerate(messages, start=1):
        d = _as_dict(m)
        if d is None or not isinstance(d.get("role"), str):
            traj.problems.append(f"message {n}: not a message (a dict with a 'role'), "
                                 f"got {str(m)[:60]!r}; skipped")
            continue
        msgs.append(d)
    results = {m.get("tool_call_id"): m.get("content") for m in msgs if m["role"] == "tool"}
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        sent = msgs[:i]
        asked = m.get("tool_calls")
        calls = [_call(tc, results) for tc in asked] if isinstance(asked, (list, tuple)) else []
        reasoning = m.get("reasoning_content")
        # With tool calls, any text beside them is the model thinking aloud; without, it is the answer.
        thought = reasoning or ((m.get("content") or None) if calls else None)
        replied = {k: m.get(k) for k in ("content", "tool_calls", "reasoning_content")}
        step = Step(len(traj.steps) + 1, thought, tokens_in=prompt_tokens(sent, tools),
                    tokens_out=tokens(replied), ms=None, messages=sent)
        if calls:
            first, *rest = calls
            step.tool, step.input, step.result_preview = first.tool, first.input, first.result_preview
            step.more_calls = rest
        traj.steps.append(step)
    last = msgs[-1] if msgs else None
    finished = last is not None and last["role"] == "assistant" and not last.get("tool_calls")
    tin, tout = traj.totals()
    traj.summary = Summary(status or ("done" if finished else NO_ANSWER), len(traj.steps), tin, tout,
                           tin + tout, text_of(last.get("content")) if finished else None)
    if not traj.steps:
        traj.problems.append("no assistant turn in the messages: nothing to show as steps")
    return traj


ITEMS = ("function_call", "function_call_output", "reasoning")


def _items_read(given: list) -> tuple[list, str | None]:
    """A Responses conversation (items: function_call, function_call_output, reasoning, messages)
    as messages; a message list as it is. Reasoning items have no message and are left out."""
    dicts = [_as_dict(m) for m in given]
    if not any(d is not None and d.get("type") in ITEMS for d in dicts):
        return given, None
    try:
        return items_as_messages(None, [d for d in dicts if d is not None]), None
    except (KeyError, TypeError, AttributeError) as e:
        return given, f"items that could not be read as a Responses conversation ({type(e).__name__}: {e})"


def _as_dict(m) -> dict | None:
    """A message as a plain dict; SDK message objects are dumped the way they are sent."""
    if isinstance(m, dict):
        return m
    if hasattr(m, "model_dump"):
        return m.model_dump(exclude_none=True)
    return None


def _call(tc, results: dict) -> Call:
    tc = _as_dict(tc) or {}
    fn = tc.get("function") or {}
    raw = fn.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = raw  # arguments that are not JSON are shown as the model sent them
    return Call(fn.get("name"), args, preview(results.get(tc.get("id"))))


