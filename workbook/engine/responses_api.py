"""The Responses API (`POST /v1/responses`), the fifth face of the fake: the same scenarios and
policies as Chat Completions, on OpenAI's newer wire.

Entry point: `Responses(engine).handle(body) -> Outcome` (FakeLLM keeps one per fake, as
`llm.responses_face`, and routes `handle(body, "responses")` to it; the in-process client and the
HTTP server send `/v1/responses` there). `build_response` makes the response object from a reply,
for any later face (streaming) that sends the same response in pieces.

The rules, each with its source in docs/SOURCES.md ("OpenAI Responses API"):

- Output: a reasoning model (`workbook/engine/reasoning.py`: gpt-5, gpt-5-mini, the o-series...,
  at its `reasoning.effort`) and DeepSeek start each response with a `reasoning` item (`rs_…`,
  `summary: []`, `encrypted_content`); then a `message` item with one `output_text` part
  (`annotations: []`) when there is text, then one `function_call` item per call (`fc_…` id,
  `call_…` call id, `arguments` a JSON string). `output_text` is the SDK's property, not a field.
  A model that does not reason (gpt-4.1-mini, "fake-model") sends no reasoning item; given a
  `reasoning.effort` it answers 400, as a reasoning model does for an effort it does not take
  (`reasoning.check_responses`; openai dialect only).
- Tools: a tool that omits `strict` is made strict when its schema can be, else falls back to
  non-strict (responses_tools): the response lists each as taken, `strict` true or false.
- State: `store` (default true) keeps a response and its whole conversation (the chain's items,
  this input, this output; never `instructions`) in this fake. `previous_response_id` continues
  it: the model sees the stored items, then the new input; an id this fake never stored answers
  400 `previous_response_not_found`. A reasoning item sent back without `encrypted_content`, or an
  `item_reference`, must name an item of a stored response (else 404). An item id twice in the
  conversation (the chain's and this input's) is a 400.
- Usage: `input_tokens` counts the whole conversation the model saw (the chain is billed), by the
  token rule on the conversation as Chat Completions messages (reasoning items cost nothing), with
  `cached_tokens` by the prefix-cache rule; `output_tokens` = the visible output's tokens + the
  reasoning tokens, counted by `reasoning.spend` as on Chat Completions (DeepSeek: its thought's
  tokens).
- `max_output_tokens` caps reasoning and visible output together, by the same rule: reasoning
  that reaches the cap leaves a response `incomplete` (`incomplete_details.reason`
  "max_output_tokens") with only its reasoning item; a scenario's reply cut at its limit
  ("length") is `incomplete` too, with what it said.
- Dialects: `ollama` (>= 0.13.3) is stateless: it ignores `previous_response_id` silently (the model
  does not see the earlier turn), stores nothing (`store: false`), checks no pairing, never says
  `incomplete`, sends no reasoning item and, when the model calls tools, no message item.
  `deepseek` is stateless too (nothing is stored, so a `previous_response_id` is not found).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

from workbook.engine import reasoning, responses_tools, strict, window
from workbook.engine import responses_items as items
from workbook.engine.core import CREATED, Outcome, _call_id, to_turn, utf8
from workbook.engine.errors import openai_error
from workbook.engine.failures import explain
from workbook.engine.protocol import ProtocolError, check_ollama
from workbook.engine.replies import Fault, Reply, Timeout
from workbook.engine.tokens import compact, prompt_tokens, tokens

THOUGHT = "The user needs an answer; I will decide the next step."  # as the chat face's deepseek
INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}  # finish -> reason
TOO_LONG = "Your input exceeds the context window of this model. Please adjust your input and try again."


def _not_stored(item_id: str) -> ProtocolError:
    return ProtocolError(f"Item with id '{item_id}' not found. Items are not persisted when `store` is "
                         "set to false. Try again with `store` set to true, or remove this item from "
                         "your input.", "input", status=404)


class Responses:
    """One fake's Responses face: its stored responses, and the ids it has issued."""

    def __init__(self, engine):
        self.engine = engine
        self.stored: dict[str, list[dict]] = {}  # response id -> its conversation (items, in order)
        self.items: dict[str, dict] = {}  # item id -> item, of stored responses
        self.reasoning_of: dict[str, str] = {}  # fc id -> the rs id issued before it (every response)
        self.served = 0

    def handle(self, body) -> Outcome:
        """Answer one request body; never raises (as Engine.handle): a refused request is a 400 or
        404, an error of the scenario or the engine the fake's own 500."""
        engine = self.engine
        engine.requests.append(body)
        turns: list = []
        try:
            items.check_request(body)
            if engine.dialect == "openai":
                reasoning.check_responses(body)
            return self._answer(body, turns)
        except ProtocolError as e:
            return Outcome(e.status, e.body())
        except Exception as e:
            message = explain(engine.scenario.name, turns, e)
            return Outcome(500, openai_error(message, "server_error"), {"x-should-retry": "false"},
                           failure=message)

    def _resolve(self, item: dict) -> dict:
        """An input item as the model reads it: a reference or a bare reasoning item is looked up."""
        t = items.kind(item)
        if t == "item_reference" or (t == "reasoning" and not item.get("encrypted_content")):
            if item["id"] not in self.items:
                raise _not_stored(item["id"])
            return self.items[item["id"]]
        return item

    def conversation(self, body: dict) -> list[dict]:
        """The items the model sees, in order: the chain's stored items (when the dialect keeps
        state), then this request's input."""
        dialect, previous = self.engine.dialect, body.get("previous_response_id")
        new = items.input_items(body["input"])
        if dialect == "ollama":
            return new
        if previous is not None and previous not in self.stored:
            raise ProtocolError(f"Previous response with id '{previous}' not found.",
                                "previous_response_id", "previous_response_not_found")
        chain = self.stored.get(previous, []) if previous is not None else []
        context = chain + [self._resolve(i) if dialect == "openai" else i for i in new]
        items.check_context(context, self.reasoning_of)
        return context

    def _answer(self, body: dict, turns: list) -> Outcome:
        engine = self.engine
        context = self.conversation(body)
        messages = items.to_messages(body.get("instructions"), context)
        tools = items.chat_tools(body.get("tools"))
        size = window.window_for(engine.context_window, engine.dialect)
        if engine.dialect == "ollama":
            check_ollama(body, getattr(engine.scenario, "supports_tools", True))
            messages = window.ollama_cut(messages, tools, size)
        prompt = prompt_tokens(messages, tools)
        if engine.dialect == "deepseek":
            window.check_chat({"max_tokens": body.get("max_output_tokens")}, prompt, "deepseek", size)
        elif engine.dialect == "openai" and prompt + (body.get("max_output_tokens") or 0) > size:
            raise ProtocolError(TOO_LONG, "input", "context_length_exceeded")
        turns += [to_turn(m) for m in messages]
        reply = engine._play(messages, turns, tuple(t["function"]["name"] for t in tools or ()))
        # a "strict": true tool's calls fit its schema, as on Chat Completions (strict.fit); a tool
        # that omits strict is made strict when it can be, but its scripted calls are left as they are
        reply = strict.fit(reply, [{"function": t} for t in body.get("tools") or () if t.get("strict") is True],
                           engine.dialect)
        if isinstance(reply, Timeout):
            return Outcome(0, None, hang=True)
        if isinstance(reply, Fault):
            return Outcome(reply.status, openai_error(reply.message, reply.type, code=reply.code),
                           dict(reply.headers))
        cached = engine.cache.chat(messages, tools, prompt)
        self.served += 1
        engine._served += 1
        response = build_response(body, reply, messages, engine.dialect, prompt, cached,
                                  f"{engine.scenario.name}#{compact(messages)}#{self.served}",
                                  CREATED + engine._served)
        self._remember(response, context)
        return Outcome(200, response)

    def _remember(self, response: dict, context: list[dict]) -> None:
        output = response["output"]
        rs = next((o["id"] for o in output if o["type"] == "reasoning"), None)
        for o in output:
            if o["type"] in ("function_call", "message") and rs:
                self.reasoning_of[o["id"]] = rs
        if response["store"]:
            self.stored[response["id"]] = context + output
            self.items.update((i["id"], i) for i in context + output if isinstance(i.get("id"), str))


def _ids(seed: str) -> tuple[str, Callable[..., str]]:
    """The response id (`resp_` + 48 hex) and a maker of its items' ids, which share its first 24."""
    digest = hashlib.sha256(utf8(seed)).hexdigest()

    def item_id(prefix: str, n: int = 0) -> str:
        return f"{prefix}_{digest[:24]}{hashlib.sha256(utf8(f'{digest}{prefix}{n}')).hexdigest()[:26]}"

    return f"resp_{digest[:48]}", item_id


def _message(item_id: str, text: str) -> dict:
    return {"id": item_id, "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]}


def effort_of(body: dict) -> str | None:
    """The request's `reasoning.effort` (None: the model's default)."""
    return (body.get("reasoning") or {}).get("effort")


def spend(body: dict, dialect: str, thought: str, visible: int) -> reasoning.Spend:
    """A response's output tokens: on openai a reasoning model's hidden reasoning by
    `reasoning.spend` (the chat face's rule, with `reasoning.effort` and `max_output_tokens`);
    DeepSeek thinks on every call, its thought's tokens (the chat face's reasoning_content);
    Ollama's models here do not think."""
    if dialect == "openai":
        return reasoning.spend(body["model"], effort_of(body), body.get("max_output_tokens"), visible)
    return reasoning.Spend(tokens(thought) if dialect == "deepseek" else 0, visible, False)


def _effort(body: dict, dialect: str) -> str | None:
    if dialect == "deepseek":
        return "medium"
    model = reasoning.model(body["model"])
    return (effort_of(body) or model.default) if dialect == "openai" and model.reasons else None


def build_response(body: dict, reply: Reply, messages: list[dict], dialect: str, prompt: int,
                   cached: int, seed: str, created: int) -> dict:
    """The response object for `reply`, as OpenAI (or the dialect) sends it (rules: module doc)."""
    rid, item_id = _ids(seed)
    calls = [{"id": item_id("fc", j), "type": "function_call", "status": "completed",
              "call_id": _call_id(messages, j), "name": c.name, "arguments": c.arguments()}
             for j, c in enumerate(reply.calls)]
    text = reply.text
    visible = tokens({"content": text, "tool_calls": [[c["name"], c["arguments"]] for c in calls]})
    thought = reply.thought or THOUGHT
    spent = spend(body, dialect, thought, visible)
    reasoning_items = [{
        "id": item_id("rs"), "type": "reasoning", "summary": [],
        "encrypted_content": "gAAAAA" + base64.b64encode(utf8(thought)).decode()}] \
        if spent.reasoning or dialect == "deepseek" else []
    reason = None if dialect == "ollama" else INCOMPLETE.get(reply.finish())
    if spent.cut:  # the reasoning used the whole cap: nothing is left to say (reasoning.py)
        reason, calls, text = "max_output_tokens", [], None
    message = [] if text is None or text == "" or (dialect == "ollama" and calls) \
        else [_message(item_id("msg"), text)]
    output = reasoning_items + message + calls
    stateful = dialect == "openai"
    return {
        "id": rid, "object": "response", "created_at": created,
        "status": "incomplete" if reason else "completed", "background": False, "error": None,
        "incomplete_details": {"reason": reason} if reason else None,
        "instructions": body.get("instructions"), "max_output_tokens": body.get("max_output_tokens"),
        "model": body["model"], "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id") if stateful else None,
        "reasoning": {"effort": _effort(body, dialect), "summary": None},
        "store": stateful and body.get("store", True) is not False,
        "temperature": body.get("temperature", 1.0), "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": [responses_tools.echoed(t) for t in body.get("tools") or ()],
        "top_p": body.get("top_p", 1.0), "truncation": "disabled", "metadata": body.get("metadata") or {},
        "usage": {"input_tokens": prompt,
                  "input_tokens_details": {"cached_tokens": 0 if dialect == "ollama" else cached,
                                           "cache_write_tokens": 0},
                  "output_tokens": spent.completion,
                  "output_tokens_details": {"reasoning_tokens": spent.reasoning},
                  "total_tokens": prompt + spent.completion}}
