"""The kernel's end of the judge's link: answers the judge's requests while a test cell is judged.

When a notebook is graded, a test cell is not run in the kernel. The grader runs one line,
`serve(path, token)`, and the judge (a process outside the sandbox that holds the test code)
asks, over a unix socket, for what the test needs: a name of the notebook (`lookup`), a call of
a function with plain data, an attribute of what came back. Objects the judge keeps (the fake
model, a tool, a clock) come in as handles: here they are callables whose calls go back to the
judge, and a fake model's SDK client is a real `openai.OpenAI` / `anthropic.Anthropic` whose HTTP
travels over the same socket to the judge's engine.

Nothing here is trusted by the grader: a student can replace any of it. It only serves.
"""

from __future__ import annotations

import base64
import builtins
import collections
import dataclasses
import importlib
import re
import socket
import sys
import types

from workbook.engine.function_face import TooManyCalls
from workbook.link import codec
from workbook.link.channel import Channel, LinkClosed
from workbook.link.endpoint import Endpoint

TRANSPORT_ERRORS = ("ReadTimeout", "ConnectError", "ConnectTimeout", "RemoteProtocolError")


def user_namespace() -> dict:
    return sys.modules["__main__"].__dict__


class JudgeError(Exception):
    """An error raised by the judge's side of a call, of a class this kernel does not know."""


def raise_remote(exc: dict):
    """Raise, here, the exception the judge's side raised."""
    name, msg = str(exc.get("type", "Exception")), str(exc.get("msg", ""))
    if name == "TooManyCalls":
        found = re.search(r"more than (\d+)", msg)
        raise TooManyCalls(int(found.group(1)) if found else 0)
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        raise cls(msg)
    raise JudgeError(f"{name}: {msg}")


class JudgeProxy:
    """Something the judge keeps: calling it calls the judge's object, with plain data."""

    def __init__(self, end: KernelEnd, hid: int, kind: str, name: str):
        self._end, self._hid, self._kind, self._name = end, hid, kind, name

    def __call__(self, *args, **kwargs):
        return self._end.remote("call", self._hid, args=list(args), kwargs=kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._end.remote("getattr", self._hid, name=name)

    def __repr__(self) -> str:
        return f"<{self._name} (the grader's)>"


class KernelEnd(Endpoint):
    side = "k"

    def __init__(self):
        super().__init__()
        self.channel: Channel | None = None

    def remote(self, op: str, hid: int, **fields):
        if self.channel is None or self.channel.closed:
            raise JudgeError("the grader is not listening (its objects work only while a test runs)")
        msg = {"op": op, "target": hid}
        if "args" in fields:
            msg["args"], msg["kwargs"] = self.encode(fields["args"]), self.encode(fields["kwargs"])
        if "name" in fields:
            msg["name"] = fields["name"]
        reply = self.channel.request(msg)
        if "exc" in reply:
            raise_remote(reply["exc"] if type(reply["exc"]) is dict else {})
        return self.decode(reply.get("ok"))

    def handle_for(self, obj) -> dict:
        if isinstance(obj, JudgeProxy):
            return {"$h": obj._hid, "side": "j", "kind": obj._kind, "name": obj._name}
        return self.export(obj)

    def describe(self, obj) -> dict:
        out = super().describe(obj)
        if isinstance(obj, type) and dataclasses.is_dataclass(obj):
            out["kind"] = "dataclass"
            out["path"] = f"{obj.__module__}:{obj.__qualname__}"
            out["fields"] = [f.name for f in dataclasses.fields(obj)]
        elif isinstance(obj, types.GeneratorType) or (hasattr(obj, "__next__") and hasattr(obj, "__iter__")):
            out["kind"] = "iterator"
        elif isinstance(obj, types.ModuleType):
            out["kind"] = "module"
        return out

    def make(self, tag: str, node: dict, inner):
        if tag == "$h":
            hid, side = node["$h"], node.get("side")
            if type(hid) is not int:
                raise codec.LinkError("a handle without an id")
            if side == "k":
                if hid not in self.objects:
                    raise codec.LinkError("a handle to an object this kernel no longer has")
                return self.objects[hid]
            kind, name = str(node.get("kind", "object")), str(node.get("name", "object"))[:200]
            proxy = JudgeProxy(self, hid, kind, name)
            if kind in ("openai", "anthropic"):
                return sdk_client(kind, proxy, node)
            return proxy
        if tag == "$rec":
            cls = find_class(node["$rec"])
            fields = {codec_name(k): v for k, v in inner(node.get("f", {})).items()}
            if cls is None or not dataclasses.is_dataclass(cls):
                return types.SimpleNamespace(**fields)
            obj = object.__new__(cls)
            for k, v in fields.items():
                object.__setattr__(obj, k, v)
            return obj
        if tag == "$nt":
            cls = find_class(node["$nt"])
            values = inner(node.get("v", []))
            if cls is None or not hasattr(cls, "_fields"):
                names = [codec_name(n) for n in node.get("n", [])]
                cls = collections.namedtuple(codec.split_path(node["$nt"])[1].split(".")[-1], names)
            return cls(*values)
        if tag == "$sdk":
            module, qualname = codec.split_path(node["$sdk"])
            if not module.startswith(codec.SDK_PREFIXES):
                raise codec.LinkError("an SDK object from outside the SDKs")
            cls = _resolve(importlib.import_module(module), qualname)
            return cls.model_validate(node.get("v"))
        raise codec.LinkError(f"{tag} is not accepted in the kernel")

    def serve_other(self, item: dict) -> dict:
        if item.get("op") == "lookup":
            name = item.get("name")
            ns = user_namespace()
            if type(name) is not str or name not in ns:
                return {"exc": {"type": "NameError", "mro": ["NameError", "Exception"],
                                "msg": f"name {str(name)[:80]!r} is not defined"}}
            try:
                return {"ok": self.encode(ns[name])}
            except codec.LinkError as e:
                return {"exc": {"type": "LinkError", "mro": ["LinkError", "Exception"], "msg": str(e)}}
        return super().serve_other(item)


def codec_name(name) -> str:
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


def forward(httpx2, proxy: JudgeProxy, request):
    """One HTTP request, answered by the judge's fake model."""
    body = request.read()
    try:
        out = proxy("http", request.method, str(request.url),
                    [[k, v] for k, v in request.headers.items()], base64.b64encode(body).decode())
    except JudgeError as e:
        name = str(e).split(":", 1)[0]
        if name in TRANSPORT_ERRORS:
            raise getattr(httpx2, name)(str(e).split(": ", 1)[-1], request=request) from None
        raise
    return httpx2.Response(out["status"], headers=out["headers"],
                           content=base64.b64decode(out["content"]), request=request)


def sdk_client(kind: str, proxy: JudgeProxy, node: dict):
    """A real SDK client whose HTTP goes to the judge's fake model over the link."""
    import httpx2

    class JudgeTransport(httpx2.BaseTransport):
        def handle_request(self, request):
            return forward(httpx2, proxy, request)

    transport = JudgeTransport()
    options = node.get("options") if type(node.get("options")) is dict else {}
    http = httpx2.Client(transport=transport)
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
    channel = END.channel = Channel(sock, END.serve, orphans="main")
    try:
        channel.request({"op": "hello", "token": token})
        channel.serve_main(until=lambda item: item.get("op") == "done")
    except LinkClosed:
        pass
    finally:
        channel.close()
        END.channel = None
