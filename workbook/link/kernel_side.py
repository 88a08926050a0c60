"""The kernel's end of the judge's link: answers the judge's requests while a test cell is judged.

When a notebook is graded, a test cell is not run in the kernel. The grader runs one line,
`serve(path, token)`, and the judge (a process outside the sandbox that holds the test code)
asks, over a unix socket, for what the test needs: a name of the notebook (`lookup`), a call of
a function with plain data, an attribute of what came back. Objects the judge keeps (the fake
model, a tool, a clock) come in as handles: here a callable one is a real function (with the
judge's name, docstring and signature) whose calls go back to the judge; a fake model's SDK
client is a real `openai.OpenAI` / `anthropic.Anthropic` whose HTTP travels over the same socket
to the judge's engine.

Nothing here is trusted by the grader: a student can replace any of it. It only serves.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import importlib
import socket
import sys
import types
from typing import Any

from workbook import notebook_side
from workbook.link import codec
from workbook.link.channel import Channel, LinkClosed
from workbook.link.endpoint import Endpoint
from workbook.link.signatures import function_proxy


def user_namespace() -> dict:
    return sys.modules["__main__"].__dict__


class JudgeError(Exception):
    """The grader's side of the link is not there (its objects work only while a test runs)."""


class JudgeProxy:
    """An object the judge keeps: its methods are calls to the judge, and the data attributes its
    class declares are asked of the judge when read; it has no other attribute."""

    def __init__(self, end: KernelEnd, hid: int, info: dict):
        self._end, self._hid, self._info = end, hid, info
        methods, data = info.get("methods"), info.get("data")
        self._methods = frozenset(m for m in methods if type(m) is str) if type(methods) is list else frozenset()
        self._data = frozenset(d for d in data if type(d) is str) if type(data) is list else frozenset()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._methods:
            return lambda *args, **kwargs: self._end.call(self._hid, list(args), kwargs, method=name)
        if name in self._data:
            return self._end.ask("getattr", self._hid, name=name)
        raise AttributeError(f"the grader's {self._info.get('name', 'object')} has no attribute {name!r} "
                             "a notebook may use")

    def __call__(self, *args, **kwargs):
        if self._info.get("callable") is not True:
            raise TypeError(f"the grader's {self._info.get('name', 'object')} is not callable")
        return self._end.call(self._hid, list(args), kwargs)

    def __repr__(self) -> str:
        return f"<{self._info.get('name', 'object')} (the grader's)>"


class KernelEnd(Endpoint):
    side = "k"
    trusted_peer = True

    def __init__(self):
        super().__init__()
        self.proxies: dict[int, tuple[object, dict]] = {}  # id(proxy) -> (proxy, its handle)

    def not_connected(self) -> Exception:
        return JudgeError("the grader is not listening (its objects work only while a test runs)")

    def forget_test(self) -> None:
        """When a test is over (a learner's kernel runs many): none of its handles work any more."""
        with self._lock:
            self.forget_calls()
            self.objects.clear()
            self._exported.clear()
            self.proxies.clear()

    def handle_for(self, obj) -> dict:
        known = self.proxies.get(id(obj))
        if known is not None and known[0] is obj:
            return known[1]
        return self.export(obj)

    def describe(self, obj) -> dict:
        out = super().describe(obj)
        if isinstance(obj, type) and issubclass(obj, BaseException):  # the judge catches it by name
            out.update(exc=True, mro=[c.__name__ for c in obj.__mro__ if c is not object][:20])
        elif isinstance(obj, type) and dataclasses.is_dataclass(obj):
            out.update(kind="dataclass", path=codec.class_path(obj),
                       fields=[f.name for f in dataclasses.fields(obj)])
        elif isinstance(obj, types.GeneratorType) or (hasattr(type(obj), "__next__") and hasattr(type(obj), "__iter__")):
            out["kind"] = "iterator"
        elif isinstance(obj, types.ModuleType):
            out["kind"] = "module"
        if isinstance(obj, type) or callable(obj):
            module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
                out["path"] = f"{module}:{qualname}"
        return out

    def _proxy(self, node: dict):
        hid = node["$h"]
        info = {k: node[k] for k in ("kind", "name", "short", "doc", "sig", "methods", "data", "callable") if k in node}
        kind = str(info.get("kind", "object"))
        if kind in ("openai", "anthropic"):
            proxy = sdk_client(kind, lambda args, kwargs: self.call(hid, args, kwargs), node)
        elif kind in ("function", "class"):
            proxy = function_proxy(lambda args, kwargs: self.call(hid, args, kwargs), info, self.decode, True)
        else:
            proxy = JudgeProxy(self, hid, info)
        self.proxies[id(proxy)] = (proxy, {"$h": hid, "side": "j", "kind": kind})
        return proxy

    def _handle(self, node: dict, inner):
        hid, side = node["$h"], node.get("side")
        if type(hid) is not int:
            raise codec.LinkError("a handle without an id")
        if side == "k":
            if hid not in self.objects:
                raise codec.LinkError("a handle to an object this kernel no longer has")
            return self.objects[hid]
        return self._proxy(node)

    def _record(self, node: dict, inner):
        cls = find_class(node["$rec"])
        raw = node.get("f", {})
        fields = {field_name(k): inner(v) for k, v in (raw.items() if type(raw) is dict else [])}
        if cls is None and codec.split_path(node["$rec"])[0] == "__test__":
            cls = test_record(node["$rec"], tuple(fields))  # a test's own record: back as itself
        if cls is None or not dataclasses.is_dataclass(cls):
            return types.SimpleNamespace(**fields)
        # mypy: `cls` may be a dataclass instance the path names; then this raises TypeError, as ever
        obj = object.__new__(cls)  # type: ignore[arg-type]
        for k, v in fields.items():
            object.__setattr__(obj, k, v)
        return obj

    def _named_tuple(self, node: dict, inner):
        cls = find_class(node["$nt"])
        values = [inner(v) for v in codec._list(node.get("v", []))]
        if cls is None or not hasattr(cls, "_fields"):
            names = [field_name(n) for n in node.get("n", [])]
            # a class of the judge's tuple's name, made at run time: mypy only follows a literal
            # name, and takes it for a second class statement of `cls`
            cls = collections.namedtuple(codec.split_path(node["$nt"])[1].split(".")[-1], names)  # type: ignore[misc,no-redef]
        return cls(*values)

    def _model(self, node: dict, inner):
        cls = find_class(node["$pyd"])
        value = inner(node.get("v"))
        if cls is None or not hasattr(cls, "model_validate"):
            return types.SimpleNamespace(**value) if type(value) is dict else value
        return cls.model_validate(value)

    def _sdk(self, node: dict, inner):
        module, qualname = codec.split_path(node["$sdk"])
        if not module.startswith(codec.SDK_PREFIXES):
            raise codec.LinkError("an SDK object from outside the SDKs")
        return _resolve(importlib.import_module(module), qualname).model_validate(node.get("v"))

    _MAKERS = {"$h": _handle, "$rec": _record, "$nt": _named_tuple, "$pyd": _model, "$sdk": _sdk}

    def serve_other(self, item: dict) -> dict:
        if item.get("op") == "lookup":
            name, ns = item.get("name"), user_namespace()
            if type(name) is not str or name not in ns:
                return {"exc": {"$e": "builtins:NameError", "msg": f"name {str(name)[:80]!r} is not defined",
                                "mro": ["NameError", "Exception"]}}
            try:
                return {"ok": self.encode(ns[name])}
            except codec.LinkError as e:
                return {"exc": {"$e": "workbook.link.codec:LinkError", "msg": str(e), "mro": ["LinkError"]}}
        if item.get("op") == "given":  # given code a test runs here (workbook.notebook_side)
            try:
                return {"ok": self.encode(notebook_side.local(str(item.get("path"))[:200]))}
            except (ValueError, LookupError) as e:
                return {"exc": {"$e": "builtins:LookupError", "msg": str(e)[:500], "mro": ["LookupError", "Exception"]}}
        return super().serve_other(item)


_test_records: dict[tuple[str, tuple[str, ...]], type] = {}


def test_record(path: str, names: tuple[str, ...]) -> type:
    """A dataclass here for a record the test made (a `Route` of the test's own copy of the given
    code): its fields, its name, module `__test__`, so it goes back to the judge as that record."""
    key = (path, names)
    if key not in _test_records:
        qualname = codec.split_path(path)[1]
        cls = dataclasses.make_dataclass(qualname.split(".")[-1], list(names), eq=True)
        cls.__module__, cls.__qualname__ = "__test__", qualname
        _test_records[key] = cls
    return _test_records[key]


def field_name(name) -> str:
    if type(name) is not str or not name.isidentifier():
        raise codec.LinkError("a field name that is not a name")
    return name


def _resolve(module, qualname: str):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def find_class(path):
    """The class a record names: the notebook's own, or the workbook's; None if there is none."""
    module, qualname = codec.split_path(path)
    try:
        if module == "__main__":
            return _resolve(sys.modules["__main__"], qualname)
        if module == "workbook" or module.startswith("workbook."):
            return _resolve(importlib.import_module(module), qualname)
    except (ImportError, AttributeError):
        return None
    return None


def sdk_client(kind: str, call, node: dict):
    """A real SDK client whose HTTP goes to the judge's fake model over the link."""
    import httpx2

    class Pieces(httpx2.SyncByteStream):
        """A streamed body: each piece asked of the judge when the SDK reads it."""

        def __init__(self, pieces):
            self.next_piece, self.closer = pieces.next_piece, pieces.close

        def __iter__(self):
            while (piece := self.next_piece()) is not None:
                yield base64.b64decode(piece)

        def close(self):
            self.closer()

    class JudgeTransport(httpx2.BaseTransport):
        def handle_request(self, request):
            out = call(["http", request.method, str(request.url),
                        [[k, v] for k, v in request.headers.items()],
                        base64.b64encode(request.read()).decode()], {})
            if "pieces" in out:
                return httpx2.Response(out["status"], headers=out["headers"], stream=Pieces(out["pieces"]),
                                       request=request)
            return httpx2.Response(out["status"], headers=out["headers"],
                                   content=base64.b64decode(out["content"]), request=request)

    given = node.get("options")
    options: dict[str, Any] = given if type(given) is dict else {}
    http = httpx2.Client(transport=JudgeTransport())
    if kind == "openai":
        import openai

        return openai.OpenAI(http_client=http, **options)
    import anthropic

    return anthropic.Anthropic(http_client=http, **options)


END = KernelEnd()


def serve(path: str, token: str) -> None:
    """Answer the judge until it says the test is over (called by the grader's line in a test cell)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    serve_on(sock, token)


def serve_on(sock: socket.socket, token: str) -> None:
    """Answer the judge on a connected socket until it says the test is over."""
    channel = END.channel = Channel(sock, END.serve, orphans="main")
    try:
        channel.request({"op": "hello", "token": token})
        channel.serve_main(until=lambda item: item.get("op") == "done")
    except LinkClosed:
        pass
    finally:
        channel.close()
        END.channel = None
        END.forget_calls()
