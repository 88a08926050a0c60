"""The request rules a real provider enforces, with the real providers' error texts.

Each rule raises ProtocolError, which the faces turn into HTTP 400 and an OpenAI-shaped body.
Every text, with its source, is listed in docs/SOURCES.md (the typo "preceeding" is OpenAI's own).
"""

from __future__ import annotations

import re

from workbook.engine.errors import openai_error

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class ProtocolError(Exception):
    """A request a real provider would refuse with 400."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None,
                 type: str = "invalid_request_error", status: int = 400):
        super().__init__(message)
        self.message, self.param, self.code, self.type, self.status = message, param, code, type, status

    def body(self) -> dict:
        return openai_error(self.message, self.type, self.param, self.code)


def json_kind(value) -> str:
    """A JSON value's type in words, as OpenAI's errors name it ("an array", "null"...)."""
    return {dict: "an object", list: "an array", str: "a string", int: "an integer",
            float: "a number", bool: "a boolean", type(None): "null"}.get(type(value), "a value")


def _bad_type(where: str, expected: str, value) -> ProtocolError:
    return ProtocolError(f"Invalid type for '{where}': expected {expected}, but got "
                         f"{json_kind(value)} instead.", where, "invalid_type")


def _missing_replies(ids: list[str]) -> ProtocolError:
    return ProtocolError(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(ids), "messages")


def _check_content(i: int, m: dict) -> None:
    content = m.get("content")
    ok = isinstance(content, str | list) or (content is None and m["role"] == "assistant")
    if not ok:
        raise _bad_type(f"messages[{i}].content", "one of a string or array of objects", content)


def _check_tool_calls(i: int, calls) -> list[str]:
    if not isinstance(calls, list):
        raise _bad_type(f"messages[{i}].tool_calls", "an array", calls)
    ids = []
    for j, c in enumerate(calls):
        where = f"messages[{i}].tool_calls[{j}]"
        if not isinstance(c, dict):
            raise _bad_type(where, "an object", c)
        fn = c.get("function")
        for key, value in (("id", c.get("id")), ("function", fn)):
            if value is None:
                raise ProtocolError(f"Missing required parameter: '{where}.{key}'.",
                                    f"{where}.{key}", "missing_required_parameter")
        if c.get("type", "function") != "function":
            raise ProtocolError(f"Invalid value: '{c.get('type')}'. Supported values are: "
                                "'function' and 'custom'.", f"{where}.type", "invalid_value")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise _bad_type(f"{where}.function.name", "a string", (fn or {}).get("name"))
        if not isinstance(fn.get("arguments"), str):
            raise _bad_type(f"{where}.function.arguments", "a string", fn.get("arguments"))
        ids.append(c["id"])
    return ids


def check_messages(messages) -> None:
    """Roles, content types, and the pairing of tool calls with tool messages."""
    if not isinstance(messages, list):
        raise _bad_type("messages", "an array", messages)
    if not messages:
        raise ProtocolError("Invalid 'messages': empty array. Expected an array with minimum length 1, "
                            "but got an empty array instead.", "messages", "empty_array")
    pending: list[str] | None = None  # ids of the latest tool-calling assistant turn
    answered: set[str] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise _bad_type(f"messages[{i}]", "an object", m)
        role = m.get("role")
        if role not in ROLES:
            raise ProtocolError(f"Invalid value: '{role}'. Supported values are: 'system', "
                                "'assistant', 'user', 'function', 'tool', and 'developer'.",
                                f"messages[{i}].role", "invalid_value")
        _check_content(i, m)
        if role == "tool":
            tid = m.get("tool_call_id")
            if tid is None:
                raise ProtocolError("Missing parameter 'tool_call_id': messages with role 'tool' "
                                    "must have a 'tool_call_id'.", f"messages.[{i}].tool_call_id")
            if pending is None:
                raise ProtocolError("Invalid parameter: messages with role 'tool' must be a response "
                                    "to a preceeding message with 'tool_calls'.", f"messages.[{i}].role")
            if tid not in pending:
                raise ProtocolError(f"Invalid parameter: 'tool_call_id' of '{tid}' not found in "
                                    "'tool_calls' of previous message.", f"messages.[{i}].tool_call_id")
            if tid in answered:
                raise ProtocolError(f"Invalid parameter: duplicate response for 'tool_call_id' of "
                                    f"'{tid}'.", f"messages.[{i}].tool_call_id")
            answered.add(tid)
            continue
        if pending is not None and set(pending) - answered:
            raise _missing_replies([t for t in pending if t not in answered])
        pending, answered = None, set()
        if role == "assistant" and m.get("tool_calls"):
            pending = _check_tool_calls(i, m["tool_calls"])
    if pending is not None and set(pending) - answered:
        raise _missing_replies([t for t in pending if t not in answered])


def check_tools(tools, tool_choice) -> None:
    """Tool definitions: type function, a valid name, parameters an object schema."""
    if tools is None:
        if tool_choice is not None:
            raise ProtocolError("Invalid value for 'tool_choice': 'tool_choice' is only allowed "
                                "when 'tools' are specified.", "tool_choice")
        return
    if not isinstance(tools, list):
        raise _bad_type("tools", "an array", tools)
    for i, t in enumerate(tools):
        if not isinstance(t, dict):
            raise _bad_type(f"tools[{i}]", "an object", t)
        if t.get("type") != "function":
            raise ProtocolError(f"Invalid value: '{t.get('type')}'. Supported values are: "
                                "'function' and 'custom'.", f"tools[{i}].type", "invalid_value")
        fn = t.get("function")
        if not isinstance(fn, dict):
            raise ProtocolError(f"Missing required parameter: 'tools[{i}].function'.",
                                f"tools[{i}].function", "missing_required_parameter")
        name = fn.get("name")
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            raise ProtocolError(f"Invalid 'tools[{i}].function.name': string does not match "
                                "pattern. Expected a string that matches the pattern "
                                "'^[a-zA-Z0-9_-]+$'.", f"tools[{i}].function.name", "invalid_value")
        params = fn.get("parameters", {"type": "object"})
        if not isinstance(params, dict) or params.get("type") != "object":
            got = params.get("type") if isinstance(params, dict) else json_kind(params)
            raise ProtocolError(f"Invalid schema for function '{name}': schema must be a JSON "
                                f"Schema of 'type: \"object\"', got 'type: \"{got}\"'.",
                                f"tools[{i}].function.parameters", "invalid_function_parameters")
    if tool_choice is not None and tool_choice not in ("none", "auto", "required") \
            and not isinstance(tool_choice, dict):
        raise ProtocolError(f"Invalid value: '{tool_choice}'. Supported values are: 'none', "
                            "'auto', and 'required'.", "tool_choice", "invalid_value")


MAX_STOP = 4  # OpenAI's limit on `stop` (the API reference: "Up to 4 sequences")


def stop_list(stop) -> list[str]:
    """The `stop` of a Chat Completions request as a list: a string, up to 4 strings, or null.
    Raises ProtocolError with OpenAI's wording otherwise (docs/SOURCES.md)."""
    if stop is None:
        return []
    if isinstance(stop, str):
        return [stop]
    if not isinstance(stop, list):
        raise _bad_type("stop", "one of a string or array of strings", stop)
    if not stop:
        raise ProtocolError("Invalid 'stop': empty array. Expected an array with minimum length 1, "
                            "but got an empty array instead.", "stop", "empty_array")
    if len(stop) > MAX_STOP:
        raise ProtocolError(f"Invalid 'stop': array too long. Expected an array with maximum length "
                            f"{MAX_STOP}, but got an array with length {len(stop)} instead.", "stop",
                            "array_above_max_length")
    for i, s in enumerate(stop):
        if not isinstance(s, str):
            raise _bad_type(f"stop[{i}]", "a string", s)
    return stop


def thinking_enabled(body: dict) -> bool:
    return (body.get("thinking") or {}).get("type", "enabled") != "disabled"


def check_deepseek(body: dict) -> None:
    """DeepSeek thinking mode: reasoning_content must go back; no forced tool choice."""
    if not thinking_enabled(body):
        return
    choice = body.get("tool_choice")
    if choice == "required" or isinstance(choice, dict):
        raise ProtocolError("Thinking mode does not support this tool_choice", None,
                            "invalid_request_error")
    for m in body["messages"]:
        if m.get("role") == "assistant" and m.get("tool_calls") and not m.get("reasoning_content"):
            raise ProtocolError("The `reasoning_content` in the thinking mode must be passed back "
                                "to the API.", None, "invalid_request_error")


def ollama_model_name(model: str) -> str:
    """The full name Ollama puts in its errors: 'qwen3:4b' -> 'registry.ollama.ai/library/qwen3:4b'."""
    name = model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
    parts = name.split("/")
    if len(parts) == 1:
        parts = ["library", *parts]
    if len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    return "/".join(parts)


def check_ollama(body: dict, supports_tools: bool = True) -> None:
    """Ollama: a model without tool support refuses any request that sends tools."""
    if body.get("tools") and not supports_tools:
        raise ProtocolError(f"{ollama_model_name(str(body['model']))} does not support tools")


def check_max_tokens(body: dict, dialect: str) -> None:
    """`max_tokens` / `max_completion_tokens`, when sent: a whole number >= 1 (docs/SOURCES.md).
    Ollama takes what it can use and ignores the rest, as its OpenAI-compatible API does."""
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if value is None or dialect == "ollama":
            continue
        whole = isinstance(value, int) and not isinstance(value, bool)
        if dialect == "deepseek" and not (whole and value >= 1):
            raise ProtocolError("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",
                                None, "invalid_request_error")
        if not whole:
            raise _bad_type(key, "an integer", value)
        if value < 1:
            raise ProtocolError(f"Invalid '{key}': integer below minimum value. Expected a value >= 1, "
                                f"but got {value} instead.", key, "integer_below_min_value")


def check_request(body, dialect: str = "openai", supports_tools: bool = True) -> None:
    """Every rule, in the order a provider checks them."""
    if not isinstance(body, dict):
        raise ProtocolError("We could not parse the JSON body of your request.", None, None)
    if not body.get("model"):
        raise ProtocolError("you must provide a model parameter")
    check_messages(body.get("messages"))
    check_tools(body.get("tools"), body.get("tool_choice"))
    stop_list(body.get("stop"))
    check_max_tokens(body, dialect)
    if dialect == "deepseek":
        check_deepseek(body)
    if dialect == "ollama":
        check_ollama(body, supports_tools)
