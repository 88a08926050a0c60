"""What both ends of the link share: objects kept behind handles, the requests that reach them,
and exceptions as data.

A side keeps every object it hands out as a handle in `objects` (id -> object). The other side
may only send these requests about one of them:

    {"op": "call", "target": 7, "args": [...], "kwargs": {...}}   -> the result, and the call's
                                                                     list/dict/set/dataclass
                                                                     arguments as they are after it
    {"op": "getattr", "target": 7, "name": "answer"}              -> the attribute
    {"op": "len" | "iter" | "next" | "repr" | "str", "target": 7} -> what the builtin gives
    {"op": "getitem" | "contains", "target": 7, "arg": ...}

A reply is {"ok": <value>} (plus "after": [...] for a call) or {"exc": {"type", "mro", "msg"}}.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading

from workbook.engine.function_face import TooManyCalls
from workbook.link import codec

OPS = frozenset({"call", "getattr", "len", "iter", "next", "repr", "str", "getitem", "contains"})
MAX_MSG = 2_000  # characters of an exception's message that cross


def exc_to_wire(e: BaseException) -> dict:
    """An exception as data: its class name, its classes' names, its message (cut short)."""
    mro = [c.__name__ for c in type(e).__mro__ if c not in (object, BaseException)]
    try:
        msg = str(e)
    except Exception:  # noqa: BLE001 - a str() that raises is still an answer
        msg = "<an exception whose message could not be read>"
    return {"type": type(e).__name__, "module": type(e).__module__, "mro": mro[:20], "msg": msg[:MAX_MSG]}


def mutable(value) -> bool:
    """Arguments whose state a call may change and the caller must see afterwards."""
    return type(value) in (list, dict, set) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type))


class Endpoint:
    """One side of the link. Subclasses say what a handle is made of and how tags decode."""

    side = "?"  # "j" (judge) or "k" (kernel): who owns a handle

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # -- out ----------------------------------------------------------------------------------

    def export(self, obj) -> dict:
        """A handle for `obj`, kept in `objects`."""
        with self._lock:
            hid = next(self._ids)
            self.objects[hid] = obj
        return {"$h": hid, "side": self.side, **self.describe(obj)}

    def describe(self, obj) -> dict:
        """What the other side may know of a handle's object (kind, name): data only."""
        kind = ("class" if isinstance(obj, type) else "function" if callable(obj) else "object")
        return {"kind": kind, "name": str(getattr(obj, "__qualname__", type(obj).__qualname__))[:200]}

    def handle_for(self, obj) -> dict:
        return self.export(obj)

    def encode(self, value, args=()):
        return codec.encode(value, self.handle_for, args)

    # -- in -----------------------------------------------------------------------------------

    def make(self, tag: str, node: dict, inner):
        raise codec.LinkError(f"{tag} is not accepted here")

    def decode(self, data):
        return codec.decode(data, self.make)

    def target(self, item: dict):
        hid = item.get("target")
        if type(hid) is not int or hid not in self.objects:
            raise codec.LinkError("a request for an object this side does not have")
        return self.objects[hid]

    # -- serving a request ----------------------------------------------------------------------

    def serve(self, item: dict) -> dict:
        op = item.get("op")
        if op not in OPS:
            return self.serve_other(item)
        try:
            obj = self.target(item)
            if op == "call":
                args, kwargs = self.decode(item.get("args", [])), self.decode(item.get("kwargs", {}))
                if type(args) is not list or type(kwargs) is not dict:
                    raise codec.LinkError("a call without a list of arguments")
                result = self.invoke(obj, args, kwargs)
                return {"ok": self.encode(result, args),
                        "after": [self.encode(a) if mutable(a) else None for a in args]}
            if op == "getattr":
                name = item.get("name")
                if type(name) is not str or not name.isidentifier():
                    raise codec.LinkError("an attribute name that is not a name")
                return {"ok": self.encode(getattr(obj, name))}
            arg = self.decode(item["arg"]) if "arg" in item else None
            value = {"len": lambda: len(obj), "iter": lambda: iter(obj), "next": lambda: next(obj),
                     "repr": lambda: repr(obj)[:MAX_MSG], "str": lambda: str(obj)[:MAX_MSG],
                     "getitem": lambda: obj[arg], "contains": lambda: arg in obj}[op]()
            return {"ok": self.encode(value)}
        except codec.LinkError as e:
            return {"exc": {"type": "LinkError", "mro": ["LinkError", "Exception"], "msg": str(e)}}
        except (Exception, TooManyCalls) as e:  # noqa: BLE001 - the other side decides what it means
            return {"exc": exc_to_wire(e)}

    def invoke(self, fn, args: list, kwargs: dict):
        return fn(*args, **kwargs)

    def serve_other(self, item: dict) -> dict:
        return {"exc": {"type": "LinkError", "mro": ["LinkError", "Exception"],
                        "msg": f"unknown request {str(item.get('op'))[:40]!r}"}}
