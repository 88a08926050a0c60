"""Functions across the link: a signature as data, and a real function that calls the other side.

A handle's signature crosses as data (parameter names, kinds, defaults as codec values,
annotations as text). The side that receives it builds an `inspect.Signature` from it, so
`inspect.signature`, `inspect.getdoc` and `typing.get_type_hints` work on the proxy; annotations
are evaluated only when they come from the trusted side (the judge), built-in names always.
"""

from __future__ import annotations

import inspect
import typing

from workbook.link import codec

BUILTIN_TYPES = {t.__name__: t for t in (int, str, float, bool, list, dict, tuple, set, frozenset, bytes,
                                         object, complex, bytearray)} | {"None": None}


def annotation_name(a) -> str:
    if isinstance(a, str):
        return a[:200]
    if a is None or a is type(None):
        return "None"
    if isinstance(a, type) and a.__module__ == "builtins":
        return a.__qualname__
    return repr(a).replace("typing.", "")[:200]


def annotation_from(name, trusted: bool):
    """A type named by the other side: built-in names always; typing forms only from the judge."""
    if type(name) is not str:
        return inspect.Parameter.empty
    if name in BUILTIN_TYPES:
        return BUILTIN_TYPES[name]
    if trusted:
        try:
            return eval(name, {"__builtins__": {}}, {**BUILTIN_TYPES, **vars(typing)})  # noqa: S307
        except Exception:  # noqa: BLE001 - an annotation this side cannot name stays text
            return name
    return name


def signature_data(fn, encode) -> dict | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for p in list(sig.parameters.values())[:100]:
        d = {"name": p.name, "kind": int(p.kind)}
        if p.default is not p.empty:
            try:
                d["default"] = encode(p.default)
            except codec.LinkError:
                pass
        if p.annotation is not p.empty:
            d["ann"] = annotation_name(p.annotation)
        params.append(d)
    out: dict[str, typing.Any] = {"params": params}
    if sig.return_annotation is not sig.empty:
        out["ret"] = annotation_name(sig.return_annotation)
    return out


def signature_from(data, decode, trusted: bool) -> inspect.Signature | None:
    if type(data) is not dict or type(data.get("params")) is not list:
        return None
    try:
        params = []
        for d in data["params"]:
            kw = {}
            if "default" in d:
                kw["default"] = decode(d["default"])
            if "ann" in d:
                kw["annotation"] = annotation_from(d["ann"], trusted)
            params.append(inspect.Parameter(str(d["name"]), inspect._ParameterKind(int(d["kind"])), **kw))
        ret = annotation_from(data["ret"], trusted) if "ret" in data else inspect.Signature.empty
        return inspect.Signature(params, return_annotation=ret)
    except (ValueError, TypeError, KeyError, codec.LinkError):
        return None


def function_proxy(call, info: dict, decode, trusted: bool):
    """A real function that calls the other side: it has the other side's name, docstring and
    signature, so `inspect.signature`, `inspect.getdoc` and `typing.get_type_hints` work."""

    def proxy(*args, **kwargs):
        return call(list(args), kwargs)

    name = str(info.get("short", "tool"))
    proxy.__name__ = name if name.isidentifier() else "tool"
    proxy.__qualname__ = str(info.get("name", proxy.__name__))
    proxy.__doc__ = info.get("doc") if isinstance(info.get("doc"), str) else None
    sig = signature_from(info.get("sig"), decode, trusted)
    if sig is not None:
        proxy.__signature__ = sig  # type: ignore[attr-defined]  # a function takes any attribute; inspect reads it
        proxy.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()
                                 if p.annotation is not p.empty and not isinstance(p.annotation, str)}
        if sig.return_annotation is not sig.empty and not isinstance(sig.return_annotation, str):
            proxy.__annotations__["return"] = sig.return_annotation
    return proxy

