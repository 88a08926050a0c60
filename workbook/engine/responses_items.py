"""The Responses API's items (`POST /v1/responses`): the request rules with OpenAI's texts, and the
items as the Chat Completions messages a scenario reads.

A request's `input` is a string (one user message) or a list of items: messages (string or part
content), `function_call`, `function_call_output`, `reasoning` and `item_reference`. The same
scenarios play behind this face: `instructions` become a system message, a run of
`function_call` items one assistant turn with tool calls, a `function_call_output` a tool message
(found by `call_id`); reasoning items are read by no scenario and cost no input tokens. Every
text, with its source, is listed in docs/SOURCES.md ("OpenAI Responses API").
"""

from __future__ import annotations

from workbook.engine.protocol import TOOL_NAME, ProtocolError, json_kind
from workbook.engine.responses_tools import check_strict
from workbook.engine.turns import text_of

ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning", "item_reference")
ROLES = ("user", "assistant", "system", "developer")
CHOICES = ("none", "auto", "required")


def kind(item: dict) -> str | None:
    """An item's type: a `{"role", "content"}` without `type` is a message (the SDK's easy form)."""
    return item.get("type") or ("message" if "role" in item else None)


def _missing(where: str) -> ProtocolError:
    return ProtocolError(f"Missing required parameter: '{where}'.", where, "missing_required_parameter")


def _unknown(where: str) -> ProtocolError:
    return ProtocolError(f"Unknown parameter: '{where}'.", where, "unknown_parameter")


def _bad_type(where: str, expected: str, value) -> ProtocolError:
    return ProtocolError(f"Invalid type for '{where}': expected {expected}, but got "
                         f"{json_kind(value)} instead.", where, "invalid_type")


def _strings(item: dict, where: str, keys: tuple[str, ...]) -> None:
    for key in keys:
        if item.get(key) is None:
            raise _missing(f"{where}.{key}")
        if not isinstance(item[key], str):
            raise _bad_type(f"{where}.{key}", "a string", item[key])


def _check_message(item: dict, where: str) -> None:
    for key in ("tool_calls", "tool_call_id"):  # a Chat Completions message sent as an item
        if key in item:
            raise _unknown(f"{where}.{key}")
    role = item.get("role")
    if role not in ROLES:
        raise ProtocolError(f"Invalid value: '{role}'. Supported values are: 'assistant', 'system', "
                            "'developer', and 'user'.", f"{where}.role", "invalid_value")
    content = item.get("content")
    if not isinstance(content, str | list) or (isinstance(content, list) and
                                                not all(isinstance(p, dict) for p in content)):
        raise _bad_type(f"{where}.content", "one of a string or array of objects", content)
    for j, part in enumerate(content if isinstance(content, list) else ()):
        if role == "assistant" and part.get("type") not in ("output_text", "refusal"):
            raise ProtocolError(f"Invalid value: '{part.get('type')}'. Supported values are: "
                                "'output_text' and 'refusal'.", f"{where}.content[{j}]", "invalid_value")


def _check_item(item, where: str) -> None:
    if not isinstance(item, dict):
        raise _bad_type(where, "an object", item)
    t = kind(item)
    if t not in ITEM_TYPES:
        raise ProtocolError(f"Invalid value: '{t}'. The fake model accepts input items of type "
                            "'message', 'function_call', 'function_call_output', 'reasoning' and "
                            "'item_reference'.", f"{where}.type", "invalid_value")
    if t == "message":
        _check_message(item, where)
    elif t == "function_call":
        _strings(item, where, ("call_id", "name", "arguments"))
    elif t == "function_call_output":
        _strings(item, where, ("call_id",))
        output = item.get("output")
        if output is None:
            raise _missing(f"{where}.output")
        if not isinstance(output, str | list):
            raise _bad_type(f"{where}.output", "one of a string or array of objects", output)
    elif t == "reasoning":
        _strings(item, where, ("id",))
        if not isinstance(item.get("summary"), list):
            raise _missing(f"{where}.summary") if "summary" not in item else \
                _bad_type(f"{where}.summary", "an array", item["summary"])
    else:
        _strings(item, where, ("id",))


def _check_tools(tools, choice) -> None:
    if tools is not None:
        if not isinstance(tools, list):
            raise _bad_type("tools", "an array", tools)
        for i, t in enumerate(tools):
            if not isinstance(t, dict):
                raise _bad_type(f"tools[{i}]", "an object", t)
            if t.get("type") != "function":
                raise ProtocolError(f"Invalid value: '{t.get('type')}'. The fake model supports only "
                                    "function tools.", f"tools[{i}].type", "invalid_value")
            if "name" not in t:  # Chat Completions' nested {"function": {...}} lands here
                raise _missing(f"tools[{i}].name")
            if not isinstance(t["name"], str) or not TOOL_NAME.fullmatch(t["name"]):
                raise ProtocolError(f"Invalid 'tools[{i}].name': string does not match pattern. "
                                    "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                                    f"tools[{i}].name", "invalid_value")
            params = t.get("parameters") or {"type": "object"}
            if not isinstance(params, dict) or params.get("type") != "object":
                got = params.get("type") if isinstance(params, dict) else json_kind(params)
                raise ProtocolError(f"Invalid schema for function '{t['name']}': schema must be a JSON "
                                    f"Schema of 'type: \"object\"', got 'type: \"{got}\"'.",
                                    f"tools[{i}].parameters", "invalid_function_parameters")
            if t.get("strict") is not None and not isinstance(t["strict"], bool):
                raise _bad_type(f"tools[{i}].strict", "a boolean", t["strict"])
            if t.get("strict") is True:  # omitted is strict too, but normalized (responses_tools)
                check_strict(t["name"], params, f"tools[{i}].parameters")
    if choice is not None and choice not in CHOICES and not isinstance(choice, dict):
        raise ProtocolError(f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and "
                            "'required'.", "tool_choice", "invalid_value")


def check_request(body) -> None:
    """The rules of one request on its own, in the order this fake checks them (the rules that
    need the conversation so far are in check_context)."""
    if not isinstance(body, dict):
        raise ProtocolError("We could not parse the JSON body of your request.", None, None)
    if not body.get("model"):
        raise ProtocolError("you must provide a model parameter")
    if "messages" in body:  # a Chat Completions body sent to /v1/responses
        raise _unknown("messages")
    if body.get("input") is None:
        raise _missing("input")
    items = body["input"]
    if not isinstance(items, str | list):
        raise _bad_type("input", "one of a string or array of objects", items)
    for i, item in enumerate(items if isinstance(items, list) else ()):
        _check_item(item, f"input[{i}]")
    _check_tools(body.get("tools"), body.get("tool_choice"))
    for key, expected, ok in (("instructions", "a string", str), ("previous_response_id", "a string", str),
                              ("store", "a boolean", bool), ("reasoning", "an object", dict)):
        if body.get(key) is not None and not isinstance(body[key], ok):
            raise _bad_type(key, expected, body[key])
    effort = (body.get("reasoning") or {}).get("effort")
    if effort is not None and not isinstance(effort, str):
        raise _bad_type("reasoning.effort", "a string", effort)
    limit = body.get("max_output_tokens")
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise _bad_type("max_output_tokens", "an integer", limit)
        if limit < 1:
            raise ProtocolError(f"Invalid 'max_output_tokens': integer below minimum value. Expected a "
                                f"value >= 1, but got {limit} instead.", "max_output_tokens",
                                "integer_below_min_value")


def input_items(value) -> list[dict]:
    """`input` as a list of items: a string is one user message."""
    return [{"role": "user", "content": value}] if isinstance(value, str) else list(value)


def check_context(context: list[dict], reasoning_of: dict[str, str]) -> None:
    """The rules on the whole conversation (a chain's earlier items, then this input): no item id
    twice, a reasoning item comes right before the item it produced, a `function_call` or `message`
    this fake issued after a reasoning item comes after that item (`reasoning_of`: fc/msg id -> rs
    id), every output answers an earlier call and every call has its output."""
    seen: set[str] = set()
    for item in context:
        item_id = item.get("id")
        if isinstance(item_id, str):
            if item_id in seen:
                raise ProtocolError(f"Duplicate item found with id {item_id}. Remove duplicate items from "
                                    "your input and try again.", "input")
            seen.add(item_id)
    for i, item in enumerate(context):
        t = kind(item)
        if t == "reasoning":
            after = context[i + 1] if i + 1 < len(context) else {}
            if kind(after) not in ("function_call", "message") or \
                    (kind(after) == "message" and after.get("role") != "assistant"):
                raise ProtocolError(f"Item '{item['id']}' of type 'reasoning' was provided without its "
                                    "required following item.", "input")
        if t in ("function_call", "message") and item.get("id") in reasoning_of:
            rs = reasoning_of[item["id"]]
            if rs not in {c.get("id") for c in context[:i]}:
                raise ProtocolError(f"Item '{item['id']}' of type '{t}' was provided without its "
                                    f"required 'reasoning' item: '{rs}'.", "input")
    calls: set[str] = set()
    answered: set[str] = set()
    for item in context:
        if kind(item) == "function_call":
            calls.add(item["call_id"])
        elif kind(item) == "function_call_output":
            if item["call_id"] not in calls:
                raise ProtocolError("No tool call found for function call output with call_id "
                                    f"{item['call_id']}.", "input")
            answered.add(item["call_id"])
    for item in context:
        if kind(item) == "function_call" and item["call_id"] not in answered:
            raise ProtocolError(f"No tool output found for function call {item['call_id']}.", "input")


def _output_text(output) -> str:
    return output if isinstance(output, str) else text_of(output) or ""


def to_messages(instructions: str | None, context: list[dict]) -> list[dict]:
    """The conversation as Chat Completions messages, which scenarios, the token rule and the
    prefix cache read: a run of function calls joins the assistant message before it."""
    out: list[dict] = [{"role": "system", "content": instructions}] if instructions else []
    for item in context:
        t = kind(item)
        if t == "message":
            out.append({"role": item["role"], "content": text_of(item["content"]) or ""})
        elif t == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if out and out[-1]["role"] == "assistant":
                out[-1].setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif t == "function_call_output":
            out.append({"role": "tool", "tool_call_id": item["call_id"],
                        "content": _output_text(item["output"])})
    return out


def chat_tools(tools) -> list[dict] | None:
    """Flat Responses function tools in the Chat Completions shape the token rule counts."""
    if not tools:
        return None
    return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters")
                                              if t.get(k) is not None}} for t in tools]
