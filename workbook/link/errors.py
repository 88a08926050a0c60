"""Exceptions across the link: an exception as data, and back as an exception this side can catch.

Out (`exception_data`): the class's path and message, its `args` and a few attributes when they
are data (`json.JSONDecodeError`'s `msg`, `doc`, `pos`; an `OSError`'s file names), and for an
SDK error its status, headers and `body` (JSON data only, at most MAX_BODY bytes of it).

In (`make_exception`): the class is the one `exc_classes.find_exception` allows (a built-in, a
listed standard-library or SDK class, a workbook class, else a stand-in of its name), built
again from its arguments when they are plain data, so `except KeyError as e: e.args` and
`pytest.raises(json.JSONDecodeError)` see what was raised; an SDK error gets a response with its
status and headers, and its body back.
"""

from __future__ import annotations

import inspect
import json
import math
import traceback
from typing import Any

import httpx2

from workbook.engine.function_face import TooManyCalls
from workbook.link import codec
from workbook.link.exc_classes import find_exception, foreign_exception, loaded

__all__ = ["MAX_MSG", "exc_reply", "exception_data", "find_exception", "foreign_exception", "loaded",
           "make_exception"]

MAX_MSG = 2_000  # characters of an exception's message that cross
MAX_BODY = 64_000  # bytes of an SDK error's body (as JSON) that cross
MAX_DATA = 200_000  # bytes of an exception's args and attributes (as JSON) that cross
MAX_JSON_DEPTH = 32
ATTRS = {json.JSONDecodeError: ("msg", "doc", "pos"), OSError: ("filename", "filename2")}
PLAIN = (str, int, float, bool, type(None), bytes, tuple, list, dict)


def _no_handles(obj):
    raise codec.LinkError(f"{type(obj).__name__} is not data")


def _data(value, cap: int = MAX_DATA):
    """`value` as codec data if it is plain data within `cap` bytes, else None."""
    try:
        wire = codec.encode(value, _no_handles)
        return wire if len(json.dumps(wire)) <= cap else None
    except (codec.LinkError, TypeError, ValueError, RecursionError):
        return None


def json_body(value, depth: int = 0, budget: list | None = None):
    """`value` if it is JSON data (dicts with text keys, lists, text, finite numbers, booleans,
    None) of at most MAX_JSON_DEPTH levels and MAX_BODY bytes, else None."""
    budget = [MAX_BODY] if budget is None else budget
    kind = type(value)
    budget[0] -= len(value) if kind is str else 8
    if budget[0] < 0 or depth > MAX_JSON_DEPTH:
        raise ValueError("too big")
    if value is None or kind in (bool, int, str) or (kind is float and math.isfinite(value)):
        return value
    if kind is list:
        return [json_body(v, depth + 1, budget) for v in value]
    if kind is dict and all(type(k) is str for k in value):
        return {k: json_body(v, depth + 1, budget) for k, v in value.items()}
    raise ValueError("not JSON data")


def plain_json(value):
    try:
        return json_body(value)
    except (ValueError, RecursionError):
        return None


def exception_data(e: BaseException, inner=None) -> dict:
    """An exception as data: its class, message, args and listed attributes when they are data;
    an SDK error's status, headers and JSON body."""
    out: dict[str, Any] = {"$e": codec.class_path(e), "msg": _message(e)}
    args = _data(tuple(e.args)) if type(e.args) is tuple else None
    if args is not None:
        out["args"] = args
    for cls, names in ATTRS.items():
        if isinstance(e, cls):
            attrs = _data({n: getattr(e, n, None) for n in names})
            if attrs is not None:
                out["attrs"] = attrs
    response = getattr(e, "response", None)
    if response is not None and isinstance(getattr(response, "status_code", None), int):
        out["status"] = response.status_code
        out["headers"] = [[str(k), str(v)] for k, v in response.headers.items()][:100]
        out["body"] = _data(plain_json(getattr(e, "body", None)), MAX_BODY)
    elif "body" in getattr(e, "__dict__", {}):  # an SDK error without a response (APIError)
        out["body"] = _data(plain_json(e.__dict__["body"]), MAX_BODY)
    return out


def _message(e: BaseException) -> str:
    try:
        return str(getattr(e, "message", None) or e)[:MAX_MSG]
    except Exception:  # noqa: BLE001 - a str() that raises is still an answer
        return "<an exception whose message could not be read>"


def exc_reply(e: BaseException) -> dict:
    data = exception_data(e)
    data["mro"] = [c.__name__ for c in type(e).__mro__ if c is not object][:20]
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith(LINK_DIR)][-3:]
    data["where"] = [where(f) for f in frames]
    return {"exc": data}


LINK_DIR = __file__.rsplit("/", 1)[0] + "/"  # this package's own frames are not the student's


def where(frame) -> str:
    """Where a frame is, in a student's words: a notebook cell's function, or a module's line."""
    name = frame.filename.rsplit("/", 1)[-1]
    if "ipykernel" in frame.filename or name.startswith("<ipython"):
        return f"{frame.name}, line {frame.lineno} of its cell"[:200]
    return f"{frame.name} ({name}:{frame.lineno})"[:200]


def make_exception(node: dict, inner, request_url: str = "http://fake-llm.invalid/v1", modules=loaded,
                   foreign=None):
    """An exception from its data; SDK errors get a response with their status and headers.
    `modules` says where a workbook exception's class is looked up, `foreign` what an unlisted
    class becomes (`exc_classes.find_exception`)."""
    cls = find_exception(node.get("$e"), node.get("mro"), modules, foreign)
    err = _build_exception(node, inner, request_url, cls)
    try:
        err.from_other_side = True  # the judge shows such a message only where the notebook's texts may show
        if getattr(cls, "stand_in", False):  # the notebook's name for its class, as data
            err.notebook_class = codec.split_path(str(node.get("$e")))[1].rpartition(".")[2][:100]
    except (AttributeError, codec.LinkError):
        pass
    where = node.get("where")
    if type(where) is list and where and hasattr(err, "add_note"):
        err.add_note("raised in the notebook: " + " > ".join(str(w)[:200] for w in where[-3:]))
    return err


def _plain(value) -> bool:
    """Only data: what a stand-in or a listed class may be built from (never a handle)."""
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return type(value) in PLAIN


def _decoded(node: dict, key: str, inner, kind: type):
    if key not in node:
        return None
    try:
        value = inner(node[key])
    except codec.LinkError:
        return None
    return value if type(value) is kind and _plain(value) else None


def _build_exception(node: dict, inner, request_url: str, cls: type):
    msg = str(node.get("msg", ""))[:MAX_MSG]
    status = node.get("status")
    args, attrs = _decoded(node, "args", inner, tuple), _decoded(node, "attrs", inner, dict) or {}
    try:
        params = _parameters(cls)
        if type(status) is int and "response" in params:
            headers = [(str(k), str(v)) for k, v in node.get("headers", [])][:100]
            response = httpx2.Response(status, headers=headers, request=httpx2.Request("POST", request_url))
            return cls(msg, response=response, body=plain_json(inner(node.get("body"))))
        if "request" in params:
            kwargs: dict[str, Any] = {"request": httpx2.Request("POST", request_url)}
            if "message" in params:
                kwargs["message"] = msg
            if "body" in params and "body" in node:
                kwargs["body"] = plain_json(inner(node.get("body")))
            return cls(**kwargs)
        if cls is TooManyCalls:
            return TooManyCalls(int(msg.split("more than ")[-1].split()[0]) if "more than " in msg else 0)
        if issubclass(cls, json.JSONDecodeError) and {"msg", "doc", "pos"} <= set(attrs):
            return cls(str(attrs["msg"]), str(attrs["doc"]), int(attrs["pos"]))
        err = cls(*args) if args is not None else cls(msg)
        if isinstance(err, OSError):
            for name in ATTRS[OSError]:
                if type(attrs.get(name)) in (str, bytes, int):
                    setattr(err, name, attrs[name])
        return err
    except Exception:  # noqa: BLE001 - a class that will not be built from its data
        exc_cls: type[BaseException] = cls  # an exception class, always (exc_classes.find_exception)
        err = exc_cls.__new__(exc_cls)
        BaseException.__init__(err, *(args if args is not None else (msg,)))
        return err


def _parameters(cls) -> dict:
    try:
        return dict(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        return {}
