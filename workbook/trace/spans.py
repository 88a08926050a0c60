"""Spans as plain data, a span tree to look at, and a trajectory turned into spans and back.

    from workbook.trace import spans
    spans.tree(recorder.spans())          # agent -> model calls -> tool calls, ms and tokens
    run = spans.from_trajectory(traj, content=True)   # a JSONL trajectory as GenAI spans
    spans.to_trajectory(run)              # and back: the same steps and summary

A span is a dict (what `otel.as_dict` makes of an SDK span): name, trace_id (32 hex), span_id
(16 hex), parent_id (16 hex or None), kind, start_ns, end_ns, attributes, status ("UNSET", "OK"
or "ERROR"), status_description and events. One step of a trajectory is one `chat {model}` span
whose children are the `execute_tool {name}` spans of its reply; a run is an `invoke_agent` span.
Messages go in the conventions' shape (`to_parts`, `from_parts`: workbook.trace.parts).
"""

from __future__ import annotations

import hashlib
import html
import json

from workbook.trace import genai
from workbook.trace.model import Call, Step, Summary, Trajectory
from workbook.trace.parts import from_parts, to_parts
from workbook.trace.reader import as_trajectory

EPOCH_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z: where a converted trajectory starts
KINDS = ("INTERNAL", "CLIENT", "SERVER", "PRODUCER", "CONSUMER")
STATUSES = ("UNSET", "OK", "ERROR")


def span(name, trace_id, span_id, parent_id=None, *, kind="INTERNAL", start_ns=0, end_ns=0,
         attributes=None, status="UNSET", status_description=None, events=()) -> dict:
    """One span as a dict, checked: a test or a converter builds spans with this."""
    for what, value, n in (("trace_id", trace_id, 32), ("span_id", span_id, 16)):
        if not (isinstance(value, str) and len(value) == n and all(c in "0123456789abcdef" for c in value)):
            raise ValueError(f"{what} must be {n} lowercase hex digits, got {value!r}")
    if kind not in KINDS or status not in STATUSES:
        raise ValueError(f"kind must be one of {KINDS} and status one of {STATUSES}")
    if not (type(start_ns) is int and type(end_ns) is int and 0 <= start_ns <= end_ns):
        raise ValueError("start_ns and end_ns must be whole nanoseconds, start first")
    return {"name": str(name), "trace_id": trace_id, "span_id": span_id, "parent_id": parent_id,
            "kind": kind, "start_ns": start_ns, "end_ns": end_ns, "attributes": dict(attributes or {}),
            "status": status, "status_description": status_description,
            "events": [dict(e) for e in events]}


_FIELDS = {"name": (str,), "trace_id": (str,), "span_id": (str,), "parent_id": (str, type(None)),
           "kind": (str,), "start_ns": (int,), "end_ns": (int,), "attributes": (dict,),
           "status": (str,), "status_description": (str, type(None)), "events": (list,)}
_VALUES = (str, bool, int, float)


def _fail(message: str) -> AssertionError:
    return AssertionError(message)


def checked(found, what: str = "the spans") -> list[dict]:
    """Spans read back from a recorder, checked to be plain span dicts (for test cells): a list of
    dicts with exactly the span fields, each of its plain type, attribute values plain data.
    Anything else is an AssertionError naming `what`."""
    if type(found) is not list:
        raise _fail(f"{what} must be a list of span dicts, got {type(found).__name__}")
    for i, s in enumerate(found):
        if type(s) is not dict or set(s) != set(_FIELDS):
            raise _fail(f"{what}[{i}] must be a span dict with the fields {sorted(_FIELDS)}")
        for key, types in _FIELDS.items():
            if type(s[key]) not in types:
                raise _fail(f"{what}[{i}][{key!r}] must be {' or '.join(t.__name__ for t in types)}, "
                            f"got {type(s[key]).__name__}")
        for key, value in s["attributes"].items():
            items = value if type(value) is list else [value]
            if type(key) is not str or not all(type(v) in _VALUES for v in items):
                raise _fail(f"{what}[{i}]: attribute {key!r} is not plain data: {value!r}"[:300])
        if not all(type(e) is dict and type(e.get("name")) is str for e in s["events"]):
            raise _fail(f"{what}[{i}]: each event must be a dict with a name")
    return found


def ms(s: dict) -> float:
    """A span's duration in milliseconds."""
    return (s["end_ns"] - s["start_ns"]) / 1e6


def children(spans: list[dict], parent: dict) -> list[dict]:
    """The spans whose parent is `parent`, earliest first (ties keep the list's order)."""
    kids = [s for s in spans if s["parent_id"] == parent["span_id"] and s["trace_id"] == parent["trace_id"]]
    return sorted(kids, key=lambda s: s["start_ns"])


def roots(spans: list[dict]) -> list[dict]:
    """The spans with no parent among these spans (a run's agent span; an orphan too)."""
    known = {(s["trace_id"], s["span_id"]) for s in spans}
    return sorted((s for s in spans if (s["trace_id"], s["parent_id"]) not in known),
                  key=lambda s: s["start_ns"])


# ---- the span tree ----------------------------------------------------------------------------

class Tree:
    """A span tree as lines of text; shows as text in a notebook (and `str(tree)`)."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def text(self) -> str:
        return "\n".join(self.lines)

    __str__ = text

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text())}</pre>"


def _label(s: dict, times: bool) -> str:
    a = s["attributes"]
    bits = [s["name"]]
    if s["kind"] != "INTERNAL":
        bits.append(s["kind"])
    if times:
        bits.append(f"{ms(s):.1f} ms")
    if genai.INPUT_TOKENS in a or genai.OUTPUT_TOKENS in a:
        bits.append(f"in {a.get(genai.INPUT_TOKENS, '?')} · out {a.get(genai.OUTPUT_TOKENS, '?')}")
    if genai.FINISH_REASONS in a:
        bits.append("→ " + ",".join(map(str, a[genai.FINISH_REASONS])))
    if genai.STOP_STATUS in a:
        bits.append(str(a[genai.STOP_STATUS]))
    if s["status"] == "ERROR":
        bits.append(f"ERROR {a.get(genai.ERROR_TYPE, s.get('status_description') or '')}".rstrip())
    return "  ".join(bits)


def tree(source, times: bool = True) -> Tree:
    """The span tree of spans (a list of span dicts, a Recorder) or of a trajectory (any form
    workbook.trace reads): each run's agent span, its model calls, their tool calls; times=False
    leaves the durations out (for output that must not change between runs)."""
    if hasattr(source, "spans") and callable(source.spans):
        source = source.spans()
    if not (isinstance(source, list) and all(isinstance(s, dict) and "span_id" in s for s in source)):
        source = from_trajectory(as_trajectory(source))
    lines: list[str] = []
    known = {(s["trace_id"], s["span_id"]) for s in source}

    def walk(s: dict, lead: str, last: bool, top: bool) -> None:
        branch = "" if top else ("└─ " if last else "├─ ")
        note = ""
        if top and s["parent_id"] is not None and (s["trace_id"], s["parent_id"]) not in known:
            note = f"  (its parent {s['parent_id'][:8]}… is not among these spans)"
        lines.append(lead + branch + _label(s, times) + note)
        kids = children(source, s)
        deeper = lead if top else lead + ("   " if last else "│  ")
        for i, kid in enumerate(kids):
            walk(kid, deeper, i == len(kids) - 1, False)

    for r in roots(source):
        walk(r, "", True, True)
    return Tree(lines or ["(no spans)"])


# ---- a trajectory as spans, and back ----------------------------------------------------------

def _ids(seed: str):
    """Span ids made from a seed: the same trajectory always gives the same ids."""
    n = 0
    while True:
        n += 1
        yield hashlib.sha256(f"{seed}:{n}".encode()).hexdigest()[:16]


def _call_ids(traj: Trajectory, index: int) -> list:
    """The ids of step `index`'s tool calls, read from the next step's messages when recorded."""
    if index + 1 < len(traj.steps):
        for m in reversed(traj.steps[index + 1].messages or []):
            if m.get("role") == "assistant" and m.get("tool_calls"):
                return [c.get("id") for c in m["tool_calls"]]
    return []


def from_trajectory(traj, *, model: str = "fake-model", provider: str = genai.OPENAI,
                    agent: str = "agent", conversation_id: str | None = None,
                    content: bool = False, start_ns: int = EPOCH_NS) -> list[dict]:
    """A trajectory as the spans of one run: invoke_agent, one `chat {model}` per step (its `ms`
    is the span's duration), one `execute_tool {name}` per tool call under it. With
    content=False no thought, input, result, message or answer is copied."""
    traj = as_trajectory(traj)
    seed = json.dumps([[vars(s) | {"more_calls": [vars(c) for c in s.more_calls]} for s in traj.steps],
                       vars(traj.summary) if traj.summary else None], sort_keys=True, default=str)
    trace_id = hashlib.sha256(seed.encode()).hexdigest()[:32]
    ids = _ids(trace_id)
    root_id, out, clock = next(ids), [], start_ns
    for i, st in enumerate(traj.steps):
        chat_id = next(ids)
        attrs = {genai.OPERATION_NAME: genai.CHAT, genai.PROVIDER_NAME: provider,
                 genai.REQUEST_MODEL: model, genai.RESPONSE_MODEL: model, genai.STEP: st.step or i + 1,
                 genai.FINISH_REASONS: ["tool_calls" if st.calls else "stop"]}
        if st.tokens_in is not None:
            attrs[genai.INPUT_TOKENS] = st.tokens_in
        if st.tokens_out is not None:
            attrs[genai.OUTPUT_TOKENS] = st.tokens_out
        ids_of_calls = _call_ids(traj, i)
        if content:
            if st.messages is not None:
                attrs[genai.INPUT_MESSAGES] = json.dumps(to_parts(st.messages))
            reply = {"role": "assistant", "content": st.thought, "tool_calls": [
                {"id": ids_of_calls[j] if j < len(ids_of_calls) else None,
                 "function": {"name": c.tool, "arguments": c.input}} for j, c in enumerate(st.calls)]}
            attrs[genai.OUTPUT_MESSAGES] = json.dumps(to_parts([reply]))
        end = clock + round((st.ms or 0) * 1e6)
        out.append(span(f"chat {model}", trace_id, chat_id, root_id, kind="CLIENT", start_ns=clock,
                        end_ns=end, attributes=attrs))
        for j, c in enumerate(st.calls):
            tool_attrs = {genai.OPERATION_NAME: genai.EXECUTE_TOOL, genai.TOOL_NAME: c.tool,
                          genai.TOOL_CALL_ID: ids_of_calls[j] if j < len(ids_of_calls) else f"call_{i + 1}_{j + 1}"}
            failed = _is_error(c.result_preview)
            if failed:
                tool_attrs[genai.ERROR_TYPE] = "error_observation"
            if content:
                tool_attrs[genai.TOOL_CALL_ARGUMENTS] = json.dumps(c.input)
                tool_attrs[genai.TOOL_CALL_RESULT] = json.dumps(c.result_preview)
            out.append(span(f"execute_tool {c.tool}", trace_id, next(ids), chat_id, start_ns=end,
                            end_ns=end, attributes=tool_attrs, status="ERROR" if failed else "UNSET"))
        clock = end
    root = {genai.OPERATION_NAME: genai.INVOKE_AGENT, genai.AGENT_NAME: agent, genai.PROVIDER_NAME: provider}
    if conversation_id is not None:
        root[genai.CONVERSATION_ID] = conversation_id
    if traj.summary is not None and traj.summary.status is not None:
        root[genai.STOP_STATUS] = traj.summary.status
    if content and traj.summary is not None and traj.summary.answer is not None:
        root[genai.OUTPUT_MESSAGES] = json.dumps(to_parts([{"role": "assistant", "content": traj.summary.answer}]))
    return [span(f"invoke_agent {agent}", trace_id, root_id, start_ns=start_ns, end_ns=clock,
                 attributes=root)] + out


def _is_error(preview) -> bool:
    try:
        value = json.loads(preview) if isinstance(preview, str) else None
    except ValueError:
        return False
    return isinstance(value, dict) and isinstance(value.get("error"), str)


def _loads(text, default=None):
    return json.loads(text) if isinstance(text, str) else default


def to_trajectory(spans: list[dict]) -> Trajectory:
    """The spans of one run back as a Trajectory: a step per model call, in order, with the tool
    calls under it; content (thought, input, result, messages, answer) where it was recorded."""
    agents = [s for s in roots(spans) if s["attributes"].get(genai.OPERATION_NAME) == genai.INVOKE_AGENT]
    if len(agents) != 1:
        raise ValueError(f"to_trajectory takes the spans of one run (one invoke_agent span at the "
                         f"top), got {len(agents)}")
    root, steps = agents[0], []
    chats = [s for s in children(spans, root) if s["attributes"].get(genai.OPERATION_NAME) == genai.CHAT]
    for n, chat in enumerate(chats, start=1):
        a = chat["attributes"]
        calls = []
        for tool in children(spans, chat):
            t = tool["attributes"]
            calls.append(Call(t.get(genai.TOOL_NAME), _loads(t.get(genai.TOOL_CALL_ARGUMENTS)),
                              _loads(t.get(genai.TOOL_CALL_RESULT))))
        reply = _loads(a.get(genai.OUTPUT_MESSAGES), [])
        thought = next((p.get("content") for m in reply for p in m.get("parts", []) if p.get("type") == "text"), None)
        messages = _loads(a.get(genai.INPUT_MESSAGES))
        first = calls[0] if calls else Call(None)
        steps.append(Step(a.get(genai.STEP, n), thought, first.tool, first.input, first.result_preview,
                          a.get(genai.INPUT_TOKENS), a.get(genai.OUTPUT_TOKENS), ms(chat),
                          from_parts(messages) if messages is not None else None, more_calls=calls[1:]))
    answer = _loads(root["attributes"].get(genai.OUTPUT_MESSAGES), [])
    tin = sum(s.tokens_in or 0 for s in steps)
    tout = sum(s.tokens_out or 0 for s in steps)
    summary = Summary(root["attributes"].get(genai.STOP_STATUS), len(steps), tin, tout, tin + tout,
                      from_parts(answer)[0].get("content") if answer else None)
    return Trajectory(steps, summary, source=root["name"])


__all__ = ["EPOCH_NS", "Tree", "checked", "children", "from_parts", "from_trajectory", "ms", "roots",
           "span", "to_parts", "to_trajectory", "tree"]
