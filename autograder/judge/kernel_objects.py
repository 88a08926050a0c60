"""What the notebook's objects become in the judge: data, or a `KernelRef` that proves nothing.

Data comes back as a copy (a str is a str, a list of dicts a list of dicts); a function, a class
or any other object comes back as a `KernelRef`, which can only be called, or asked for a public
attribute that is data (a copy) or a method (to call). It has no length, items or iteration, is
never equal to anything but itself and has no truth value, so a student's object with a lying
`__eq__`, `__bool__` or `__len__` proves nothing here.

Dataclass instances come back as instances of a judge-side dataclass of the same name and
fields (`record_type`), so `result.answer`, `dataclasses.asdict(result)`, `type(result) is
AgentResult` and `==` work; calling that class builds the object in the kernel (its defaults and
`__post_init__` are the notebook's) and brings it back. Named tuples and pydantic models get a
judge-side class of their name and fields the same way (data only).

Bounded: a class has at most MAX_FIELDS fields (counted before anything is built: the red team's
named tuple of 400,000 fields, or `make_dataclass` with 50,000, is quadratic work in C), and each
cache holds at most MAX_CLASSES classes for the judge's notebook; past either bound the reply is
refused with a LinkError saying which.
"""

from __future__ import annotations

import collections
import dataclasses
import typing
from collections.abc import Callable, Sized

import pydantic

from workbook.link import codec
from workbook.link.signatures import signature_from

MAX_FIELDS = 1_000  # fields of one record, named tuple or model class
MAX_CLASSES = 256  # classes of each kind one judge (one notebook) makes

# Classes made at run time, of fields mypy cannot know: type[Any] (any attribute, any call).
_records: dict[tuple[str, tuple[str, ...]], type[typing.Any]] = {}
_tuples: dict[tuple[str, tuple[str, ...]], type[typing.Any]] = {}
_models: dict[tuple[str, tuple[str, ...]], type[pydantic.BaseModel]] = {}


class KernelError(Exception):
    """The kernel broke the link's rules while a test ran (a malformed or oversized reply)."""


def _names(kind: str, names: typing.Any, private: str) -> tuple[str, ...]:
    """The field names of a class the kernel describes, checked (count first, then each name)."""
    if type(names) not in (list, tuple) or len(names) > MAX_FIELDS:
        count = len(names) if type(names) in (list, tuple) else "no list of"
        raise codec.LinkError(f"a {kind} with {count} fields: the judge makes classes of at most {MAX_FIELDS}")
    if not all(type(n) is str and n.isidentifier() and not n.startswith(private) for n in names):
        raise codec.LinkError(f"a {kind} field that is not a name")
    return tuple(names)


def _room(cache: Sized, kind: str) -> None:
    if len(cache) >= MAX_CLASSES:
        raise codec.LinkError(f"the notebook's objects needed more than {MAX_CLASSES} {kind} classes "
                              "(one per name and set of fields): the judge makes no more")


def pydantic_type(path: str, fields: list[str]) -> type[pydantic.BaseModel]:
    """A judge-side pydantic model of the notebook's model's name and fields (data only)."""
    module, qualname = codec.split_path(path)
    key = (path, _names("pydantic model", fields, "_"))
    if key not in _models:
        _room(_models, "pydantic model")
        definitions: dict[str, typing.Any] = {f: (typing.Any, None) for f in fields}
        cls = pydantic.create_model(qualname.split(".")[-1], **definitions)
        cls.__module__ = module
        _models[key] = cls
    return _models[key]


def named_tuple(path: str, names: list[str]) -> type[typing.Any]:
    """The judge's named tuple class for a kernel one: same name, same fields."""
    module, qualname = codec.split_path(path)
    key = (path, _names("named tuple", names, "_"))
    if key not in _tuples:
        _room(_tuples, "named tuple")
        # a class of the kernel's name, made at run time: mypy only follows a literal name
        cls = collections.namedtuple(qualname.split(".")[-1], names)  # type: ignore[misc]
        cls.__module__ = module
        _tuples[key] = cls
    return _tuples[key]


def record_type(path: str, fields: list[str], ctor: Callable[..., typing.Any] | None = None) -> type[typing.Any]:
    """The judge's dataclass for a kernel dataclass `path` ("module:Name") with these fields."""
    module, qualname = codec.split_path(path)
    names = _names("record", fields, "__")
    key = (path, names)
    cls: type[typing.Any] | None = _records.get(key)
    if cls is None:
        _room(_records, "record")
        cls = dataclasses.make_dataclass(qualname.split(".")[-1], list(names), eq=True, repr=True)
        cls.__module__, cls.__qualname__ = module, qualname
        original_init = cls.__init__

        def __init__(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> None:
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

    def __init__(self, end, hid: int, info: dict):
        object.__setattr__(self, "_end", end)
        object.__setattr__(self, "_hid", hid)
        object.__setattr__(self, "_kind", str(info.get("kind", "object"))[:20])
        object.__setattr__(self, "_name", str(info.get("name", "object"))[:200])
        object.__setattr__(self, "_info", info)

    @property
    def __signature__(self):
        return signature_from(self._info.get("sig"), self._end.decode, trusted=False)

    @property
    def __annotations__(self):  # type: ignore[override]  # read-only on purpose: a test sets nothing on it
        # what typing.get_type_hints reads: built-in types, else the text
        sig = self.__signature__
        if sig is None:
            return {}
        hints = {p.name: p.annotation for p in sig.parameters.values() if p.annotation is not p.empty}
        return hints | ({"return": sig.return_annotation} if sig.return_annotation is not sig.empty else {})

    @property
    def __name__(self):
        return str(self._info.get("short", self._name))

    @property
    def __doc__(self):  # type: ignore[override]  # read-only on purpose: a test sets nothing on it
        doc = self._info.get("doc")
        return doc if isinstance(doc, str) else None

    def __call__(self, *args, **kwargs):
        return self._end.call(self._hid, list(args), kwargs)

    def __getattr__(self, name: str):
        """A public attribute: data (a copy), or a method to call. Never another object of the
        notebook to explore: an object crosses as data or as something to call, nothing more."""
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._end.ask("getattr", self._hid, name=name)
        if isinstance(value, KernelRef) and value._kind not in ("function", "class"):
            raise KernelError(f"the notebook's {self._name}.{name} is an object, not data or a method"[:200])
        return value

    def __iter__(self):
        raise TypeError(f"the notebook's {self._name} is an object, not data: a test reads its data "
                        "attributes and calls its methods, it does not iterate it")

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
