"""What both ends of the link share: objects kept behind handles, the requests that reach them,
calls with plain data (signatures: `signatures.py`; exceptions: `errors.py`).

A side keeps every object it hands out as a handle in `objects` (id -> object). The other side
may only send these requests about one of them:

    {"op": "call", "target": 7, "args": [[...], {...}]}  -> the result; from the kernel also
                                   what the arguments became ("after": [[...], {...}]), as data
    {"op": "getattr", "target": 7, "name": "answer"}              -> the public attribute

A reply is {"ok": <value>, ...} or {"exc": <the exception, as codec's $e data>}.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from workbook.link import codec
from workbook.link.errors import MAX_MSG, exc_reply, exception_data, loaded, make_exception
from workbook.link.shadow import shadow
from workbook.link.signatures import signature_data

OPS = frozenset({"call", "getattr"})
MAX_KEPT = 32  # the judge's calls whose arguments the kernel says the state of

def link_error(msg: str) -> dict:
    return {"exc": {"$e": "workbook.link.codec:LinkError", "msg": msg[:MAX_MSG], "mro": ["LinkError", "Exception"]}}


class Endpoint:
    """One side of the link. Subclasses say what a handle is made of and how tags decode."""

    side = "?"  # "j" (judge) or "k" (kernel): who owns a handle
    trusted_peer = False  # may this side evaluate the other side's annotations?
    foreign: Callable[[str, Any], type] | None = None  # an exception class of the other side's own code (exc_classes)

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._exported: dict[int, dict] = {}  # id(object) -> its handle
        self._ids: Iterator[int] = itertools.count(1)  # handle ids (the judge's: random, judge_end.py)
        self._lock = threading.RLock()  # export() runs inside encodes that hold it
        self.channel = None
        self.on_wait = None
        self._cids: Iterator[int] = itertools.count(1)
        self.kept: dict[int, dict[int, tuple[object, object]]] = {}  # the judge's calls' arguments (kernel side)

    # -- out ----------------------------------------------------------------------------------

    def export(self, obj) -> dict:
        """A handle for `obj`, kept in `objects`: the same object always gets the same handle, so
        it is the same object on the other side too (`objects` holds it, so its id stays its own)."""
        with self._lock:
            known = self._exported.get(id(obj))
            if known is not None and self.objects.get(known["$h"]) is obj:
                return known
            hid = next(self._ids)
            self.objects[hid] = obj
        handle = {"$h": hid, "side": self.side, **self.describe(obj)}
        self._exported[id(obj)] = handle
        return handle

    def describe(self, obj) -> dict:
        """What the other side may know of a handle's object: data only."""
        kind = ("class" if isinstance(obj, type) else "function" if inspect.isroutine(obj) or isinstance(
            obj, functools.partial) else "object")
        out: dict[str, Any] = {"kind": kind, "name": str(getattr(obj, "__qualname__", type(obj).__qualname__))[:200]}
        if kind != "object":
            out["short"] = str(getattr(obj, "__name__", out["name"]))[:200]
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str) and not isinstance(obj, type):
                out["doc"] = doc[:20_000]
            sig = signature_data(obj, self.encode) if not isinstance(obj, type) else None
            if sig:
                out["sig"] = sig
        return out

    def handle_for(self, obj) -> dict:
        return self.export(obj)

    def encode(self, value):
        return codec.encode(value, self.handle_for, exception_data)

    # -- in -----------------------------------------------------------------------------------

    _MAKERS: dict = {}  # tag -> the method that builds it on this side (judge_end.py, kernel_side.py)

    def make(self, tag: str, node: dict, inner):
        maker = self._MAKERS.get(tag)
        if maker is not None:
            return maker(self, node, inner)
        if tag == "$e":
            return make_exception(node, inner, modules=self.exception_modules, foreign=self.foreign)
        raise codec.LinkError(f"{tag} is not accepted here")

    path_type: type = pathlib.Path  # what a path becomes here (the judge's: the sandbox's KernelPath)

    def decode(self, data):
        return codec.decode(data, self.make, self.path_type)

    def target(self, item: dict):
        hid = item.get("target")
        if type(hid) is not int or hid not in self.objects:
            raise codec.LinkError("a request for an object this side does not have")
        return self.objects[hid]

    # -- calling the other side ---------------------------------------------------------------

    def _request(self, msg: dict, then_raise: bool = True) -> dict:
        if self.channel is None or self.channel.closed:
            raise self.not_connected()
        reply = self.channel.request(msg, on_wait=self.on_wait)
        self.received(reply)
        return self.raise_for(reply) if then_raise else reply

    def raise_for(self, reply: dict) -> dict:
        """`reply`, or the exception it carries raised."""
        if "exc" in reply:
            exc = reply["exc"] if type(reply["exc"]) is dict and "$e" in reply["exc"] else {
                "$e": "builtins:RuntimeError", "msg": "a malformed error"}
            raise self.make_exception(exc)
        if "ok" not in reply:
            raise codec.LinkError("a reply without a value")
        return reply

    def received(self, reply: dict) -> None:
        """Every reply the other side sent, before it is read (the judge keeps its texts)."""

    def make_exception(self, exc: dict) -> BaseException:
        return make_exception(exc, self.decode, modules=self.exception_modules, foreign=self.foreign)

    def exception_modules(self, name: str) -> list:
        """Where a workbook exception's class is looked up: this side's own modules."""
        return loaded(name)

    def not_connected(self) -> Exception:
        return codec.LinkError("the other side is not connected")

    def call(self, hid: int, args: list, kwargs: dict, method: str | None = None):
        """Call the other side's object with data. Nothing the other side sends is written into
        this side's objects: the kernel's reply also says what the lists, dicts and sets the test
        handed it (in this call or one of its last MAX_KEPT) have become (`after`), which the judge
        keeps as data for `notebook_side.after`."""
        cid = next(self._cids)
        msg = {"op": "call", "target": hid, "args": self.encode([args, kwargs]), "cid": cid}
        self.handed(cid, list(args) + list(kwargs.values()))  # before: a reply on another thread may say
        reply = self._request(msg if method is None else {**msg, "method": method}, then_raise=False)
        after = reply.get("after")  # a call that raised says it too: a refusal must leave them as they were
        for entry in after[:MAX_KEPT * 64] if type(after) is list else []:
            if type(entry) is list and len(entry) == 3 and type(entry[0]) is int and type(entry[1]) is int:
                self.argument_after(entry[0], entry[1], self.decode(entry[2]))
        return self.decode(self.raise_for(reply)["ok"])

    def handed(self, cid: int, parts: list) -> None:
        """The arguments of my call `cid` (the judge keeps them: judge_end.py)."""

    def argument_after(self, cid: int, position: int, state) -> None:
        """What the callee made of argument `position` of my call `cid` (the judge keeps it)."""

    def ask(self, op: str, hid: int, name: str):
        return self.decode(self._request({"op": op, "target": hid, "name": name})["ok"])

    # -- serving the other side ---------------------------------------------------------------

    def serve(self, item: dict) -> dict:
        op = item.get("op")
        if op not in OPS:
            return self.serve_other(item)
        try:
            obj, name = self._asked(item, op)
            if op == "call":
                return self._call(obj if name is None else getattr(obj, name), item)
            return {"ok": self.encode(getattr(obj, str(name)))}  # getattr
        except codec.LinkError as e:
            return link_error(str(e))
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as e:  # noqa: BLE001 - the other side decides what it means
            if getattr(e, "link_stop", False):  # the judge stopping a test: never an answer
                raise
            reply = self.exc_reply(e)
            if op == "call" and self.kept:
                with contextlib.suppress(codec.LinkError):  # an argument that cannot cross: not said
                    reply["after"] = self.changed()
            return reply

    def _asked(self, item: dict, op: str) -> tuple[object, str | None]:
        """The object a request is about, and the public name it asks for (a method, an attribute),
        if this side allows it (`allowed`)."""
        obj = self.target(item)
        name = item.get("method") if op == "call" else item.get("name")
        if name is not None and (type(name) is not str or not name.isidentifier() or name.startswith("_")):
            raise codec.LinkError("an attribute that is not a public name")
        if not self.allowed(obj, op, name):
            raise codec.LinkError(f"{str(name)[:40]!r} is not something the other side may use of "
                                  f"{str(getattr(type(obj), '__qualname__', 'it'))[:60]}")
        return obj, name

    def _call(self, fn, item: dict) -> dict:
        pair = self.decode(item.get("args"))
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not list or type(pair[1]) is not dict:
            raise codec.LinkError("a call without its arguments")
        cid = item.get("cid")
        if self.side == "k" and type(cid) is int:  # the judge asks what its arguments became
            self.keep(cid, list(pair[0]) + list(pair[1].values()))
        out = {"ok": self.encode(self.invoke(fn, *pair))}
        if self.kept:
            out["after"] = self.changed()
        return out

    def allowed(self, obj, op: str, name: str | None) -> bool:
        """May the other side make this request about `obj`? (The judge limits it: judge_end.py.)"""
        return op == "call" or name is not None

    def keep(self, cid: int, parts: list) -> None:
        """The lists, dicts and sets among a judge's call's arguments, with a copy to tell later
        whether they changed (`shadow`); the last MAX_KEPT calls' are kept."""
        with self._lock:
            self.kept[cid] = {i: (p, shadow(p)) for i, p in enumerate(parts) if type(p) in (list, dict, set)}
            while len(self.kept) > MAX_KEPT:
                self.kept.pop(next(iter(self.kept)))

    def changed(self) -> list:
        """[call id, position, state] of every kept argument that changed since it was last said."""
        out = []
        with self._lock:
            for cid, parts in self.kept.items():
                for i, (part, copy) in list(parts.items()):
                    try:
                        same = bool(part == copy)
                    except Exception:  # noqa: BLE001 - a part that cannot say: send it
                        same = False
                    if not same:
                        out.append([cid, i, self.encode(part)])
                        parts[i] = (part, shadow(part))
        return out

    def forget_calls(self) -> None:
        """When a test is over, no call's arguments are kept any more."""
        with self._lock:
            self.kept.clear()

    def exc_reply(self, e: BaseException) -> dict:
        """What the other side is told of an exception raised here while serving it."""
        return exc_reply(e)

    def invoke(self, fn, args: list, kwargs: dict):
        return fn(*args, **kwargs)

    def serve_other(self, item: dict) -> dict:
        return link_error(f"unknown request {str(item.get('op'))[:40]!r}")
