"""A trajectory as a table (plain text and HTML), its token growth, and a plot of it.

Everything here takes a Trajectory (workbook.trace.model) and reads only its attributes, so this
module sits below the model, which shows itself with `table()`. Turning a path or a message list
into a Trajectory happens once, in the public functions of workbook.trace.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import NamedTuple

from workbook.trace import plot

COLUMNS = {  # row key -> heading and the widest a plain-text cell may get
    "step": ("step", 4), "thought": ("thought", 24), "tool": ("tool", 14), "input": ("input", 28),
    "result_preview": ("result preview", 28), "tokens_in": ("tokens in", 9),
    "tokens_out": ("tokens out", 10), "ms": ("ms", 7), "status": ("status", 18),
}


def fmt(value) -> str:
    """One cell's text: JSON for objects, "" for null, numbers without noise."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.1f}".rstrip("0").rstrip(".")
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def step_status(step, last: bool, traj) -> str:
    """What one step amounted to: ok, error, no result, a text reply, or the stop status."""
    if last and traj.summary is not None and (step.tool is None or traj.status != "done"):
        return traj.status
    if step.tool is None:
        return "text reply"
    previews = [c.result_preview for c in step.calls]
    if any(p is None for p in previews):
        return "no result"
    return "error" if any(p.lstrip().startswith("ERROR") for p in previews) else "ok"


@dataclass(frozen=True)
class Table:
    """Rows of a trajectory (one per tool call), shown as plain text or HTML."""

    rows: tuple[dict, ...]
    footer: str
    problems: tuple[str, ...] = ()

    def columns(self) -> list[str]:
        """The column keys; "extra" appears only when some step has unknown fields."""
        return list(COLUMNS) + (["extra"] if any(r.get("extra") for r in self.rows) else [])

    def text(self) -> str:
        """Fixed-width plain text; long cells are cut with "…"."""
        cols = self.columns()
        cells = [[fmt(r.get(c)).replace("\n", " ") for c in cols] for r in self.rows]
        heads = [COLUMNS.get(c, (c, 30))[0] for c in cols]
        widths = [min(max([len(h)] + [len(row[i]) for row in cells]), COLUMNS.get(c, (c, 30))[1])
                  for i, (c, h) in enumerate(zip(cols, heads, strict=True))]

        def line(values):
            return "  ".join(_cut(v, w).ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

        out = [line(heads), line("-" * w for w in widths), *map(line, cells), "", self.footer]
        if self.problems:
            out += ["", "Problems:", *(f"  - {p}" for p in self.problems)]
        return "\n".join(out)

    def html(self) -> str:
        """An HTML table with the footer and any problems under it."""
        cols = self.columns()
        head = "".join(f"<th>{html.escape(COLUMNS.get(c, (c, 0))[0])}</th>" for c in cols)
        body = "".join("<tr>" + "".join(_td(c, r.get(c)) for c in cols) + "</tr>" for r in self.rows)
        out = (f'<table class="wb-trace-table"><thead><tr>{head}</tr></thead>'
               f"<tbody>{body}</tbody></table><p>{html.escape(self.footer)}</p>")
        return out + problems_html(self.problems)

    __str__ = text

    def _repr_html_(self) -> str:
        return self.html()


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _td(col: str, value) -> str:
    text = html.escape(fmt(value))
    if col in ("input", "extra") and value is not None:
        text = f"<code>{text}</code>"
    align = ' style="text-align:right"' if col in ("step", "tokens_in", "tokens_out", "ms") else ""
    return f"<td{align}>{text}</td>"


def problems_html(problems) -> str:
    """The problems as a warning list ("" when there are none)."""
    if not problems:
        return ""
    items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
    return f'<div class="wb-trace-problems" style="color:#9a6700"><b>Problems:</b><ul>{items}</ul></div>'


def footer(traj) -> str:
    """One line: steps, stop status, tokens, answer."""
    tin, tout = traj.totals()
    answer = traj.answer
    said = f" · answer: {answer}" if answer else ""
    return (f"{len(traj.steps)} step(s) · {traj.status} · tokens: {tin} in + {tout} out = "
            f"{tin + tout}{said}")


def table(traj) -> Table:
    """The trajectory's rows: step, thought, tool, input, result preview, tokens, ms, status."""
    rows = []
    for i, s in enumerate(traj.steps):
        status = step_status(s, i == len(traj.steps) - 1, traj)
        row = {"step": s.step, "thought": s.thought, "tool": s.tool, "input": s.input,
               "result_preview": s.result_preview, "tokens_in": s.tokens_in,
               "tokens_out": s.tokens_out, "ms": s.ms, "status": status, "extra": s.extra or None}
        rows.append(row)
        # A parallel step's other calls get rows of their own under it; the cost is the step's.
        rows += [{"tool": c.tool, "input": c.input, "result_preview": c.result_preview}
                 for c in s.more_calls]
    return Table(tuple(rows), footer(traj), tuple(traj.problems))


class Growth(NamedTuple):
    """Prompt size at one step, how much it grew, and what the run has cost so far."""

    step: int
    tokens_in: int
    added: int  # this prompt minus the previous one: the history the next call re-sends
    total: int  # tokens in + out of every step up to this one


def token_growth(traj) -> list[Growth]:
    """Per step: prompt tokens, growth over the previous prompt, running total (unread counts as 0)."""
    out, before, total = [], 0, 0
    for n, s in enumerate(traj.steps, start=1):
        tin = s.tokens_in or 0
        total += tin + (s.tokens_out or 0)
        out.append(Growth(s.step or n, tin, tin - before, total))
        before = tin
    return out


def plot_tokens(traj, title: str = "Prompt tokens per step"):
    """A small bar chart of prompt tokens per step, with the running total; returns the Figure."""
    return plot.plot(token_growth(traj), title)
