"""The pieces a scenario is made of: what it reads (Conversation) and what it returns (replies)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------- what a scenario returns


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


# Real providers' texts (see shared/PROVIDERS.md). The fake asks for 1 ms so the SDK's own
# retries take milliseconds in tests; retry-after carries whole seconds for code that reads it.
def rate_limit() -> Fault:
    return Fault(429, "Rate limit reached for requests. Please try again in 1ms.",
                 "requests", "rate_limit_exceeded",
                 (("retry-after-ms", "1"), ("retry-after", "1")))


def server_error(status: int = 500) -> Fault:
    text = ("The engine is currently overloaded, please try again later." if status == 503
            else "The server had an error while processing your request. Sorry about that!")
    return Fault(status, text, "server_error", None, (("retry-after-ms", "1"),))


# ---------------------------------------------------------------- what a scenario reads


@dataclass(frozen=True)
class ToolCallSeen:
    id: str | None
    name: str
    arguments: str  # always the JSON string, as on the wire


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
    def user(self) -> str:
        """The latest user message."""
        return next((t.content or "" for t in reversed(self.turns) if t.role == "user"), "")

    @property
    def steps(self) -> int:
        """How many assistant turns came before this request."""
        return sum(t.role == "assistant" for t in self.turns)

    @property
    def results(self) -> list[str]:
        """Every tool result so far, in order."""
        return [t.content or "" for t in self.turns if t.role == "tool"]

    def results_since_last_assistant(self) -> list[str]:
        out: list[str] = []
        for t in reversed(self.turns):
            if t.role != "tool":
                break
            out.append(t.content or "")
        return out[::-1]

    @property
    def last_result(self) -> str | None:
        r = self.results
        return r[-1] if r else None

    def last_json(self) -> Any:
        """The last tool result parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.last_result or "")
        except ValueError:
            return None

    def last_error(self) -> str | None:
        """The text of the last tool result when it reports an error, else None."""
        text = self.last_result
        if text is None:
            return None
        data = self.last_json()
        if isinstance(data, dict) and "error" in data:
            return str(data["error"])
        return text if text.lstrip().lower().startswith("error") else None

    def called(self, name: str) -> int:
        """How many times the assistant has already asked for this tool."""
        return sum(c.name == name for t in self.turns for c in t.tool_calls)

    def user_turns_after_assistant(self) -> int:
        """User messages that came after the first assistant turn (e.g. 'please call the tool')."""
        seen_assistant = False
        n = 0
        for t in self.turns:
            seen_assistant = seen_assistant or t.role == "assistant"
            n += seen_assistant and t.role == "user"
        return n


Policy = Callable[[Conversation], "Reply | Fault | Timeout"]


@dataclass(frozen=True)
class Scenario:
    """A named, scripted model: a policy plus what a reader (or a test) needs to know about it."""

    name: str
    description: str
    policy: Policy
    tools: tuple[str, ...] = ()
    answer: str | None = None  # the final answer a correct loop ends with
    question: str = ""  # the user question the scenario is written for
    system: str | None = None
    # False: a model without tool support. On the "ollama" dialect a request that sends `tools`
    # gets Ollama's 400 "registry.ollama.ai/library/<model> does not support tools".
    supports_tools: bool = True

    def as_function(self, max_calls: int | None = None):
        """Face 1: `model(messages, tool_specs) -> {"tool", "args"} | {"final"}`.

        With `max_calls=N` the (N+1)-th call raises TooManyCalls (a test's safety cap)."""
        from workbook.fake_llm.function_face import as_function

        return as_function(self, max_calls)

    def openai_tools(self) -> list[dict]:
        """The tool definitions (OpenAI format) for the tools this scenario expects."""
        from workbook.shop import openai_tools

        return openai_tools(self.tools)
