"""Function tools on the Responses API: strict when possible.

Chat Completions tools are non-strict unless `"strict": true`. On Responses a function tool that
omits `strict` is made strict when its schema can be, and otherwise falls back to non-strict,
best-effort calling (docs/SOURCES.md, "OpenAI Responses API"):

- `strict` omitted (or null), a schema strict mode can express: it is normalized into strict mode,
  every object closed (`additionalProperties: false`) and every property required, which can make
  an optional argument mandatory. The response echoes the tool as `strict: true` with that schema.
- `strict` omitted (or null), a schema that uses a keyword strict mode does not support
  (`UNSUPPORTED`, the structured-outputs guide's list): the fallback. The response echoes the tool
  as `strict: false` with the schema as sent. Which schemas OpenAI cannot make strict is not
  listed anywhere; this keyword rule is the fake's own.
- `strict: true`: the schema must already be strict: a 400 otherwise, "Invalid schema for function
  '…': In context=(…), '…' is required to be supplied …", the context being the path to the
  object at fault (`()` the root, `('properties', 'x')`, `('properties', 'x', 'items')`).
- `strict: false`: the tool as sent, best effort.

A `strict: true` tool's calls are fitted to its schema as on Chat Completions (`strict.fit`).
What the fake does not play: a real model under a normalized schema fills every argument it made
required; the fake's scenarios send the arguments they script for a tool that omits `strict`.
"""

from __future__ import annotations

import copy

from workbook.engine.protocol import ProtocolError


def _objects(schema, path: tuple = ()):
    """(path, schema) of every object schema in `schema`: itself, its properties', its items'."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" or "properties" in schema:
        yield path, schema
    for key, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        yield from _objects(sub, (*path, "properties", key))
    if isinstance(schema.get("items"), dict):
        yield from _objects(schema["items"], (*path, "items"))


def check_strict(name: str, schema: dict, where: str) -> None:
    """A `strict: true` tool's schema, as OpenAI checks it: the first object that is not closed,
    or whose `required` misses a property, is the 400."""
    for path, obj in _objects(schema):
        context = f"Invalid schema for function '{name}': In context={path!r}, "
        if obj.get("additionalProperties") is not False:
            raise ProtocolError(context + "'additionalProperties' is required to be supplied and to be "
                                "false.", where, "invalid_function_parameters")
        required = obj.get("required") if isinstance(obj.get("required"), list) else []
        missing = [k for k in obj.get("properties") or {} if k not in required]
        if missing:
            raise ProtocolError(context + "'required' is required to be supplied and to be an array "
                                f"including every key in properties. Missing '{missing[0]}'.", where,
                                "invalid_function_parameters")


UNSUPPORTED = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "dependentSchemas")


def strict_possible(schema) -> bool:
    """Whether strict mode can express `schema`: no keyword of `UNSUPPORTED` anywhere in it (in
    subschemas too, never in the names of properties)."""
    if not isinstance(schema, dict):
        return True
    if any(k in schema for k in UNSUPPORTED):
        return False
    subs = [schema.get(k) for k in _SUBSCHEMAS]
    subs += [s for k in _SCHEMA_LISTS if isinstance(schema.get(k), list) for s in schema[k]]
    subs += [s for k in _SCHEMA_MAPS if isinstance(schema.get(k), dict) for s in schema[k].values()]
    return all(strict_possible(s) for s in subs)


def normalized(schema: dict) -> dict:
    """The schema in strict mode: every object closed, every property required (a copy)."""
    out = copy.deepcopy(schema)
    for _, obj in _objects(out):
        obj["additionalProperties"] = False
        obj["required"] = list(obj.get("properties") or {})
    return out


def echoed(tool: dict) -> dict:
    """A function tool as the response lists it: `strict: false` as sent; `strict` omitted, strict
    and normalized when its schema can be, else `strict: false` as sent (the fallback)."""
    if tool.get("strict") is False:
        return dict(tool)
    params = tool.get("parameters") or {"type": "object", "properties": {}}
    if tool.get("strict") is not True and not strict_possible(params):
        return dict(tool, strict=False)
    return dict(tool, strict=True, parameters=normalized(params))
