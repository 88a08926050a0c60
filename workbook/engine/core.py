"""The engine behind all three faces: one request in, one reply (or error) out.

Token rule (deterministic, documented so students can predict it): a message costs
ceil(len(compact JSON of the message) / 4) + 3 tokens; the tool definitions cost
ceil(len(compact JSON of tools) / 4); every prompt adds 3 for priming the reply. A reply's
completion tokens are ceil(len(compact JSON of its content, tool calls and reasoning) / 4).
So each step's prompt repeats the whole history, and cost grows with it. The Messages API face
counts the same way (`system` and each message as above); its usage says input_tokens and
output_tokens.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

from workbook.engine import messages_api
from workbook.engine.failures import error_body, explain
from workbook.engine.protocol import ProtocolError, check_request, stop_list
from workbook.engine.replies import Fault, Reply, Timeout
from workbook.engine.turns import Conversation, ToolCallSeen, Turn, text_of

CREATED = 1764547200  # 2025-12-01T00:00:00Z: fixed, so transcripts are byte-identical


def utf8(text: str) -> bytes:
    """Bytes to hash: a lone surrogate (sent as a JSON escape) must not crash the engine."""
    return text.encode("utf-8", "surrogatepass")


def compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def tokens(obj) -> int:
    """Token estimate of any JSON-able object: one token per 4 characters, rounded up."""
    return math.ceil(len(compact(obj)) / 4)


def message_tokens(m: dict) -> int:
    return tokens(m) + 3


def prompt_tokens(messages: list[dict], tools) -> int:
    return sum(message_tokens(m) for m in messages) + (tokens(tools) if tools else 0) + 3


def to_turn(m: dict) -> Turn:
    """Normalise one wire message for a scenario to read."""
    calls = tuple(ToolCallSeen(c.get("id"), c["function"]["name"], c["function"]["arguments"])
                  for c in m.get("tool_calls") or ())
    return Turn(m["role"], text_of(m.get("content")), calls, m.get("tool_call_id"))


def ollama_cut(messages: list[dict], tools, window: int) -> list[dict]:
    """What Ollama's chat path keeps when a conversation outgrows the context window.

    Like `chatPrompt` in ollama's server/prompt.go: drop whole messages from the front, oldest
    first, but always keep every system message and the latest message; the first cut that fits
    wins, and if none does, the system messages and the latest message are kept anyway. No error
    reaches the caller (see docs/SOURCES.md).
    """
    cost = [message_tokens(m) for m in messages]
    fixed = (tokens(tools) if tools else 0) + 3  # as in prompt_tokens
    start, systems, rest = 0, 0, sum(cost)
    while start < len(messages) - 1 and fixed + systems + rest > window:
        if messages[start].get("role") == "system":
            systems += cost[start]
        rest -= cost[start]
        start += 1
    return [m for m in messages[:start] if m.get("role") == "system"] + messages[start:]


def _common_prefix(a: list[dict], b: list[dict]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if compact(x) != compact(y):
            break
        n += message_tokens(x)
    return n


@dataclass
class Outcome:
    """What a face sends back: an HTTP status, headers and a JSON body, or a hang (timeout).
    `failure` is the message of the fake's own 500 (a scenario or engine error), for a log line."""

    status: int
    body: dict | None
    headers: dict = field(default_factory=dict)
    hang: bool = False
    failure: str | None = None

    def data(self) -> bytes:
        return wire(self.body)


def wire(body) -> bytes:
    """A JSON body as a provider sends it: UTF-8, with a lone surrogate (which only a JSON escape
    can bring in) escaped again, so no text a tool sent back can break the reply."""
    return json.dumps(body, ensure_ascii=False, default=str).encode("utf-8", "backslashreplace")


def _call_id(messages: list[dict], j: int) -> str:
    return "call_" + hashlib.sha1(utf8(f"{compact(messages)}#{j}")).hexdigest()[:24]


def build_message(reply: Reply, messages: list[dict], dialect: str) -> dict:
    msg: dict = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.calls:
        msg["tool_calls"] = [{"id": _call_id(messages, j), "type": "function",
                              "function": {"name": c.name, "arguments": c.arguments()}}
                             for j, c in enumerate(reply.calls)]
    if dialect == "deepseek":
        msg["reasoning_content"] = reply.thought or "The user needs an answer; I will decide the next step."
        msg.pop("refusal")
    return msg


class Engine:
    """Holds one fake provider's state: the scenario, the dialect, and what it has received."""

    def __init__(self, scenario, dialect: str = "openai", context_window: int = 4096):
        if dialect not in ("openai", "deepseek", "ollama"):
            raise ValueError(f"unknown dialect {dialect!r}: use 'openai', 'deepseek' or 'ollama'")
        self.scenario, self.dialect, self.context_window = scenario, dialect, context_window
        self.requests: list[dict] = []  # every request body received, in order
        self.seen: list[list[dict]] = []  # the messages the model actually saw (after any cut)
        self._attempts: dict[str, int] = {}
        self._served = 0

    def handle(self, body, api: str = "chat") -> Outcome:
        """Answer one request body: `api` "chat" (chat.completions) or "messages" (Anthropic's
        Messages API). Never raises: a request a provider refuses is a 400, and any error of the
        engine or the scenario is the fake's own 500 (see failures)."""
        self.requests.append(body)
        turns: list[Turn] = []
        anthropic = api == "messages"
        try:
            if anthropic:
                messages_api.check_request(body)
                return self._answer_messages(body, turns)
            check_request(body, self.dialect, getattr(self.scenario, "supports_tools", True))
            return self._answer(body, turns)
        except ProtocolError as e:
            return Outcome(e.status, messages_api.error_body(e.message) if anthropic else e.body())
        except Exception as e:  # a bug or an unreadable result: an error reply, not a dropped line
            message = explain(self.scenario.name, turns, e)
            body = messages_api.error_body(message, "api_error") if anthropic else error_body(message)
            return Outcome(500, body, {"x-should-retry": "false"}, failure=message)

    def _play(self, seen: list, turns: list[Turn], names: tuple[str, ...]):
        """The scenario's reply to what the model sees; `turns` is filled in place, so an error
        message can read them."""
        self.seen.append(seen)
        key = compact(seen)
        attempt = self._attempts.get(key, 0)
        self._attempts[key] = attempt + 1
        return self.scenario.policy(Conversation(turns, attempt, names))

    def _answer(self, body: dict, turns: list[Turn]) -> Outcome:
        messages, tools = body["messages"], body.get("tools")
        if self.dialect == "ollama":
            messages = ollama_cut(messages, tools, self.context_window)
        turns += [to_turn(m) for m in messages]
        reply = self._play(messages, turns, tuple(t["function"]["name"] for t in tools or ()))
        if isinstance(reply, Timeout):
            return Outcome(0, None, hang=True)
        if isinstance(reply, Fault):
            body = {"error": {"message": reply.message, "type": reply.type, "param": None,
                              "code": reply.code}}
            return Outcome(reply.status, body, dict(reply.headers))
        return Outcome(200, self._completion(body, messages, tools, reply))

    def _answer_messages(self, body: dict, turns: list[Turn]) -> Outcome:
        turns += messages_api.to_turns(body)
        seen = [{"role": "system", "content": body["system"]}] if body.get("system") else []
        reply = self._play(seen + body["messages"], turns, messages_api.tool_names(body))
        if isinstance(reply, Timeout):
            return Outcome(0, None, hang=True)
        if isinstance(reply, Fault):
            status, error = messages_api.fault_body(reply)
            return Outcome(status, error, dict(reply.headers))
        reply, hit = reply.stopped(body.get("stop_sequences") or [])
        seen = self.seen[-1]
        ids = ["toolu_" + _call_id(seen, j)[5:] for j in range(len(reply.calls))]
        content = messages_api.reply_content(reply, ids)
        prompt = sum(message_tokens(m) for m in seen) + (tokens(body["tools"]) if body.get("tools") else 0) + 3
        self._served += 1
        digest = hashlib.sha1(utf8(f"{self.scenario.name}#{compact(seen)}")).hexdigest()
        return Outcome(200, {
            "id": f"msg_{digest[:24]}", "type": "message", "role": "assistant",
            "model": body["model"], "content": content,
            "stop_reason": messages_api.stop_reason(reply, hit), "stop_sequence": hit,
            "usage": {"input_tokens": prompt, "output_tokens": tokens(content),
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})

    def _completion(self, body: dict, messages: list[dict], tools, reply: Reply) -> dict:
        reply, _ = reply.stopped(stop_list(body.get("stop")))
        msg = build_message(reply, messages, self.dialect)
        prompt = prompt_tokens(messages, tools)
        completion = tokens({k: msg.get(k) for k in ("content", "tool_calls", "reasoning_content")})
        usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion}
        if self.dialect == "deepseek":
            hit = max((_common_prefix(messages, earlier) for earlier in self.seen[:-1]), default=0)
            usage |= {"prompt_cache_hit_tokens": hit, "prompt_cache_miss_tokens": prompt - hit}
        self._served += 1
        digest = hashlib.sha1(utf8(f"{self.scenario.name}#{compact(messages)}")).hexdigest()
        return {"id": f"chatcmpl-{digest[:29]}", "object": "chat.completion",
                "created": CREATED + self._served, "model": body["model"],
                "system_fingerprint": f"fp_fake_{self.dialect}",
                "choices": [{"index": 0, "message": msg, "logprobs": None,
                             "finish_reason": reply.finish()}],
                "usage": usage}
