"""Values that cross between the judge and a student's kernel: plain data, bounded, tagged.

JSON values cross as themselves (dicts with string keys, lists, strings, numbers, booleans,
None). A few tagged dicts carry the rest:

    {"$t": [...]}                      a tuple            {"$set": [...]}   a set or frozenset
    {"$d": [[k, v], ...]}              a dict with keys that are not all strings
    {"$b": "<base64>"}                 bytes              {"$f": "nan" | "inf" | "-inf"}
    {"$rec": "mod:Name", "f": {...}}   a dataclass instance (its fields, as data)
    {"$nt": "mod:Name", "n": [...], "v": [...]}   a named tuple
    {"$sdk": "openai.types...:Name", "v": {...}}  an openai / anthropic SDK model (model_dump)
    {"$h": 7, "kind": "...", "name": "..."}       a handle: an object the other side keeps;
                                                  here it can only be called / asked for data
    {"$arg": 0}                        "the same object as the call's argument 0"
    {"$x": [[k, v], ...]}              a dict with a key that starts with "$" (escaped)

Everything is checked while it is read: depth, the number of nodes, the size of strings and
numbers. A value that breaks a bound, or a tag that is not one of these, is a `LinkError`.
What a handle becomes, and what an object turns into a handle, is the caller's business
(`handles=`): the codec only knows the wire form.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from dataclasses import dataclass

MAX_DEPTH = 64
MAX_NODES = 500_000
MAX_STR = 8_000_000  # characters in one string
MAX_INT_DIGITS = 4_300  # CPython's own int/str limit
TAGS = frozenset({"$t", "$set", "$d", "$b", "$f", "$rec", "$nt", "$sdk", "$h", "$arg", "$x"})
SDK_PREFIXES = ("openai.types.", "anthropic.types.")


class LinkError(Exception):
    """A value broke the channel's rules: too deep, too big, or a form the codec does not know."""


@dataclass
class Budget:
    """Counts what one value may still use; shared by every part of it."""

    nodes: int = MAX_NODES

    def take(self) -> None:
        self.nodes -= 1
        if self.nodes < 0:
            raise LinkError(f"a value with more than {MAX_NODES} parts")


def class_path(obj) -> str:
    cls = type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def is_sdk_model(obj) -> bool:
    module = type(obj).__module__ or ""
    return module.startswith(SDK_PREFIXES) and hasattr(obj, "model_dump")


def encode(value, handles, args=(), depth: int = 0, budget: Budget | None = None):
    """`value` as wire data. `handles(obj) -> dict` makes the handle for anything else."""
    budget = budget or Budget()
    budget.take()
    if depth > MAX_DEPTH:
        raise LinkError(f"a value nested deeper than {MAX_DEPTH}")
    for i, arg in enumerate(args):
        if value is arg and isinstance(value, (list, dict, set)) or (
                value is arg and dataclasses.is_dataclass(value) and not isinstance(value, type)):
            return {"$arg": i}
    kind = type(value)
    if value is None or kind is bool or kind is str:
        if kind is str and len(value) > MAX_STR:
            raise LinkError(f"a string of {len(value)} characters (at most {MAX_STR})")
        return value
    if kind is int:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$f": repr(value)}
    deeper = depth + 1
    if kind is list:
        return [encode(v, handles, args, deeper, budget) for v in value]
    if kind is tuple:
        return {"$t": [encode(v, handles, args, deeper, budget) for v in value]}
    if kind in (set, frozenset):
        return {"$set": [encode(v, handles, args, deeper, budget) for v in value]}
    if kind is bytes or kind is bytearray:
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    if kind is dict:
        if all(type(k) is str for k in value):
            out = {k: encode(v, handles, args, deeper, budget) for k, v in value.items()}
            if any(k.startswith("$") for k in out):  # e.g. a JSON schema's "$schema"
                return {"$x": [[k, v] for k, v in out.items()]}
            return out
        return {"$d": [[encode(k, handles, args, deeper, budget), encode(v, handles, args, deeper, budget)]
                       for k, v in value.items()]}
    if isinstance(value, tuple) and hasattr(kind, "_fields"):
        return {"$nt": class_path(value), "n": list(kind._fields),
                "v": [encode(v, handles, args, deeper, budget) for v in value]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and _plain_dataclass(kind):
        return {"$rec": class_path(value),
                "f": {f.name: encode(getattr(value, f.name), handles, args, deeper, budget)
                      for f in dataclasses.fields(value)}}
    if is_sdk_model(value):
        return {"$sdk": class_path(value), "v": value.model_dump(mode="json", exclude_unset=False)}
    return handles(value)


def _plain_dataclass(cls) -> bool:
    """A dataclass whose instances are their fields (not one with its own __getattr__ tricks)."""
    return all("__getattr__" not in vars(c) and "__getattribute__" not in vars(c) for c in cls.__mro__[:-1])


def decode(data, make, depth: int = 0, budget: Budget | None = None):
    """Wire data as a value. `make(tag, node, inner)` builds the tagged forms this side allows
    ($rec, $nt, $sdk, $h, $arg); `inner(x)` decodes a part of the node."""
    budget = budget or Budget()
    budget.take()
    if depth > MAX_DEPTH:
        raise LinkError(f"a value nested deeper than {MAX_DEPTH}")
    kind = type(data)
    if data is None or kind in (bool, float):
        return data
    if kind is int:
        if abs(data) >= 10 ** MAX_INT_DIGITS:
            raise LinkError("an integer too large to read")
        return data
    if kind is str:
        if len(data) > MAX_STR:
            raise LinkError(f"a string of {len(data)} characters (at most {MAX_STR})")
        return data

    def inner(x):
        return decode(x, make, depth + 1, budget)

    if kind is list:
        return [inner(v) for v in data]
    if kind is not dict:
        raise LinkError(f"a value of type {kind.__name__} on the wire")
    tagged = [k for k in data if k.startswith("$")]
    if not tagged:
        return {k: inner(v) for k, v in data.items()}
    tag = tagged[0]
    if tag not in TAGS or len(tagged) > 1:
        raise LinkError(f"an unknown tag {tag[:40]!r}")
    body = data[tag]
    if tag == "$t":
        return tuple(inner(v) for v in _list(body))
    if tag == "$set":
        return set(inner(v) for v in _list(body))
    if tag == "$d":
        return {inner(_pair(p)[0]): inner(_pair(p)[1]) for p in _list(body)}
    if tag == "$x":
        return {_str(_pair(p)[0]): inner(_pair(p)[1]) for p in _list(body)}
    if tag == "$b":
        try:
            return base64.b64decode(_str(body), validate=True)
        except ValueError as e:
            raise LinkError("bytes that are not base64") from e
    if tag == "$f":
        if body not in ("nan", "inf", "-inf"):
            raise LinkError(f"a float {str(body)[:20]!r}")
        return float(body)
    return make(tag, data, inner)


def _list(x) -> list:
    if type(x) is not list:
        raise LinkError("a tagged value without its list")
    return x


def _pair(x) -> list:
    if type(x) is not list or len(x) != 2:
        raise LinkError("a dict entry that is not a [key, value] pair")
    return x


def _str(x) -> str:
    if type(x) is not str:
        raise LinkError("a tagged value without its string")
    return x


def split_path(path) -> tuple[str, str]:
    """'module:Qual.Name' -> (module, qualname), both plain dotted names."""
    if type(path) is not str or path.count(":") != 1 or len(path) > 300:
        raise LinkError("a class path that is not 'module:Name'")
    module, qualname = path.split(":")
    names = module.split(".") + qualname.split(".")
    if not all(n.isidentifier() for n in names):
        raise LinkError(f"a class path {path[:80]!r}")
    return module, qualname
