"""What the notebook's objects become in the judge: data, or a `KernelRef` that proves nothing.

Data comes back as a copy (a str is a str, a list of dicts a list of dicts); a function, a class
or any other object comes back as a `KernelRef`, which can only be called, or asked for a public
attribute that is data (a copy) or a method (to call). It has no length, items or iteration, is
never equal to anything but itself and has no truth value, so a student's object with a lying
`__eq__`, `__bool__` or `__len__` proves nothing here.

A dataclass instance or a pydantic model comes back as an instance of the test's own class of its
name and fields when the test defines one (an `#@include` of the chapter's `AgentResult`), so
`==`, `dataclasses.asdict` and `type(result) is AgentResult` work; else as a `Record`: its class's
name and its fields, as data. No class is ever made here from a name the kernel sends. A named
tuple comes back as a tuple.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import typing

import pydantic

from workbook.link import codec
from workbook.link.signatures import signature_from


class KernelError(Exception):
    """The kernel broke the link's rules while a test ran (a malformed or oversized reply)."""

    judge_only = True  # the judge's own word: never the class of an error the kernel names (exc_classes)


class Record:
    """A record of the notebook's (a dataclass instance, a pydantic model) the test has no class
    for: the name of its class (`kind`, the kernel's word) and its fields, read as attributes.
    Equal to a record of the same kind and fields; handed back to the notebook as its own record."""

    __slots__ = ("_path", "_fields", "_model")

    def __init__(self, path: str, fields: dict, model: bool = False):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_fields", dict(fields))
        object.__setattr__(self, "_model", model)

    def __record_kind__(self) -> str:
        """The name of the notebook's class (`workbook.checks.kind` reads it)."""
        return self._path.rpartition(":")[2].rpartition(".")[2]

    def __getattr__(self, name: str) -> typing.Any:
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        if name == "model_dump" and object.__getattribute__(self, "_model"):  # a pydantic model's fields
            return lambda **_: copy.deepcopy(fields)
        raise AttributeError(f"the notebook's {self.__record_kind__()} has no field {name!r}"[:200])

    def __setattr__(self, name: str, value: typing.Any) -> None:
        raise TypeError(f"the notebook's {self.__record_kind__()} is a record read by the test: set nothing on it")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (self._path, self._fields, self._model) == (other._path, other._fields, other._model)

    __hash__ = None  # type: ignore[assignment]  # equal by value, like a dataclass

    def __wire__(self, encode) -> dict:
        """The record as the link's data, to go back to the notebook as its own record."""
        if self._model:
            return {"$pyd": self._path, "v": encode(dict(self._fields))}
        return {"$rec": self._path, "f": {k: encode(v) for k, v in self._fields.items()}}

    def __repr__(self) -> str:
        return f"{self.__record_kind__()}({', '.join(f'{k}={v!r}' for k, v in self._fields.items())})"[:2000]


def fields_of(raw, inner) -> dict:
    if type(raw) is not dict:
        raise codec.LinkError("a record without fields")
    return {k: inner(v) for k, v in raw.items()}


def _test_class(own: dict, path: str, base: type | None = None) -> typing.Any:
    """The test's own class a record names ("__test__:Route", one the test handed over; or
    "__main__:AgentResult", a class the test defines too, the chapter's own, `#@include`d)."""
    module, qualname = codec.split_path(path)
    cls = own.get(qualname) if module in ("__main__", "__test__") else None
    ok = isinstance(cls, type) and cls.__module__ == "__test__" and (base is None or issubclass(cls, base))
    return cls if ok else None


def record(own: dict, path: str, fields: dict) -> object:
    """A dataclass instance of the notebook's: one of the test's own class of its name and fields
    (its fields set, nothing of the class run), else a Record."""
    cls = _test_class(own, path)
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls) or \
            [f.name for f in dataclasses.fields(cls)] != list(fields):
        return Record(path, fields)
    obj: object = object.__new__(cls)
    for k, v in fields.items():
        object.__setattr__(obj, k, v)
    return obj


def model(own: dict, path: str, fields: dict) -> object:
    """A pydantic model of the notebook's: one of the test's own model class of its name, else a Record."""
    cls = _test_class(own, path, pydantic.BaseModel)
    return cls.model_construct(**fields) if cls is not None else Record(path, fields, model=True)


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_NAME = 60


def plain_name(name, default: str) -> str:
    """A name the notebook gave its function or class, as messages may say it: dotted identifiers,
    whole, at most MAX_NAME characters (the judge's messages cut longer values, and a name cut short
    escapes the quiet messages' redaction: heard.py), else `default` (red team 16 named a class
    after a hidden test's input)."""
    return name if type(name) is str and len(name) <= MAX_NAME and NAME.fullmatch(name) else default


class KernelRef:
    """An object in the student's kernel: it can be called and asked for data, nothing more."""

    __slots__ = ("_end", "_hid", "_kind", "_name", "_info")

    def __init__(self, end, hid: int, info: dict):
        object.__setattr__(self, "_end", end)
        object.__setattr__(self, "_hid", hid)
        object.__setattr__(self, "_kind", str(info.get("kind", "object"))[:20])
        object.__setattr__(self, "_name", plain_name(info.get("name"), "object"))
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
        return plain_name(self._info.get("short"), self._name)

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
