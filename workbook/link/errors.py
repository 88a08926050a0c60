"""Exceptions across the link: an exception as data, and back as a class this side can catch.

An exception of a module both sides share (builtins, the SDKs, httpx2, the workbook) comes back as
that very class; an SDK error keeps its status, headers and body. An exception class of the other
side's own code (a notebook's `class MCPError(Exception)`) becomes one class of that name here,
the same class each time (`foreign_exception`), so a test can name it and catch what was raised.
"""

from __future__ import annotations

import builtins
import inspect
import sys
import threading
import traceback

from workbook.engine.function_face import TooManyCalls
from workbook.link import codec

MAX_MSG = 2_000  # characters of an exception's message that cross
MAX_FOREIGN = 1_000  # foreign exception classes kept (a kernel that invents more only evicts its own)
EXCEPTION_MODULES = ("builtins", "openai", "anthropic", "httpx2", "httpx", "workbook")
_foreign: dict[tuple[str, str], type] = {}
_lock = threading.Lock()


def exc_reply(e: BaseException) -> dict:
    data = codec.exception_data(e, lambda x: None)
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


def find_exception(path: str, mro) -> type:
    """The class an exception names, if it is one of the few modules both sides share; else a
    class of that name under its nearest built-in base."""
    module, qualname = codec.split_path(path)
    if module.split(".")[0] in EXCEPTION_MODULES and module in sys.modules:
        obj = sys.modules[module]
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, type) and issubclass(obj, BaseException) and obj not in (SystemExit, KeyboardInterrupt):
            return obj
    return foreign_exception(path, mro)


def foreign_exception(path: str, mro) -> type:
    """This side's class for an exception class of the other side's own code (a notebook's
    `class MCPError(Exception)`): its name, under its nearest built-in base, one class per path
    and base, so the class a test names and the errors the notebook raises are the same class
    here (`checks.raises(MCPError)` works in the judge). Data only: nothing of the other side runs."""
    module, qualname = codec.split_path(path)
    names = [str(n) for n in mro] if type(mro) is list else []
    base = next((getattr(builtins, n) for n in names[1:] if isinstance(getattr(builtins, n, None), type)
                 and issubclass(getattr(builtins, n), BaseException)
                 and getattr(builtins, n) not in (KeyboardInterrupt, SystemExit, GeneratorExit)), Exception)
    key = (path, base.__name__)
    with _lock:
        cls = _foreign.get(key)
        if cls is None:
            if len(_foreign) >= MAX_FOREIGN:
                _foreign.pop(next(iter(_foreign)))
            cls = _foreign[key] = type(qualname.split(".")[-1], (base,), {"__module__": module,
                                                                           "__qualname__": qualname})
    return cls


def make_exception(node: dict, inner, request_url: str = "http://fake-llm.invalid/v1"):
    """An exception from its data; SDK errors get a response with their status and headers."""
    err = _build_exception(node, inner, request_url)
    where = node.get("where")
    if type(where) is list and where and hasattr(err, "add_note"):
        err.add_note("raised in the notebook: " + " > ".join(str(w)[:200] for w in where[-3:]))
    return err


def _build_exception(node: dict, inner, request_url: str):
    cls = find_exception(node.get("$e"), node.get("mro"))
    msg = str(node.get("msg", ""))[:MAX_MSG]
    status = node.get("status")
    try:
        params = inspect.signature(cls).parameters
        if type(status) is int and "response" in params:
            import httpx2

            headers = [(str(k), str(v)) for k, v in node.get("headers", [])][:100]
            response = httpx2.Response(status, headers=headers, request=httpx2.Request("POST", request_url))
            return cls(msg, response=response, body=inner(node.get("body")))
        if "request" in params:
            import httpx2

            kwargs = {"request": httpx2.Request("POST", request_url)}
            if "message" in params:
                kwargs["message"] = msg
            return cls(**kwargs)
        if cls is TooManyCalls:
            return TooManyCalls(int(msg.split("more than ")[-1].split()[0]) if "more than " in msg else 0)
        return cls(msg)
    except Exception:  # noqa: BLE001 - a class that will not be built from its message
        err = cls.__new__(cls)
        BaseException.__init__(err, msg)
        return err
