"""The judge's end of the link: the notebook's names as proxies, handles, exceptions as classes.

A test cell runs in the judge in a `Namespace`: of the names it does not define, only the
chapter's exercises are asked of the kernel. What comes back is data or a `KernelRef`
(`kernel_objects`); what the judge may hand the kernel is decided by `trust`; a fake model's
client crosses as a real SDK client whose HTTP comes back here (`sdk_bridge`).

An exception class the notebook names, and every exception it raises, become the class
`exc_classes.find_exception` allows: a built-in or listed standard-library or SDK class itself, a
workbook class from the test's own `fresh()` copy (`exception_modules`), else one judge-side class
of its name (a notebook's `class MCPError(Exception)`): `checks.raises(...)` works as in a kernel.
"""

from __future__ import annotations

import dis
import inspect
import secrets
import sys
import threading
from typing import Any

from workbook import notebook_side
from workbook.fresh import Fresh
from workbook.link import codec
from workbook.link.endpoint import MAX_KEPT, Endpoint, link_error
from workbook.link.errors import exc_reply, find_exception, loaded
from workbook.link.exc_classes import stand_in
from workbook.link.heard import Heard
from workbook.link.kernel_objects import KernelError, KernelRef, Record, fields_of, model, record
from workbook.link.names import Namespace
from workbook.link.sdk_bridge import SdkBridge, sdk_kind, sdk_options
from workbook.link.trust import TRUSTED_NAMES, capability, exportable, surface, trusted_object

__all__ = ["JudgeEnd", "KernelError", "KernelRef"]


RAISE = dis.opmap["RAISE_VARARGS"]
FIXED = "the grader's code raised {name} when your code called it (its message stays with the grader)"


def raised_on_purpose(e: BaseException) -> bool:
    """Was `e` raised by a `raise` statement (not an assert, not the interpreter's own error)?"""
    if isinstance(e, AssertionError):
        return False
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and code[tb.tb_lasti] == RAISE


class JudgeEnd(Endpoint):
    side = "j"
    foreign = staticmethod(stand_in)  # a notebook's own exception class: the stand-in of its built-in base

    def __init__(self):
        super().__init__()
        self._refs: dict[int, KernelRef] = {}
        self.borrowed: dict[int, dict] = {}  # id(judge's own object) -> the kernel's handle it stands for
        self._ids = iter(lambda: secrets.randbits(52), None)  # handle ids nobody can guess
        self.token = ""
        self.greeted = threading.Event()  # this test's kernel said hello with this test's token
        self.namespace: Namespace | None = None  # names.py  # the test's names (`Namespace`), where its fresh() copies are
        self.heard = Heard()  # every text the kernel sent: kept out of a hidden test's message (heard.py)
        self.afters: dict[int, tuple[object, object]] = {}  # id(a test's argument) -> (it, what the kernel made of it)
        self.handed_parts: dict[int, list] = {}  # the test's calls' arguments, by call id

    def received(self, reply: dict) -> None:
        self.heard.add(reply)

    def serve(self, item: dict) -> dict:
        """The kernel calls the judge: only on this test's connection, once it said hello."""
        if not self.greeted.is_set() and item.get("op") != "hello":
            return link_error("a connection that has not said hello with this test's token")
        self.heard.add(item)
        return super().serve(item)

    def not_connected(self) -> Exception:
        return KernelError("the notebook's kernel is not connected to the grader")

    def exc_reply(self, e: BaseException) -> dict:
        """The kernel called the judge's code and it raised. Only an exception raised on purpose
        (a `raise` statement: a test's tool that fails, the fake's TooManyCalls) crosses with its
        message, and never with frames; anything else (an assert, a TypeError of a helper called
        with the wrong arguments, a KeyError inside the test's code) crosses as its type and a
        fixed text, so what the grader's code holds never reaches the notebook or its feedback."""
        if raised_on_purpose(e):
            reply = exc_reply(e)
            reply["exc"].pop("where", None)
            return reply
        cls = type(e) if type(e).__module__ == "builtins" else Exception
        return {"exc": {"$e": f"builtins:{cls.__qualname__}", "msg": FIXED.format(name=cls.__name__),
                        "mro": [c.__name__ for c in cls.__mro__ if c is not object]}}

    def exception_modules(self, name: str) -> list:
        """Where a workbook exception's class comes from: the test's own `fresh()` copies first
        (the last one the test's names hold that loaded `name`), then the judge's modules. So
        `checks.raises(wb.scenarios.Crash)` catches the Crash the notebook let through."""
        if name == "__main__":  # a notebook's exception class becomes the test's own class of its name
            return [self.namespace.own()] if self.namespace is not None else []
        copies = [v for v in list(dict.values(self.namespace or {})) if isinstance(v, Fresh)]
        found = [vars(c)["_modules"][name] for c in reversed(copies) if name in vars(c).get("_modules", {})]
        return found + loaded(name)

    def lookup(self, name: str):
        """An exercise: the notebook's own object, never an object of the judge's whose path the
        kernel claims for it (red team 17: a `Budget` that called itself `workbook.checks:CappedClient`
        had the judge run its own class in the student's place)."""
        node = self._request({"op": "lookup", "name": name})["ok"]
        if type(node) is dict and "$h" in node and node.get("side") != "j" and node.get("exc") is not True:
            return self._ref(node)
        return self.decode(node)

    def given(self, path: str):
        """The kernel's copy of given code a test runs beside the student's (workbook.notebook_side)."""
        if path not in notebook_side.PATHS:
            raise ValueError(f"{path!r} is not given code a test may run in the notebook")
        return self.decode(self._request({"op": "given", "path": path})["ok"])

    # -- what crosses ---------------------------------------------------------------------------

    def handle_for(self, obj) -> dict:
        if isinstance(obj, KernelRef):
            return {"$h": obj._hid, "side": "k"}
        if isinstance(obj, Record):  # the notebook's record, back as its own
            return obj.__wire__(self.encode)
        if id(obj) in self.borrowed:  # the kernel's own name, replaced by the judge's copy: give it back
            return self.borrowed[id(obj)]
        obj = capability(obj)  # a fake model crosses as something to call (trust.py)
        kind = sdk_kind(obj)
        if kind:
            return {**self.export(SdkBridge(obj, self.heard.add_body)), "kind": kind, "options": sdk_options(obj)}
        if not exportable(obj):
            raise codec.LinkError(f"a test cannot hand the notebook a {type(obj).__name__} "
                                  f"({getattr(obj, '__qualname__', '')})"[:200])
        return self.export(obj)

    def handed(self, cid: int, parts: list) -> None:
        self.handed_parts[cid] = parts  # forgotten with the test (forget_test), or when long gone
        while len(self.handed_parts) > 2 * MAX_KEPT:
            self.handed_parts.pop(next(iter(self.handed_parts)))

    def argument_after(self, cid: int, position: int, state) -> None:
        """Keep what the kernel made of a list, dict or set the test handed it, as data:
        `notebook_side.after(messages)` reads it. The test's own objects stay as it made them."""
        parts = self.handed_parts.get(cid)
        if parts is None or not 0 <= position < len(parts):
            return  # a call of another test, or none: nothing of the test's to read it as
        mine = parts[position]
        if type(mine) in (list, dict, set) and type(state) is type(mine):
            self.afters[id(mine)] = (mine, state)

    def after(self, value):
        """What the kernel made of `value` in the test's last call that took it; else `value`."""
        kept = self.afters.get(id(value))
        return kept[1] if kept is not None and kept[0] is value else value

    def describe(self, obj) -> dict:
        out = super().describe(obj)
        if out["kind"] == "object":  # what the kernel may use of it, and nothing more (trust.surface)
            out["methods"], out["data"] = surface(obj)
            out["callable"] = callable(obj)
        return out

    def allowed(self, obj, op: str, name: str | None) -> bool:
        """A kernel's request about a judge object: its call, a method of its surface, or a data
        attribute its class declares; never any other attribute."""
        if name is None:
            return op == "call" and callable(obj)
        if inspect.isroutine(obj) or isinstance(obj, type):
            return False
        methods, data = surface(obj)
        return name in (methods if op == "call" else data)

    def forget_test(self) -> None:
        """When a test ends: none of its handles work any more, either way."""
        self.afters.clear()
        self.handed_parts.clear()
        self.borrowed.clear()
        self.objects.clear()
        self._exported.clear()
        self._refs.clear()

    def _handle(self, node: dict, inner):
        """A handle: the judge's own object back, a trusted class the kernel named, or a KernelRef."""
        hid, side = node["$h"], node.get("side")
        if type(hid) is not int:
            raise codec.LinkError("a handle without an id")
        if side == "j":
            if hid not in self.objects:
                raise codec.LinkError("a handle to an object the judge never gave out")
            obj = self.objects[hid]
            return obj.client if isinstance(obj, SdkBridge) else obj
        path = node.get("path")
        if node.get("kind") == "class" and node.get("exc") is True and type(path) is str and \
                path not in TRUSTED_NAMES:  # an exception class: the one its raised errors become
            own = find_exception(path, node.get("mro"), self.exception_modules, self.foreign)
        else:  # pydantic.BaseModel, json.dumps, a workbook helper: the judge's own
            own = trusted_object(path)
        if own is not None:
            if not getattr(own, "stand_in", False):  # a stand-in stands for many classes: never handed back
                self.borrowed[id(own)] = {"$h": hid, "side": "k"}
            return own
        return self._ref(node)

    def _ref(self, node: dict) -> KernelRef:
        hid = node["$h"]
        if type(hid) is not int:
            raise codec.LinkError("a handle without an id")
        info = {k: node[k] for k in ("kind", "name", "short", "doc", "sig") if k in node}
        ref = self._refs[hid] if hid in self._refs else KernelRef(self, hid, info)
        self._refs[hid] = ref
        return ref

    def _own(self) -> dict:
        return self.namespace.own() if self.namespace is not None else {}

    def _record(self, node: dict, inner):
        return record(self._own(), node["$rec"], fields_of(node.get("f"), inner))

    def _named_tuple(self, node: dict, inner):
        values = node.get("v")
        if type(values) is not list:
            raise codec.LinkError("a named tuple without its values")
        return tuple(inner(v) for v in values)

    def _model(self, node: dict, inner):
        return model(self._own(), node["$pyd"], fields_of(inner(node.get("v")), lambda v: v))

    def _sdk(self, node: dict, inner):
        module, qualname = codec.split_path(node["$sdk"])
        if not module.startswith(codec.SDK_PREFIXES):
            raise codec.LinkError("an SDK object from outside the SDKs")
        if module not in sys.modules:  # kernel data never imports anything here
            raise codec.LinkError(f"an SDK type from a module the judge has not loaded: {module[:80]}")
        sdk_cls: Any = sys.modules[module]  # the module, then the SDK class its path names
        for part in qualname.split("."):
            sdk_cls = getattr(sdk_cls, part)
        return sdk_cls.model_validate(node.get("v"))

    _MAKERS = {"$h": _handle, "$rec": _record, "$nt": _named_tuple, "$pyd": _model, "$sdk": _sdk}

    def serve_other(self, item: dict) -> dict:
        if item.get("op") == "hello":
            if not self.token or item.get("token") != self.token or self.greeted.is_set():
                return link_error("a connection that is not this test's kernel")
            self.greeted.set()
            return {"ok": None}
        return super().serve_other(item)
