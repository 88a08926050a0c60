"""What a trajectory is made of: steps, tool calls and a summary (format: docs/TRAJECTORY.md).

Every function of workbook.trace takes one of these; `as_trajectory` (reader) makes one from a
path, JSONL text or a message list, once, at the public entry points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbook.engine.turns import text_of
from workbook.trace.render import table

# Required keys of each line type; anything else on a line is kept in `extra` and shown.
STEP_FIELDS = ("step", "thought", "tool", "input", "result_preview", "tokens_in", "tokens_out", "ms")
SUMMARY_FIELDS = ("status", "steps", "tokens_in", "tokens_out", "total_tokens", "answer")
PREVIEW_CHARS = 200  # a preview is for the eye; the full result lives in the step's messages


@dataclass
class Call:
    """One tool call of a step: the tool's name, its input, and a preview of its result."""

    tool: str | None
    input: object = None  # the arguments as a dict, or the raw string when they were not JSON
    result_preview: str | None = None


@dataclass
class Step:
    """One step: one model call, the tool call(s) it asked for, and what it cost."""

    step: int | None
    thought: str | None = None
    tool: str | None = None  # None: this step's reply was text (normally the final answer)
    input: object = None
    result_preview: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    ms: float | None = None
    messages: list | None = None  # the full message list sent at this step, when recorded
    more_calls: list[Call] = field(default_factory=list)  # parallel calls after the first
    extra: dict = field(default_factory=dict)  # unknown keys, shown as they are
    line: int | None = None  # where it was read from, for messages about it

    @property
    def calls(self) -> list[Call]:
        """Every tool call of this step, in order ([] for a step without a tool call)."""
        first = [Call(self.tool, self.input, self.result_preview)] if self.tool is not None else []
        return first + list(self.more_calls)


@dataclass
class Summary:
    """The last line: how the run ended, the totals, and the final answer."""

    status: str | None
    steps: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    total_tokens: int | None = None
    answer: str | None = None
    extra: dict = field(default_factory=dict)
    line: int | None = None


@dataclass
class Trajectory:
    """A run as steps plus a summary; `problems` says, in words, what could not be read."""

    steps: list[Step] = field(default_factory=list)
    summary: Summary | None = None
    problems: list[str] = field(default_factory=list)
    source: str = "<trajectory>"

    @property
    def ok(self) -> bool:
        """True when every line was read without a problem."""
        return not self.problems

    @property
    def status(self) -> str:
        """The stop status from the summary ("done", "STOPPED: ..."), or why it is unknown."""
        if self.summary is None or self.summary.status is None:
            return "unknown (no summary line)"
        return self.summary.status

    @property
    def answer(self) -> str | None:
        return self.summary.answer if self.summary else None

    def totals(self) -> tuple[int, int]:
        """(tokens_in, tokens_out) added up over the steps that could be read."""
        return (sum(s.tokens_in or 0 for s in self.steps),
                sum(s.tokens_out or 0 for s in self.steps))

    def __repr__(self) -> str:
        tin, tout = self.totals()
        bad = f", {len(self.problems)} problem(s)" if self.problems else ""
        return f"<Trajectory {self.source}: {len(self.steps)} step(s), {self.status}, {tin + tout} tokens{bad}>"

    def __str__(self) -> str:
        return table(self).text()

    def _repr_html_(self) -> str:
        # A trajectory as the last line of a cell shows as its table.
        return table(self).html()


def preview(value, limit: int = PREVIEW_CHARS) -> str | None:
    """A tool result as a short preview, cut with "…" (None stays None)."""
    text = text_of(value)
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
