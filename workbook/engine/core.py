"""The engine behind all four faces (the function, the openai client, HTTP, the anthropic client):
one request in, one reply (or error) out.

The token rule is in `tokens`, the context window and overflow in `window`, prefix caching in
`caching`; each module's docstring states its rule, so students can predict every number.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from workbook.engine import messages_api, reasoning, strict, window
from workbook.engine.caching import PrefixCache, chat_usage
from workbook.engine.errors import anthropic_error, openai_error
from workbook.engine.failures import explain
from workbook.engine.protocol import ProtocolError, check_request, stop_list
from workbook.engine.replies import Fault, Reply, Timeout
from workbook.engine.tokens import compact, prompt_tokens, tokens
from workbook.engine.turns import Conversation, ToolCallSeen, Turn, text_of

CREATED = 1764547200  # 2025-12-01T00:00:00Z: fixed, so transcripts are byte-identical


def utf8(text: str) -> bytes:
    """Bytes to hash: a lone surrogate (sent as a JSON escape) must not crash the engine."""
    return text.encode("utf-8", "surrogatepass")


def to_turn(m: dict) -> Turn:
    """Normalise one wire message for a scenario to read."""
    calls = tuple(ToolCallSeen(c.get("id"), c["function"]["name"], c["function"]["arguments"])
                  for c in m.get("tool_calls") or ())
    return Turn(m["role"], text_of(m.get("content")), calls, m.get("tool_call_id"))


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

    def __init__(self, scenario, dialect: str = "openai", context_window: int | None = None):
        if dialect not in ("openai", "deepseek", "ollama"):
            raise ValueError(f"unknown dialect {dialect!r}: use 'openai', 'deepseek' or 'ollama'")
        if context_window is not None and (isinstance(context_window, bool) or
                                           not isinstance(context_window, int) or context_window < 1):
            raise ValueError(f"context_window must be a whole number of tokens >= 1 (or None for "
                             f"the provider's default), got {context_window!r}")
        self.scenario, self.dialect, self.context_window = scenario, dialect, context_window
        self.cache = PrefixCache()
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
            strict.check(body.get("tools"), self.dialect)
            if self.dialect == "openai":
                reasoning.check_request(body)
            return self._answer(body, turns)
        except ProtocolError as e:
            return Outcome(e.status, anthropic_error(e.message) if anthropic else e.body())
        except Exception as e:  # a bug or an unreadable result: an error reply, not a dropped line
            message = explain(self.scenario.name, turns, e)
            body = anthropic_error(message, "api_error") if anthropic else openai_error(message, "server_error")
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
        size = window.window_for(self.context_window, self.dialect)
        if self.dialect == "ollama":
            messages = window.ollama_cut(messages, tools, size)
        window.check_chat(body, prompt_tokens(messages, tools), self.dialect, size)
        turns += [to_turn(m) for m in messages]
        reply = strict.fit(self._play(messages, turns, tuple(t["function"]["name"] for t in tools or ())),
                           tools, self.dialect)
        if isinstance(reply, Timeout):
            return Outcome(0, None, hang=True)
        if isinstance(reply, Fault):
            body = openai_error(reply.message, reply.type, code=reply.code)
            return Outcome(reply.status, body, dict(reply.headers))
        return Outcome(200, self._completion(body, messages, tools, reply))

    def _answer_messages(self, body: dict, turns: list[Turn]) -> Outcome:
        clean = messages_api.without_cache_control(body)  # a breakpoint costs no tokens
        turns += messages_api.to_turns(clean)
        seen = [{"role": "system", "content": clean["system"]}] if clean.get("system") else []
        prompt = prompt_tokens(seen + clean["messages"], clean.get("tools"))
        window.check_messages(body, prompt, window.window_for(self.context_window, "messages"))
        reply = self._play(seen + clean["messages"], turns, messages_api.tool_names(body))
        if isinstance(reply, Timeout):
            return Outcome(0, None, hang=True)
        if isinstance(reply, Fault):
            status, error = messages_api.fault_body(reply)
            return Outcome(status, error, dict(reply.headers))
        reply, hit = reply.stopped(body.get("stop_sequences") or [])
        seen = self.seen[-1]
        ids = ["toolu_" + _call_id(seen, j)[5:] for j in range(len(reply.calls))]
        content = messages_api.reply_content(reply, ids)
        read, creation, ttl = self.cache.messages(body)
        self._served += 1
        digest = hashlib.sha1(utf8(f"{self.scenario.name}#{compact(seen)}")).hexdigest()
        return Outcome(200, {
            "id": f"msg_{digest[:24]}", "type": "message", "role": "assistant",
            "model": body["model"], "content": content,
            "stop_reason": messages_api.stop_reason(reply, hit), "stop_sequence": hit,
            "usage": {"input_tokens": prompt - read - creation, "output_tokens": tokens(content),
                      "cache_creation_input_tokens": creation, "cache_read_input_tokens": read,
                      "cache_creation": {"ephemeral_5m_input_tokens": creation if ttl == "5m" else 0,
                                         "ephemeral_1h_input_tokens": creation if ttl == "1h" else 0}}})

    def _spend(self, body: dict, msg: dict) -> reasoning.Spend:
        """The completion tokens of a reply: its visible part (content, tool calls, DeepSeek's
        reasoning_content) and, on the openai dialect, a reasoning model's hidden reasoning."""
        visible = tokens({k: msg.get(k) for k in ("content", "tool_calls", "reasoning_content")})
        if self.dialect != "openai":
            return reasoning.Spend(0, visible, False)
        return reasoning.chat_spend(body, visible)

    def _completion(self, body: dict, messages: list[dict], tools, reply: Reply) -> dict:
        reply, _ = reply.stopped(stop_list(body.get("stop")))
        msg = build_message(reply, messages, self.dialect)
        prompt = prompt_tokens(messages, tools)
        spent = self._spend(body, msg)
        if spent.cut:  # the reasoning used the whole cap: nothing is left to say (reasoning.py)
            reply = Reply(text="", finish_reason="length")
            msg = build_message(reply, messages, self.dialect)
        usage: dict[str, object] = {"prompt_tokens": prompt, "completion_tokens": spent.completion,
                                    "total_tokens": prompt + spent.completion}
        usage |= chat_usage(self.dialect, prompt, self.cache.chat(messages, tools, prompt))
        if reasoning.model(body["model"]).reasons and self.dialect == "openai":
            usage["completion_tokens_details"] = {"reasoning_tokens": spent.reasoning, "audio_tokens": 0,
                                                  "accepted_prediction_tokens": 0,
                                                  "rejected_prediction_tokens": 0}
        self._served += 1
        digest = hashlib.sha1(utf8(f"{self.scenario.name}#{compact(messages)}")).hexdigest()
        return {"id": f"chatcmpl-{digest[:29]}", "object": "chat.completion",
                "created": CREATED + self._served, "model": body["model"],
                "system_fingerprint": f"fp_fake_{self.dialect}",
                "choices": [{"index": 0, "message": msg, "logprobs": None,
                             "finish_reason": reply.finish()}],
                "usage": usage}
