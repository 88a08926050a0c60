"""The step-through viewer widget (ipywidgets), with its plain-text and HTML fallbacks."""

from __future__ import annotations

import html
import json

from workbook.display import widgets_ok
from workbook.engine.turns import text_of
from workbook.trace.model import Step, Trajectory
from workbook.trace.reader import as_trajectory
from workbook.trace.render import fmt, footer, problems_html, step_status, table

_ROLE_COLOURS = {"system": "#6e7781", "user": "#0969da", "assistant": "#8250df", "tool": "#1a7f37"}
# Long message lists scroll inside the output instead of pushing the buttons off screen.
_CSS = """<style>
.wb-trace-messages pre, .wb-trace-step pre {white-space: pre-wrap; margin: 2px 0 6px 0;}
.wb-trace-messages {max-height: 420px; overflow-y: auto;}
</style>"""


def running_total(traj: Trajectory, index: int) -> int:
    """Tokens in + out of steps 1..index+1: what the run had cost after that step."""
    return sum((s.tokens_in or 0) + (s.tokens_out or 0) for s in traj.steps[: index + 1])


def _call_text(tool, args) -> str:
    shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return f"{tool}({'' if args is None else shown})"


def step_fields(traj: Trajectory, index: int) -> list[tuple[str, str]]:
    """(label, text) pairs describing one step, shared by the widget and the fallbacks."""
    s = traj.steps[index]
    last = index == len(traj.steps) - 1
    out = [("Status", step_status(s, last, traj))]
    if s.thought:
        out.append(("Thought", s.thought))
    for c in s.calls:
        out.append(("Tool call", _call_text(c.tool, c.input)))
        out.append(("Tool result", "(no result recorded)" if c.result_preview is None
                    else c.result_preview))
    if s.tool is None and last and traj.answer is not None:
        out.append(("Answer", traj.answer))
    out.append(("Tokens", f"{fmt(s.tokens_in) or '?'} in + {fmt(s.tokens_out) or '?'} out"))
    out.append(("Running total", f"{running_total(traj, index)} tokens after step {s.step or index + 1}"))
    if s.ms is not None:
        out.append(("Time", f"{fmt(s.ms)} ms"))
    for key, value in s.extra.items():  # unknown fields: shown, never dropped
        out.append((key, fmt(value)))
    return out


def _message_lines(m: dict) -> tuple[str, list[str]]:
    """A message's label ("tool call_1") and its text lines."""
    role = str(m.get("role", "?"))
    label = role + (f" {m['tool_call_id']}" if m.get("tool_call_id") else "")
    lines = []
    if m.get("reasoning_content"):
        lines.append(f"(thinking) {m['reasoning_content']}")
    content = text_of(m.get("content"))
    if content:
        lines.append(str(content))
    calls = m.get("tool_calls")
    for tc in calls if isinstance(calls, list) else ():
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):  # a hand-written file may hold anything here: show it as is
            lines.append(f"→ {json.dumps(tc, ensure_ascii=False)}")
            continue
        lines.append(f"→ {fn.get('name')}({fn.get('arguments', '')})  [{tc.get('id', '')}]")
    return label, lines or ["(empty)"]


def messages_text(step: Step) -> str:
    """The messages sent at this step, one block per message."""
    if not step.messages:
        return "(no messages recorded for this step)"
    blocks = []
    for m in step.messages:
        label, lines = _message_lines(m)
        blocks.append(f"[{label}] " + "\n    ".join(lines))
    return "\n".join(blocks)


def records_messages(traj: Trajectory) -> bool:
    """Does this trajectory's format record the messages at all? If not, the viewer says nothing
    about them (a missing field is no fault of the log)."""
    return any(s.messages is not None for s in traj.steps)


def messages_html(step: Step) -> str:
    if not step.messages:
        return "<i>No messages recorded for this step.</i>"
    out = [f"<b>Messages sent at this step ({len(step.messages)}):</b>"]
    for m in step.messages:
        label, lines = _message_lines(m)
        colour = _ROLE_COLOURS.get(str(m.get("role")), "#24292f")
        out.append(f'<div><span style="color:{colour};font-weight:bold">{html.escape(label)}</span>'
                   f"<pre>{html.escape(chr(10).join(lines))}</pre></div>")
    return "".join(out)


def step_html(traj: Trajectory, index: int) -> str:
    """One step's fields as HTML; results and answers keep their line breaks."""
    rows = []
    for label, text in step_fields(traj, index):
        body = f"<pre>{html.escape(text)}</pre>" if label in ("Tool result", "Answer") else (
            " " + html.escape(text))
        rows.append(f"<div><b>{html.escape(label)}:</b>{body}</div>")
    return "".join(rows)


def plain(traj) -> str:
    """The whole trajectory as text: the table, then every step with its messages."""
    traj = as_trajectory(traj)
    out = [table(traj).text()]
    for i, s in enumerate(traj.steps):
        out += ["", f"=== Step {s.step or i + 1} of {len(traj.steps)} ==="]
        out += [f"{k}: {v}" for k, v in step_fields(traj, i)]
        out += ["Messages sent at this step:", messages_text(s)] if records_messages(traj) else []
    return "\n".join(out)


def to_html(traj) -> str:
    """The whole trajectory as HTML: the table, then each step folded in a <details>."""
    traj = as_trajectory(traj)
    out, shown = [_CSS, table(traj).html()], records_messages(traj)
    for i, s in enumerate(traj.steps):
        out.append(f"<details><summary>Step {s.step or i + 1}: {html.escape(fmt(s.tool) or 'reply')}"
                   f"</summary>{step_html(traj, i)}{messages_html(s) if shown else ''}</details>")
    return "".join(out)


class Viewer:
    """The step-through widget: previous/next, a step counter, the step and its messages."""

    def __init__(self, traj):
        import ipywidgets as w

        self.trajectory = traj = as_trajectory(traj)
        self.index = 0
        self.prev = w.Button(description="◀ Previous", tooltip="previous step")
        self.next = w.Button(description="Next ▶", tooltip="next step")
        self.counter = w.HTML()
        self.detail = w.HTML()
        self.messages = w.HTML()
        for widget, name in ((self.prev, "prev"), (self.next, "next"), (self.counter, "counter"),
                             (self.detail, "step"), (self.messages, "messages")):
            widget.add_class(f"wb-trace-{name}")
        self.prev.on_click(lambda _b: self.go(self.index - 1))
        self.next.on_click(lambda _b: self.go(self.index + 1))
        head = w.HTML(f"{_CSS}<h3>Trajectory</h3><p>{html.escape(footer(traj))}</p>"
                      + problems_html(traj.problems))
        nav = w.HBox([self.prev, self.counter, self.next])
        self.widget = w.VBox([head, nav, self.detail, self.messages])
        self.widget.add_class("wb-trace")
        self.go(0)

    def go(self, index: int) -> None:
        """Show step number index+1 (clamped to the steps there are)."""
        n = len(self.trajectory.steps)
        self.index = max(0, min(index, n - 1))
        self.prev.disabled = self.index <= 0
        self.next.disabled = self.index >= n - 1
        if not n:
            self.counter.value = "<b>No steps</b>"
            self.detail.value = "<i>Nothing could be read as a step; see the problems above.</i>"
            self.messages.value = ""
            return
        self.counter.value = f"<b>Step {self.index + 1} of {n}</b>"
        self.detail.value = step_html(self.trajectory, self.index)
        step = self.trajectory.steps[self.index]
        self.messages.value = messages_html(step) if records_messages(self.trajectory) else ""

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        # Where widgets do not render (a saved notebook, nbgrader feedback) the fallbacks show.
        bundle["text/plain"] = plain(self.trajectory)
        bundle["text/html"] = to_html(self.trajectory)
        return bundle


def viewer(traj) -> Viewer:
    """Build the step-through viewer (what tests drive with .next.click())."""
    return Viewer(traj)


def view(traj, plain_text: bool | None = None) -> None:
    """Show a trajectory to step through: widgets in a notebook, text/HTML elsewhere."""
    traj = as_trajectory(traj)
    if plain_text is None:
        plain_text = not widgets_ok()
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = lambda: None  # noqa: E731
    if get_ipython() is None:
        print(plain(traj))
        return
    from IPython.display import display

    if plain_text:
        display({"text/plain": plain(traj), "text/html": to_html(traj)}, raw=True)
    else:
        display(viewer(traj)._repr_mimebundle_(), raw=True)
