"""What a scenario reads: the conversation so far, and the readers every scenario shares.

A tool result arrives as text, however the loop wrote it: JSON (`{"status": "shipped"}`), a JSON
string, or plain text. The readers below take any of them, the way a model reads. An error
observation is `{"error": "..."}` as JSON (docs/CHAPTERS.md, glossary); a model also understands
other reasonable shapes, so `error_of` accepts text starting "error" too ("ERROR: ...", plain or
written as a JSON string).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from workbook.engine import reading

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def text_of(content) -> str | None:
    """A message's content as text: content parts keep their text ones, as providers read them."""
    if isinstance(content, list):
        texts = (p.get("text") for p in content if isinstance(p, dict))
        return "".join(t for t in texts if isinstance(t, str))
    return content if content is None or isinstance(content, str) else str(content)


def json_or_none(text: str | None) -> Any:
    """The text parsed as JSON, or None when it is not JSON (or nested too deep to read)."""
    try:
        return json.loads(text or "")
    except (ValueError, RecursionError):
        return None


def plain_text(text: str | None) -> str:
    """A result as text: one sent as json.dumps(some_string) is read as that string."""
    value = json_or_none(text)
    return value if isinstance(value, str) else text or ""


def error_of(text: str | None) -> str | None:
    """The error a result reports: `{"error": ...}` as JSON (the workbook's shape), or text
    starting with "error" ("ERROR: ...", also sent as a JSON string), as a model would read it."""
    if text is None:
        return None
    data = json_or_none(text)
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])
    plain = data if isinstance(data, str) else text
    return plain if plain.lstrip().lower().startswith("error") else None


def number(text: str | None) -> float | None:
    """The number a result holds: JSON (a number, or an object's "result" / "value"), else the
    first number in its text; None for an error or no number at all."""
    if error_of(text) is not None:
        return None
    value = json_or_none(text)
    if isinstance(value, dict):
        value = value.get("result", value.get("value"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    found = NUMBER.search(value if isinstance(value, str) else text or "")
    return float(found.group()) if found else None


@dataclass(frozen=True)
class ToolCallSeen:
    id: str | None
    name: str
    arguments: str  # always the JSON string, as on the wire

    def args(self) -> dict | None:
        """The arguments as a dict, or None when they are not a JSON object."""
        value = json_or_none(self.arguments)
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class Turn:
    """One message of the conversation, normalised from either the wire or the function face."""

    role: str
    content: str | None
    tool_calls: tuple[ToolCallSeen, ...] = ()
    tool_call_id: str | None = None


class Conversation:
    """The conversation as the model sees it, with helpers scenarios use to decide."""

    def __init__(self, turns: list[Turn], attempt: int = 0, tools: tuple[str, ...] = ()):
        self.turns = turns
        self.attempt = attempt  # how many times this same conversation was sent before (retries)
        self.tools = tools  # names of the tools offered in the request

    @property
    def system(self) -> str | None:
        return next((t.content for t in self.turns if t.role in ("system", "developer")), None)

    @property
    def question(self) -> str:
        """The task: the first user message (later ones may be the loop's nudges)."""
        return next((t.content or "" for t in self.turns if t.role == "user"), "")

    @property
    def steps(self) -> int:
        """How many assistant turns came before this request."""
        return sum(t.role == "assistant" for t in self.turns)

    @property
    def results(self) -> list[str]:
        """Every tool result so far, in order."""
        return [t.content or "" for t in self.turns if t.role == "tool"]

    @property
    def last_result(self) -> str | None:
        r = self.results
        return r[-1] if r else None

    def last_text(self) -> str:
        """The last tool result as text (a JSON string unwrapped; "" when there is none)."""
        return plain_text(self.last_result)

    def read(self, *result: str | None, **kinds: type) -> dict | None:
        """The fields a model reads out of a tool result (the last one, or the text given), each
        under the name asked for, or None when it reports an error or lacks one of them.

            conv.read(count=int, total_kzt=int)      # the last result: numbers
            conv.read(conv.results[0], status=str)   # that result: a text field

        Tolerant like a model: extra fields, names close to the asked one, numbers as text,
        `key: value` text; see workbook.engine.reading. `conv.read()` is the result's fields."""
        if len(result) > 1:
            raise TypeError("read() takes at most one result text")
        text = result[0] if result else self.last_result
        if text is None or error_of(text) is not None:
            return None
        return reading.read(json_or_none(text), text, kinds)

    def last_error(self) -> str | None:
        """The text of the last tool result when it reports an error, else None."""
        return error_of(self.last_result)

    def called(self, name: str) -> int:
        """How many times the assistant has already asked for this tool."""
        return sum(c.name == name for t in self.turns for c in t.tool_calls)

    def last_calls(self) -> tuple[ToolCallSeen, ...]:
        """The tool calls of the latest assistant turn that asked for any."""
        return next((t.tool_calls for t in reversed(self.turns) if t.tool_calls), ())

    def result_for(self, call: ToolCallSeen) -> str | None:
        """The result the loop sent back for this call, found by its tool_call_id."""
        return next((t.content for t in reversed(self.turns)
                     if t.role == "tool" and t.tool_call_id == call.id), None)

    def outcomes(self) -> list[tuple[str, dict | None, str]]:
        """(tool, arguments or None when not a JSON object, result as text) per answered call."""
        asked, out = {}, []
        for t in self.turns:
            for i, c in enumerate(t.tool_calls):
                asked[c.id or i] = c
            if t.role == "tool" and t.tool_call_id in asked:
                c = asked[t.tool_call_id]
                out.append((c.name, c.args(), plain_text(t.content)))
        return out

    def user_turns_after_assistant(self) -> int:
        """User messages that came after the first assistant turn (e.g. 'please call the tool')."""
        seen_assistant = False
        n = 0
        for t in self.turns:
            seen_assistant = seen_assistant or t.role == "assistant"
            n += seen_assistant and t.role == "user"
        return n
