"""Anthropic's Messages API (`POST /v1/messages`): its request rules with Anthropic's 400 texts,
what a scenario reads from such a request, and the reply as Anthropic sends it.

The same scenarios play behind it: a request becomes the same turns the Chat Completions face
makes (`system` a system turn, a `tool_use` block a tool call, a `tool_result` block a tool
message), so a scenario does not know which protocol it is played through. The dialects
(deepseek, ollama) are Chat Completions rules and do not apply here. Every text, with its source,
is listed in docs/SOURCES.md.
"""

from __future__ import annotations

import json

from workbook.engine.errors import anthropic_error
from workbook.engine.protocol import ProtocolError
from workbook.engine.replies import Fault, Reply
from workbook.engine.turns import ToolCallSeen, Turn, error_of, json_or_none, text_of

STOP_REASONS = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}
# A scripted fault as Anthropic sends it: its error type, and its own text where one is known.
FAULTS = {429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 529: "overloaded_error"}
OVERLOADED = "Overloaded"
SERVER_ERROR = "Internal server error"
MISSING_RESULTS = ("`tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
                   "Each `tool_use` block must have a corresponding `tool_result` block in the next "
                   "message.")


def fault_body(fault: Fault) -> tuple[int, dict]:
    """A scenario's scripted 429 / 5xx with Anthropic's status, error type and text."""
    kind = FAULTS.get(fault.status, "api_error")
    if kind == "overloaded_error":
        return 529, anthropic_error(OVERLOADED, kind)
    if kind == "api_error":
        return fault.status, anthropic_error(SERVER_ERROR, kind)
    return fault.status, anthropic_error(fault.message, kind)


def blocks(content) -> list:
    """A message's content as a list of blocks: a string is one text block."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _field_required(name: str) -> ProtocolError:
    return ProtocolError(f"{name}: Field required")


def _check_tools(tools) -> None:
    if not isinstance(tools, list):
        raise ProtocolError("tools: Input should be a valid list")
    for i, t in enumerate(tools):
        for key in ("name", "input_schema"):
            if not isinstance(t, dict) or key not in t:
                raise _field_required(f"tools.{i}.{key}")


def _check_turn_pairing(messages: list) -> None:
    """Every tool_use answered by a tool_result at the start of the next message, and no other."""
    asked: list[str] = []  # tool_use ids of the previous assistant message
    for i, m in enumerate(messages):
        content = blocks(m["content"])
        for j, b in enumerate(content):
            if b.get("type") == "tool_result" and b.get("tool_use_id") not in asked:
                raise ProtocolError(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                                    f"`tool_result` blocks: {b.get('tool_use_id')}. Each "
                                    "`tool_result` block must have a corresponding `tool_use` "
                                    "block in the previous message.")
        if asked:
            leading = 0
            while leading < len(content) and content[leading].get("type") == "tool_result":
                leading += 1
            if leading == 0:
                raise ProtocolError(f"messages.{i}: Did not find {len(asked)} `tool_result` block(s) "
                                    "at the beginning of this message. Messages following "
                                    "`tool_use` blocks must begin with a matching number of "
                                    "`tool_result` blocks.")
            answered = {b.get("tool_use_id") for b in content[:leading]}
            missing = [t for t in asked if t not in answered]
            if missing:
                raise ProtocolError(f"messages.{i - 1}: " + MISSING_RESULTS.format(ids=", ".join(missing)))
        asked = [b.get("id") for b in content if b.get("type") == "tool_use"] \
            if m["role"] == "assistant" else []
    if asked:
        raise ProtocolError(f"messages.{len(messages) - 1}: " + MISSING_RESULTS.format(ids=", ".join(asked)))


def check_request(body) -> None:
    """Anthropic's rules for a Messages request, in the order this fake checks them."""
    if not isinstance(body, dict):
        raise ProtocolError("The request body is not valid JSON.")
    for name in ("model", "max_tokens", "messages"):
        if body.get(name) is None:
            raise _field_required(name)
    if not isinstance(body["max_tokens"], int) or isinstance(body["max_tokens"], bool):
        raise ProtocolError("max_tokens: Input should be a valid integer")
    if body["max_tokens"] < 1:
        raise ProtocolError("max_tokens: Input should be greater than or equal to 1")
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        raise ProtocolError("messages: at least one message is required")
    uses_tools = False
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "content" not in m:
            raise _field_required(f"messages.{i}.content")
        if m.get("role") == "system":
            raise ProtocolError('messages: Unexpected role "system". The Messages API accepts a '
                                'top-level `system` parameter, not "system" as an input message role.')
        if m.get("role") not in ("user", "assistant"):
            raise ProtocolError(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if not isinstance(m["content"], str | list) or \
                not all(isinstance(b, dict) for b in blocks(m["content"])):
            raise ProtocolError(f"messages.{i}.content: Input should be a valid list")
        uses_tools |= any(b.get("type") in ("tool_use", "tool_result") for b in blocks(m["content"]))
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list):
            raise ProtocolError("system: Input should be a valid list")
        for i, b in enumerate(system):
            if not isinstance(b, dict) or b.get("type") != "text" or not isinstance(b.get("text"), str):
                raise ProtocolError(f"system.{i}: Input should be a text block")
    if body.get("tools") is not None:
        _check_tools(body["tools"])
    elif uses_tools:
        raise ProtocolError("Requests which include `tool_use` or `tool_result` blocks must define tools.")
    _check_cache_control(body)
    _check_turn_pairing(messages)
    if messages[-1]["role"] == "assistant":  # a current model: no prefill (Claude 4.6 and later)
        raise ProtocolError("This model does not support assistant message prefill. The "
                            "conversation must end with a user message.")
    stops = body.get("stop_sequences")
    if stops is not None and (not isinstance(stops, list) or not all(isinstance(s, str) for s in stops)):
        raise ProtocolError("stop_sequences: Input should be a valid list")


def marked_blocks(body: dict):
    """(where, block) for every block that may carry `cache_control`: tools, system, content."""
    for i, t in enumerate(body.get("tools") or ()):
        yield f"tools.{i}", t
    if isinstance(body.get("system"), list):
        for i, b in enumerate(body["system"]):
            yield f"system.{i}", b
    for i, m in enumerate(body["messages"]):
        if isinstance(m["content"], list):
            for j, b in enumerate(m["content"]):
                yield f"messages.{i}.content.{j}", b


def is_breakpoint(block: dict) -> bool:
    """Whether a block carries a `cache_control` breakpoint (an object; null means none)."""
    return isinstance(block.get("cache_control"), dict)


def _check_cache_control(body: dict) -> None:
    """A breakpoint is an object (null means none); at most 4 in one request."""
    found = 0
    for where, block in marked_blocks(body):
        if block.get("cache_control") is not None and not is_breakpoint(block):
            raise ProtocolError(f"{where}.cache_control: Input should be a valid dictionary")
        found += is_breakpoint(block)
    if found > 4:
        raise ProtocolError(f"A maximum of 4 blocks with cache_control may be provided. Found {found}.")


def bare(block: dict) -> dict:
    """A block without its `cache_control`: a breakpoint is not part of the prompt's text."""
    return {k: v for k, v in block.items() if k != "cache_control"}


def without_cache_control(body: dict) -> dict:
    """The request as the model reads it: the same blocks, no breakpoints (they cost no tokens)."""
    def clean(content):
        return [bare(b) for b in content] if isinstance(content, list) else content

    out = dict(body, messages=[dict(m, content=clean(m["content"])) for m in body["messages"]])
    for key in ("tools", "system"):
        if isinstance(body.get(key), list):
            out[key] = clean(body[key])
    return out


def _result_text(block: dict) -> str:
    """A tool_result as the text a scenario reads; is_error makes it an error observation,
    `{"error": text}` (docs/CHAPTERS.md, glossary), unless the text already reports an error."""
    text = text_of(block.get("content")) or ""
    if block.get("is_error") and error_of(text) is None:
        text = json.dumps({"error": text}, ensure_ascii=False)
    return text


def to_turns(body: dict) -> list[Turn]:
    """The request as the turns a scenario reads, the same as for a Chat Completions request."""
    turns = []
    if body.get("system"):
        turns.append(Turn("system", text_of(body["system"])))
    for m in body["messages"]:
        content = blocks(m["content"])
        if m["role"] == "assistant":
            calls = tuple(ToolCallSeen(b.get("id"), b.get("name", ""),
                                       json.dumps(b.get("input"), ensure_ascii=False))
                          for b in content if b.get("type") == "tool_use")
            turns.append(Turn("assistant", text_of([b for b in content if b.get("type") == "text"])
                              or None, calls))
            continue
        turns += [Turn("tool", _result_text(b), (), b.get("tool_use_id"))
                  for b in content if b.get("type") == "tool_result"]
        texts = [b for b in content if b.get("type") == "text"]
        if texts or not any(b.get("type") == "tool_result" for b in content):
            turns.append(Turn("user", text_of(texts)))
    return turns


def tool_names(body: dict) -> tuple[str, ...]:
    return tuple(str(t.get("name")) for t in body.get("tools") or ())


def reply_content(reply: Reply, ids: list[str]) -> list[dict]:
    """The reply's content blocks: its text, then one tool_use per call (`input` an object)."""
    content: list[dict] = [{"type": "text", "text": reply.text}] if reply.text else []
    for tid, c in zip(ids, reply.calls, strict=False):
        args = c.args if isinstance(c.args, dict) else json_or_none(c.args)
        content.append({"type": "tool_use", "id": tid, "name": c.name,
                        "input": args if isinstance(args, dict) else {}})
    return content


def stop_reason(reply: Reply, hit: str | None) -> str:
    return "stop_sequence" if hit is not None else STOP_REASONS.get(reply.finish(), "end_turn")


def anthropic_tools(openai_tools) -> list[dict]:
    """OpenAI tool definitions in Anthropic's shape: {"name", "description", "input_schema"}."""
    return [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
             "input_schema": t["function"].get("parameters", {"type": "object"})}
            for t in openai_tools or ()]
