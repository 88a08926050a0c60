"""The judge's end of the link: the notebook's names as proxies, records, exceptions as classes.

A notebook's own exception class (`class MCPError(Exception)`) comes back as a judge-side class
of its name (`errors.foreign_exception`), the very class its raised errors decode to, so
`checks.raises(MCPError)` runs here as in the kernel.

A test cell runs in the judge in a `Namespace`: a name the cell did not define is looked up in
the kernel. Data comes back as a copy (a str is a str, a list of dicts a list of dicts); a
function, a class or any other object comes back as a `KernelRef`, which can only be called or
asked for an attribute, an item, its length or its next value, all as data again. A `KernelRef`
is never equal to anything but itself and has no truth value, so a student's object with a
lying `__eq__`, `__bool__` or `__len__` proves nothing here.

Dataclass instances come back as instances of a judge-side dataclass of the same name and
fields (`record_type`), so `result.answer`, `dataclasses.asdict(result)`, `type(result) is
AgentResult` and `==` work; calling that class builds the object in the kernel (its defaults and
`__post_init__` are the notebook's) and brings it back.
"""

from __future__ import annotations

import base64
import builtins
import collections
import dataclasses
import functools
import inspect
import secrets
import sys
import types
import typing

import httpx2
import pydantic

from autograder.judge.scratch import Mirror, quietly
from workbook.engine.streaming import Pieces
from workbook.link import codec
from workbook.link.endpoint import Endpoint, link_error, signature_from
from workbook.link.errors import find_exception

_records: dict[tuple[str, tuple[str, ...]], type] = {}


class KernelError(Exception):
    """The kernel broke the link's rules while a test ran (a malformed or oversized reply)."""


class Stop(BaseException):
    """The judge stops a test (its time is up, or the kernel is gone): nothing may catch it."""

    link_stop = True


_tuples: dict[tuple[str, tuple[str, ...]], type] = {}
_models: dict[tuple[str, tuple[str, ...]], type] = {}
# Names the notebook may take from elsewhere that the judge replaces with its own: exact paths only.
TRUSTED_NAMES = frozenset({"pydantic:BaseModel", "pydantic.main:BaseModel", "pydantic:ValidationError",
                           "pydantic_core._pydantic_core:ValidationError", "pydantic:Field",
                           "pydantic.fields:Field", "pydantic:ConfigDict", "json:dumps", "json:loads",
                           "dataclasses:dataclass", "dataclasses:field", "dataclasses:asdict"})
# Objects the judge may hand the kernel as handles come from these modules (or the test's code).
SAFE_MODULES = frozenset({"workbook", "openai", "anthropic", "httpx2", "threading", "queue", "types",
                          "__test__", "kernel", "autograder"})


def trusted_object(path):
    """The judge's own object for a notebook name it trusts (TRUSTED_NAMES; or a function or class
    defined at the top of a workbook module), else None. Nothing is imported and no attribute
    chain is followed: kernel data only picks among objects the judge already has."""
    if type(path) is not str or path.count(":") != 1:
        return None
    module, _, name = path.partition(":")
    if path in TRUSTED_NAMES and module in sys.modules:
        return getattr(sys.modules[module], name, None)
    if (module == "workbook" or module.startswith("workbook.")) and module in sys.modules and \
            name.isidentifier() and not name.startswith("_"):
        obj = vars(sys.modules[module]).get(name)
        if (inspect.isfunction(obj) or isinstance(obj, type)) and obj.__module__ == module:
            return obj
    return None


def _module_ok(module) -> bool:
    return module is None or str(module).split(".")[0] in SAFE_MODULES


def exportable(obj) -> bool:
    """May the kernel hold a handle to this judge object (and so call it, and ask its public
    attributes)? Modules never; functions, classes and objects of the test's own code, the
    workbook and the SDKs; methods of those; builtin methods of data the test made. Never a
    builtin bound to a module (os.system, time.sleep, exec) or a function of the standard library."""
    if isinstance(obj, types.ModuleType):
        return False
    if isinstance(obj, type):
        return _module_ok(obj.__module__)
    if isinstance(obj, types.BuiltinFunctionType):  # also builtin methods: __self__ is their object
        owner = getattr(obj, "__self__", None)
        return owner is not None and not isinstance(owner, types.ModuleType) and (
            type(owner).__module__ == "builtins" or _module_ok(type(owner).__module__))
    if isinstance(obj, types.MethodType):
        return exportable(obj.__func__) and _module_ok(type(obj.__self__).__module__)
    if isinstance(obj, types.FunctionType):
        return _module_ok(obj.__module__)
    if isinstance(obj, functools.partial):
        return exportable(obj.func)
    return _module_ok(type(obj).__module__)


def pydantic_type(path: str, fields: list) -> type:
    """A judge-side pydantic model of the notebook's model's name and fields (data only)."""
    module, qualname = codec.split_path(path)
    if not all(type(n) is str and n.isidentifier() and not n.startswith("_") for n in fields):
        raise codec.LinkError("a model field that is not a name")
    key = (path, tuple(fields))
    if key not in _models:
        cls = pydantic.create_model(qualname.split(".")[-1], **{f: (typing.Any, None) for f in fields})
        cls.__module__ = module
        _models[key] = cls
    return _models[key]


def named_tuple(path: str, names: list) -> type:
    """The judge's named tuple class for a kernel one: same name, same fields."""
    module, qualname = codec.split_path(path)
    if not all(type(n) is str and n.isidentifier() and not n.startswith("_") for n in names):
        raise codec.LinkError("a named tuple field that is not a name")
    key = (path, tuple(names))
    if key not in _tuples:
        cls = collections.namedtuple(qualname.split(".")[-1], names)
        cls.__module__ = module
        _tuples[key] = cls
    return _tuples[key]


def record_type(path: str, fields: list[str], ctor=None) -> type:
    """The judge's dataclass for a kernel dataclass `path` ("module:Name") with these fields."""
    module, qualname = codec.split_path(path)
    names = tuple(fields)
    if not all(type(n) is str and n.isidentifier() and not n.startswith("__") for n in names):
        raise codec.LinkError("a record field that is not a name")
    key = (path, names)
    cls = _records.get(key)
    if cls is None:
        cls = dataclasses.make_dataclass(qualname.split(".")[-1], list(names), eq=True, repr=True)
        cls.__module__, cls.__qualname__ = module, qualname
        original_init = cls.__init__

        def __init__(self, *args, **kwargs):
            if cls._kernel_ctor is None:  # not looked up in the kernel: the plain dataclass
                return original_init(self, *args, **kwargs)
            made = cls._kernel_ctor(*args, **kwargs)
            if type(made) is not cls:
                raise KernelError(f"the notebook's {qualname}(...) did not make a {qualname}")
            for name in names:
                object.__setattr__(self, name, getattr(made, name))

        cls.__init__ = __init__
        cls._kernel_ctor = None
        _records[key] = cls
    if ctor is not None:
        cls._kernel_ctor = ctor
    return cls


class KernelRef:
    """An object in the student's kernel: it can be called and asked for data, nothing more."""

    __slots__ = ("_end", "_hid", "_kind", "_name", "_info")

    def __init__(self, end: JudgeEnd, hid: int, info: dict):
        object.__setattr__(self, "_end", end)
        object.__setattr__(self, "_hid", hid)
        object.__setattr__(self, "_kind", str(info.get("kind", "object"))[:20])
        object.__setattr__(self, "_name", str(info.get("name", "object"))[:200])
        object.__setattr__(self, "_info", info)

    @property
    def __signature__(self):
        return signature_from(self._info.get("sig"), self._end.decode, trusted=False)

    @property
    def __name__(self):
        return str(self._info.get("short", self._name))

    @property
    def __doc__(self):
        doc = self._info.get("doc")
        return doc if isinstance(doc, str) else None

    def __call__(self, *args, **kwargs):
        return self._end.call(self._hid, list(args), kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._end.ask("getattr", self._hid, name=name)

    def __iter__(self):
        return self if self._kind == "iterator" else self._end.ask("iter", self._hid)

    def __next__(self):
        return self._end.ask("next", self._hid)

    def __len__(self):
        n = self._end.ask("len", self._hid)
        if type(n) is not int or n < 0:
            raise KernelError(f"len() of the notebook's {self._name} is not a count: {n!r}"[:200])
        return n

    def __getitem__(self, key):
        return self._end.ask("getitem", self._hid, arg=key)

    def __contains__(self, item):
        found = self._end.ask("contains", self._hid, arg=item)
        if type(found) is not bool:
            raise KernelError("`in` on a notebook object did not answer True or False")
        return found

    def __bool__(self):
        raise TypeError(f"the notebook's {self._name} is an object, not data: a test compares "
                        "values (its attributes, its result), never the object's own truth")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return f"<the notebook's {self._kind} {self._name}>"

    def __setattr__(self, name, value):
        raise TypeError("a test cannot set attributes of an object in the notebook")


class JudgeEnd(Endpoint):
    side = "j"

    def __init__(self):
        super().__init__()
        self._refs: dict[int, KernelRef] = {}
        self.borrowed: dict[int, dict] = {}  # id(judge's own object) -> the kernel's handle it stands for
        self._ids = iter(lambda: secrets.randbits(52), None)  # handle ids nobody can guess
        self.token = ""
        self.mirror: Mirror | None = None  # the scratch folder, when the kernel is in a sandbox

    def _request(self, msg: dict) -> dict:
        if self.mirror is None:
            return super()._request(msg)
        quietly(self.mirror.to_kernel)
        try:
            return super()._request(msg)
        finally:
            quietly(self.mirror.from_kernel)

    def serve(self, item: dict) -> dict:
        if self.mirror is None:
            return super().serve(item)
        quietly(self.mirror.from_kernel)
        try:
            return super().serve(item)
        finally:
            quietly(self.mirror.to_kernel)

    def not_connected(self) -> Exception:
        return KernelError("the notebook's kernel is not connected to the grader")

    def lookup(self, name: str):
        return self.decode(self._request({"op": "lookup", "name": name})["ok"])

    # -- what crosses ---------------------------------------------------------------------------

    def handle_for(self, obj) -> dict:
        if isinstance(obj, KernelRef):
            return {"$h": obj._hid, "side": "k"}
        if id(obj) in self.borrowed:  # the kernel's own name, replaced by the judge's copy: give it back
            return self.borrowed[id(obj)]
        kind = sdk_kind(obj)
        if kind:
            return {**self.export(SdkBridge(obj)), "kind": kind, "options": sdk_options(obj)}
        if not exportable(obj):
            raise codec.LinkError(f"a test cannot hand the notebook a {type(obj).__name__} "
                                  f"({getattr(obj, '__qualname__', '')})"[:200])
        return self.export(obj)

    def forget_test(self) -> None:
        """When a test ends: none of its handles work any more, either way."""
        self.forget_calls()
        self.objects.clear()
        self._exported.clear()
        self._refs.clear()

    def make(self, tag: str, node: dict, inner):
        if tag == "$h":
            hid, side = node["$h"], node.get("side")
            if type(hid) is not int:
                raise codec.LinkError("a handle without an id")
            if side == "j":
                if hid not in self.objects:
                    raise codec.LinkError("a handle to an object the judge never gave out")
                obj = self.objects[hid]
                return obj.client if isinstance(obj, SdkBridge) else obj
            own = trusted_object(node.get("path"))
            if own is not None:  # pydantic.BaseModel, json.dumps, a workbook helper: the judge's own
                self.borrowed[id(own)] = {"$h": hid, "side": "k"}
                return own
            if node.get("kind") == "class" and node.get("exc") is True and type(node.get("path")) is str:
                own = find_exception(node["path"], node.get("mro"))  # a notebook's exception class
                self.borrowed[id(own)] = {"$h": hid, "side": "k"}
                return own
            info = {k: node[k] for k in ("kind", "name", "short", "doc", "sig") if k in node}
            ref = self._refs[hid] if hid in self._refs else KernelRef(self, hid, info)
            self._refs[hid] = ref
            if info.get("kind") == "dataclass" and type(node.get("fields")) is list and type(node.get("path")) is str:
                return record_type(node["path"], node["fields"], ctor=ref)
            return ref
        if tag == "$rec":
            raw = node.get("f")
            if type(raw) is not dict:
                raise codec.LinkError("a record without fields")
            fields = {k: inner(v) for k, v in raw.items()}
            cls = record_type(node["$rec"], list(fields))
            obj = object.__new__(cls)
            for k, v in fields.items():
                object.__setattr__(obj, k, v)
            return obj
        if tag == "$nt":
            values, names = node.get("v"), node.get("n")
            if type(values) is not list or type(names) is not list or len(names) != len(values):
                raise codec.LinkError("a named tuple without its fields")
            return named_tuple(node["$nt"], names)(*[inner(v) for v in values])
        if tag == "$pyd":
            value = inner(node.get("v"))
            if type(value) is not dict:
                raise codec.LinkError("a pydantic model that is not a dict of fields")
            return pydantic_type(node["$pyd"], list(value)).model_construct(**value)
        if tag == "$sdk":
            module, qualname = codec.split_path(node["$sdk"])
            if not module.startswith(codec.SDK_PREFIXES):
                raise codec.LinkError("an SDK object from outside the SDKs")
            if module not in sys.modules:  # kernel data never imports anything here
                raise codec.LinkError(f"an SDK type from a module the judge has not loaded: {module[:80]}")
            cls = sys.modules[module]
            for part in qualname.split("."):
                cls = getattr(cls, part)
            return cls.model_validate(node.get("v"))
        return super().make(tag, node, inner)

    def serve_other(self, item: dict) -> dict:
        if item.get("op") == "hello":
            if item.get("token") != self.token:
                return link_error("a connection that is not this test's kernel")
            return {"ok": None}
        return super().serve_other(item)


def sdk_kind(obj) -> str:
    module = type(obj).__module__ or ""
    name = type(obj).__name__
    if module.startswith("openai") and name == "OpenAI":
        return "openai"
    if module.startswith("anthropic") and name == "Anthropic":
        return "anthropic"
    return ""


def sdk_options(client) -> dict:
    """What the kernel's copy of a client must share with the judge's: where it points, retries."""
    timeout = client.timeout
    return {"api_key": "fake-key", "base_url": str(client.base_url), "max_retries": int(client.max_retries),
            "timeout": timeout if isinstance(timeout, (int, float)) else None}


class SdkBridge:
    """A judge-side SDK client as the kernel reaches it: one HTTP request at a time."""

    def __init__(self, client):
        self.client = client

    def __call__(self, op, method, url, headers, body):
        if op != "http" or type(method) is not str or type(url) is not str or type(headers) is not list:
            raise codec.LinkError("a malformed HTTP request")
        request = httpx2.Request(method, url, headers=[(str(k), str(v)) for k, v in headers],
                                 content=base64.b64decode(str(body)))
        try:
            response = self.client._client._transport.handle_request(request)
        except httpx2.TimeoutException as e:
            raise type(e)(str(e)) from None
        head = {"status": response.status_code, "headers": [[k, v] for k, v in response.headers.items()]}
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return {**head, "pieces": Pieces(response)}  # read as the notebook reads it (streaming.Pieces)
        return {**head, "content": base64.b64encode(response.read()).decode()}


class Namespace(dict):
    """A test cell's globals in the judge: what the cell defines, else the notebook's name."""

    def __init__(self, end: JudgeEnd):
        super().__init__()
        self.end = end
        self.from_kernel: set[str] = set()
        self.missing: set[str] = set()

    def __missing__(self, name: str):
        if name in self.missing or hasattr(builtins, name) or name.startswith("__"):
            raise KeyError(name)
        try:
            value = self.end.lookup(name)
        except NameError:
            self.missing.add(name)
            raise KeyError(name) from None
        self[name] = value
        self.from_kernel.add(name)
        return value

    def forget_kernel(self) -> None:
        """Before each test cell: the notebook may have redefined anything since the last one."""
        for name in self.from_kernel:
            self.pop(name, None)
        self.from_kernel.clear()
        self.missing.clear()
