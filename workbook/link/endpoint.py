"""What both ends of the link share: objects kept behind handles, the requests that reach them,
calls with their arguments' identity and state (signatures: `signatures.py`; exceptions: `errors.py`).

A side keeps every object it hands out as a handle in `objects` (id -> object). The other side
may only send these requests about one of them:

    {"op": "call", "target": 7, "args": [...], "kwargs": {...}}   -> the result, and the state
                                   after the call of every list, dict, set and record in the
                                   arguments ("after": [[n, state], ...]), so in-place changes show
    {"op": "getattr", "target": 7, "name": "answer"}              -> the public attribute

A reply is {"ok": <value>, ...} or {"exc": <the exception, as codec's $e data>}.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import threading
from collections.abc import Iterator
from typing import Any

from workbook.link import codec
from workbook.link.errors import MAX_MSG, exc_reply, exception_data, loaded, make_exception
from workbook.link.shadow import shadow
from workbook.link.signatures import signature_data

OPS = frozenset({"call", "getattr"})
MAX_TABLES = 32  # calls whose arguments' state is kept in step


def mutable(value) -> bool:
    """Argument parts whose state a call may change and the caller must see afterwards."""
    return type(value) in (list, dict, set) or codec.is_record(value)


def link_error(msg: str) -> dict:
    return {"exc": {"$e": "workbook.link.codec:LinkError", "msg": msg[:MAX_MSG], "mro": ["LinkError", "Exception"]}}


class Endpoint:
    """One side of the link. Subclasses say what a handle is made of and how tags decode."""

    side = "?"  # "j" (judge) or "k" (kernel): who owns a handle
    trusted_peer = False  # may this side evaluate the other side's annotations?

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._exported: dict[int, dict] = {}  # id(object) -> its handle
        self._ids: Iterator[int] = itertools.count(1)  # handle ids (the judge's: random, remote.py)
        self._lock = threading.RLock()  # export() runs inside encodes that hold it
        self.channel = None
        self.on_wait = None
        self._cids = itertools.count(1)
        # my calls' argument parts, and those the callee may change in place, by call id (the caller's copy)
        self.memos: dict[int, tuple[list[Any], frozenset[int]]] = {}
        self.tables: dict[int, list] = {}  # the other side's calls' argument parts (the callee's copy)
        self.seen: dict[int, dict[int, object]] = {}  # their state as last sent or received
        self.shadows: dict[int, dict[int, object]] = {}  # copies of those parts then (`shadow`)

    def forget_calls(self) -> None:
        """When a test is over, no call's arguments are shared any more."""
        self.memos.clear()
        self.tables.clear()
        self.seen.clear()
        self.shadows.clear()

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

    def encode(self, value, refs=None, memo=None, exclude=None):
        return codec.encode(value, self.handle_for, refs, memo, exception_data, exclude)

    # -- in -----------------------------------------------------------------------------------

    _MAKERS: dict = {}  # tag -> the method that builds it on this side (remote.py, kernel_side.py)

    def make(self, tag: str, node: dict, inner):
        maker = self._MAKERS.get(tag)
        if maker is not None:
            return maker(self, node, inner)
        if tag == "$e":
            return make_exception(node, inner, modules=self.exception_modules)
        raise codec.LinkError(f"{tag} is not accepted here")

    def decode(self, data, nodes=None, made=None):
        return codec.decode(data, self.make, nodes, made)

    def target(self, item: dict):
        hid = item.get("target")
        if type(hid) is not int or hid not in self.objects:
            raise codec.LinkError("a request for an object this side does not have")
        return self.objects[hid]

    # -- calling the other side ---------------------------------------------------------------

    def _request(self, msg: dict) -> dict:
        if self.channel is None or self.channel.closed:
            raise self.not_connected()
        reply = self.channel.request(msg, on_wait=self.on_wait)
        self.received(reply)
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
        return make_exception(exc, self.decode, modules=self.exception_modules)

    def exception_modules(self, name: str) -> list:
        """Where a workbook exception's class is looked up: this side's own modules."""
        return loaded(name)

    def not_connected(self) -> Exception:
        return codec.LinkError("the other side is not connected")

    def call(self, hid: int, args: list, kwargs: dict):
        """Call the other side's object. Every list, dict and set the arguments hold through lists,
        dicts and sets only (also of earlier calls in this test: the other side may have kept them)
        is made what the other side's copy became, so changes in place are seen here as they would be
        in one process. Nothing is ever written into a record, a tuple or what they hold (a test's
        frozen task stays what the test made: `open_containers`)."""
        memo: list = []
        wire = self.encode([args, kwargs], memo=memo)
        cid = next(self._cids)
        with self._lock:
            self.memos[cid] = (memo, open_containers([args, kwargs]))
            while len(self.memos) > MAX_TABLES:
                self.memos.pop(next(iter(self.memos)))
        reply = self._request({"op": "call", "target": hid, "args": wire, "cid": cid})
        after = reply.get("after")
        for entry in after[: 100_000] if type(after) is list else []:
            if type(entry) is list and len(entry) == 3 and type(entry[0]) is int and type(entry[1]) is int:
                nodes, writable = self.memos.get(entry[0], ([], frozenset()))
                if 0 <= entry[1] < len(nodes) and id(nodes[entry[1]]) in writable:
                    copy_back(nodes[entry[1]], self.decode(entry[2], nodes=nodes))
        return self.decode(reply["ok"], nodes=memo)

    def ask(self, op: str, hid: int, name: str):
        return self.decode(self._request({"op": op, "target": hid, "name": name})["ok"])

    # -- serving the other side ---------------------------------------------------------------

    def serve(self, item: dict) -> dict:
        op = item.get("op")
        if op not in OPS:
            return self.serve_other(item)
        try:
            obj = self.target(item)
            if op == "call":
                made: list = []
                pair = self.decode(item.get("args"), made=made)
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not list or type(pair[1]) is not dict:
                    raise codec.LinkError("a call without its arguments")
                args, kwargs = pair
                cid = item.get("cid")
                skip = {id(pair), id(args), id(kwargs)}
                if type(cid) is int:
                    with self._lock:
                        self.tables[cid] = made
                        self.seen[cid] = {i: s for i, s in self._encoded(made, skip)}
                        self.shadows[cid] = {i: shadow(made[i]) for i in self.seen[cid]}
                        while len(self.tables) > MAX_TABLES:
                            old = next(iter(self.tables))
                            self.tables.pop(old)
                            self.seen.pop(old, None)
                            self.shadows.pop(old, None)
                result = self.invoke(obj, args, kwargs)
                refs = {id(v): i for i, v in enumerate(made) if id(v) not in skip}
                out = {"ok": self.encode(result, refs=refs), "after": self._states(skip)}
                return out
            name = item.get("name")  # getattr
            if type(name) is not str or not name.isidentifier() or name.startswith("_"):
                raise codec.LinkError("an attribute that is not a public name")
            return {"ok": self.encode(getattr(obj, name))}
        except codec.LinkError as e:
            return link_error(str(e))
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as e:  # noqa: BLE001 - the other side decides what it means
            if getattr(e, "link_stop", False):  # the judge stopping a test: never an answer
                raise
            return self.exc_reply(e)

    def _encoded(self, made: list, skip: set, unchanged=None):
        """(part, its state as wire data) for every mutable part of one call's arguments (but for
        those `unchanged(i, part)` says are as they were)."""
        refs = None
        for i, part in enumerate(made):
            if id(part) not in skip and mutable(part) and not (unchanged and unchanged(i, part)):
                if refs is None:
                    refs = {id(v): n for n, v in enumerate(made) if id(v) not in skip}
                yield i, self.encode(part, refs=refs, exclude=id(part))  # other parts by number

    def _states(self, skip: set) -> list:
        """[call id, part, state] for the argument parts this side changed since it last said:
        only changes made here cross, so an old copy never overwrites a newer state there. A part
        equal to its copy of last time (`shadow`, compared in C) is not encoded again: a test of
        many calls re-reads 32 calls' arguments after each."""
        states = []
        for cid, made in list(self.tables.items()):
            seen = self.seen.setdefault(cid, {})
            copies = self.shadows.setdefault(cid, {})

            def unchanged(i, part, copies=copies):
                try:
                    return i in copies and bool(part == copies[i])
                except Exception:  # noqa: BLE001 - a part that cannot say: encode it
                    return False

            for i, state in self._encoded(made, skip if cid == max(self.tables) else {id(made[0])}, unchanged):
                copies[i] = shadow(made[i])
                if seen.get(i) != state:
                    seen[i] = state
                    states.append([cid, i, state])
        return states

    def exc_reply(self, e: BaseException) -> dict:
        """What the other side is told of an exception raised here while serving it."""
        return exc_reply(e)

    def invoke(self, fn, args: list, kwargs: dict):
        return fn(*args, **kwargs)

    def serve_other(self, item: dict) -> dict:
        return link_error(f"unknown request {str(item.get('op'))[:40]!r}")


def open_containers(top) -> frozenset[int]:
    """The ids of the lists, dicts and sets reached from `top` through lists, dicts and sets only:
    what a call may change in place and the caller sees changed (never a record's or a tuple's)."""
    seen: set[int] = set()
    stack = [top]
    while stack:
        value = stack.pop()
        if type(value) in (list, dict, set) and id(value) not in seen:
            seen.add(id(value))
            stack.extend(value.values() if type(value) is dict else value)
    return frozenset(seen)


def copy_back(target, state) -> None:
    """Make this side's list, dict or set what the other side's became (changed in place)."""
    if type(target) is list and type(state) is list:
        target[:] = state
    elif type(target) is dict and type(state) is dict:
        target.clear()
        target.update(state)
    elif type(target) is set and type(state) is set:
        target.clear()
        target.update(state)

