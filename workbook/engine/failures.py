"""When the fake itself fails (a scenario that cannot go on, a bug): what it says, in the student's
terms. The engine sends it as an HTTP 500 with an OpenAI-shaped body and `x-should-retry: false`
(the openai SDK then raises InternalServerError at once: a retry would fail the same way), never
a dropped connection or a traceback."""

from __future__ import annotations

from workbook.engine.reading import brief
from workbook.engine.turns import Turn


def _last_result(turns: list[Turn]) -> tuple[str, str] | None:
    """(tool name, result text) of the latest tool message, the name found by its tool_call_id."""
    result = next((t for t in reversed(turns) if t.role == "tool"), None)
    if result is None:
        return None
    calls = [c for t in turns for c in t.tool_calls]
    named = [c.name for c in calls if c.id is not None and c.id == result.tool_call_id]
    name = (named or [c.name for c in calls[-1:]] or ["tool"])[-1]
    return name, result.content or ""


def explain(scenario: str, turns: list[Turn], error: Exception) -> str:
    """The message of the fake's own 500: which scenario, which tool result, what it expected."""
    who = f"the fake model (scenario {scenario!r})"
    try:
        last = _last_result(turns)
    except Exception:  # explaining must never fail in turn
        last = None
    if last is None:
        return f"{who} failed on this request: {type(error).__name__}: {brief(str(error))}"
    tool, text = last
    if isinstance(error, KeyError) and error.args:
        return f"{who} expected the {tool} result to contain {error.args[0]!r}; it got {brief(text)}"
    return (f"{who} could not read the {tool} result {brief(text)} "
            f"({type(error).__name__}: {brief(str(error))})")

