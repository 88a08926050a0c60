"""What a scenario returns: a reply (tool calls and/or text), a provider fault, or a timeout."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Call:
    """One tool call. `args` is a dict, or a raw string to send arguments that are not valid JSON."""

    name: str
    args: dict | str = field(default_factory=dict)

    def arguments(self) -> str:
        """The arguments as the wire carries them: a JSON string."""
        return self.args if isinstance(self.args, str) else json.dumps(self.args, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """An assistant turn: tool calls and/or text. `thought` becomes DeepSeek's reasoning_content."""

    calls: tuple[Call, ...] = ()
    text: str | None = None
    finish_reason: str | None = None  # None: "tool_calls" when there are calls, else "stop"
    thought: str | None = None

    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.calls else "stop")

    def stopped(self, stops: Sequence[str]) -> tuple[Reply, str | None]:
        """This reply as a provider sends it when the request set stop sequences, and the one hit.

        Like a provider, the text is cut before the first occurrence of any stop string (the
        string itself is not returned) and generation ends there: no tool call follows, and the
        finish is "stop". A reply whose text holds none of them is sent unchanged."""
        hit = first_stop(self.text, stops)
        if hit is None:
            return self, None
        text = self.text or ""  # a stop was hit, so there is text
        cut = text[:text.find(hit)]
        return replace(self, calls=(), text=cut, finish_reason="stop"), hit


def first_stop(text: str | None, stops: Sequence[str]) -> str | None:
    """The stop string that occurs first in `text` (at a tie, the one listed first), or None."""
    found = [(text.find(s), i, s) for i, s in enumerate(stops) if s and text and s in text]
    return min(found)[2] if found else None


@dataclass(frozen=True)
class Fault:
    """An HTTP error the provider returns instead of a reply (429, 500, 503...)."""

    status: int
    message: str
    type: str = "server_error"
    code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Timeout:
    """The provider never answers in time: the client sees a timeout."""


def call(name: str, **args: Any) -> Reply:
    """A reply asking for one tool call."""
    return Reply(calls=(Call(name, args),))


def calls(*items: Call, thought: str | None = None) -> Reply:
    """A reply asking for several tool calls at once (parallel calls)."""
    return Reply(calls=tuple(items), thought=thought)


def final(text: str, finish_reason: str = "stop") -> Reply:
    """A final answer in plain text."""
    return Reply(text=text, finish_reason=finish_reason)


# Real providers' texts (docs/PROVIDERS.md, docs/SOURCES.md). The fake asks for 1 ms so the SDK's own
# retries take milliseconds in tests; retry-after carries whole seconds for code that reads it.
def rate_limit() -> Fault:
    return Fault(429, "Rate limit reached for requests. Please try again in 1ms.",
                 "requests", "rate_limit_exceeded",
                 (("retry-after-ms", "1"), ("retry-after", "1")))


def server_error(status: int = 500) -> Fault:
    text = ("That model is currently overloaded with other requests. You can retry your request, or "
            "contact us through our help center at help.openai.com if the error persists." if status == 503
            else "The server had an error while processing your request. Sorry about that!")
    return Fault(status, text, "server_error", None, (("retry-after-ms", "1"),))
