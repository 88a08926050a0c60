"""Strict tool schemas (`"strict": true` on a Chat Completions function), as providers treat them.

OpenAI, and DeepSeek's beta, check a strict tool's schema when the request arrives and refuse one
that strict mode cannot enforce: every object needs `"additionalProperties": false` and a
`required` list naming every one of its properties (an optional property becomes a required one
that may be null). Then they constrain the model's output to the schema, so the arguments always
parse and always fit it. Ollama's OpenAI-compatible API has no `strict`: its tool type
(`api.ToolFunction`: name, description, parameters) has no such field, so the flag is dropped when
the request is read and nothing changes. (docs/SOURCES.md, "Strict tool schemas".)

What the fake does, in the `openai` and `deepseek` dialects (Chat Completions only):

- `check(tools, dialect)`: the first rule a strict tool breaks is a 400, in OpenAI's words
  (`invalid_function_parameters`; the same check as the Responses API's, `responses_tools`); the
  fake uses the same text for DeepSeek, whose own is not known here.
- `fit(reply, tools, dialect)`: the fake's own rule, since its scripted model wrote the call
  before the schema could guide it. A key the schema lacks goes to the first required key the call
  lacks whose type takes the value (the model meant it), or is dropped; a required key still
  missing is null when its type allows null, else an empty value of its type; arguments that are
  not JSON start from {}. Values are not checked (strict schemas may carry `pattern` or `minimum`;
  the fake does not enforce them): a bad note name still reaches the tool.
"""

from __future__ import annotations

import json
from dataclasses import replace

from workbook.engine.replies import Call, Reply
from workbook.engine.responses_tools import check_strict

ENFORCING = ("openai", "deepseek")  # dialects whose providers enforce strict schemas
EMPTY = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
JSON_TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
              "array": list, "object": dict, "null": type(None)}


def _strict_tools(tools) -> dict[str, dict]:
    """name -> parameters schema of every tool sent with "strict": true."""
    return {t["function"]["name"]: t["function"].get("parameters") or {}
            for t in tools or () if isinstance(t, dict) and isinstance(t.get("function"), dict)
            and t["function"].get("strict") is True}


def check(tools, dialect: str) -> None:
    """Refuse, as the provider would, a strict tool whose schema strict mode cannot enforce (the rule
    and the texts are the Responses API's, `responses_tools.check_strict`; the param is
    `tools[i].function.parameters` on Chat Completions)."""
    if dialect not in ENFORCING or not isinstance(tools, list):
        return
    for i, t in enumerate(tools):
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and fn.get("strict") is True:
            check_strict(str(fn.get("name")), fn.get("parameters") or {"type": "object"},
                         f"tools[{i}].function.parameters")


def _types(schema: dict) -> list[str]:
    kind = (schema or {}).get("type")
    return list(kind) if isinstance(kind, list) else [kind] if isinstance(kind, str) else []


def _takes(schema: dict, value) -> bool:
    kinds = [k for k in _types(schema) if k in JSON_TYPES]
    if isinstance(value, bool):
        return not kinds or "boolean" in kinds
    return not kinds or any(isinstance(value, JSON_TYPES[k]) for k in kinds)


def _fitted(call: Call, schema: dict) -> Call:
    try:
        args = json.loads(call.arguments())
    except json.JSONDecodeError:
        args = {}
    if not isinstance(args, dict):
        args = {}
    props = schema.get("properties") or {}
    out = {k: v for k, v in args.items() if k in props}
    for key, value in args.items():
        if key in props:
            continue
        meant = next((p for p in props if p not in out and _takes(props[p], value)), None)
        if meant is not None:
            out[meant] = value
    for key, sub in props.items():
        if key not in out:
            types = _types(sub)
            out[key] = None if "null" in types else EMPTY.get(types[0] if types else "", None)
    return Call(call.name, {k: out[k] for k in props})


def fit(reply, tools, dialect: str):
    """The reply with every call to a strict tool fitted to its schema (see the module's rule)."""
    strict = _strict_tools(tools) if dialect in ENFORCING else {}
    if not strict or not isinstance(reply, Reply) or not reply.calls:
        return reply
    return replace(reply, calls=tuple(_fitted(c, strict[c.name]) if c.name in strict else c
                                      for c in reply.calls))
