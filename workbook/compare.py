"""What `checks.equal` says when two values differ: the first wrong type, length, key or value.

    mismatch(("tool", "x", []), ("tool", "x", {}), "r")
        # "r should be ('tool', 'x', {}), got ('tool', 'x', []): item [2] should be a dict, got list []"
    mismatch(messages, expected, "messages")   # long values: only the part that differs
        # "messages: item [2]['content'] should be 'refunded', got 'refund'"

Plain data only (`PLAIN`): a value of another type is compared with `==` as a whole, so an object
whose `__eq__` always says True is stopped by the type check before any `==` runs on it.

Every message is one f-string, whole (`_said`): the catalogs translate a message by its template
(i18n/<lang>/messages.json, docs/TRANSLATING.md), so a sentence glued from pieces would stay English.
"""

from __future__ import annotations

PLAIN = (type(None), bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset)
WHOLE = 160  # a message quotes both whole values up to this length, else only the part that differs
_AROUND = 30  # characters shown either side of where two long texts part
# what a message may quote; a shape uses some (`_said`)
_QUOTED = ("path", "expected", "actual", "kind", "got", "wanted", "count", "length", "listed", "missing", "extra", "at")

Finding = tuple[str, str, dict]  # where (a path like "[0]['k']", "" for the whole), the shape, its values


def with_article(noun: str) -> str:
    """The noun with its article: 'an int', 'a str'."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def short(value, limit: int = 300) -> str:
    """repr() cut to `limit` characters, for readable messages."""
    text = repr(value)
    if len(text) <= limit:
        return text
    tail = f"... ({len(text)} chars)"
    return text[: max(limit - len(tail), 10)] + tail


def shape_error(actual, expected, path: str = "") -> Finding | None:
    """Where and why `actual` does not have the plain types, lengths and keys of `expected`, or
    None."""
    if type(expected) not in PLAIN:
        return None  # not plain data: only == applies
    if type(actual) is not type(expected):  # also stops objects whose __eq__ always says True
        got = "None" if actual is None else f"{type(actual).__name__} {short(actual, 80)}"
        shape = "none" if expected is None else with_article(type(expected).__name__).split()[0]
        return path, shape, {"kind": type(expected), "got": got}
    if isinstance(expected, (tuple, list)):
        if len(actual) != len(expected):
            return path, "length", {"count": len(expected), "length": len(actual), "listed": short(actual, 120)}
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            if found := shape_error(a, e, f"{path}[{i}]"):
                return found
    if isinstance(expected, dict):
        if set(actual) != set(expected):
            missing, extra = set(expected) - set(actual), set(actual) - set(expected)
            shape = "keys" if missing and extra else "missing" if missing else "extra"
            return path, shape, {"missing": ", ".join(sorted(map(repr, missing))),
                                 "extra": ", ".join(sorted(map(repr, extra)))}
        for key, e in expected.items():
            if found := shape_error(actual[key], e, f"{path}[{key!r}]"):
                return found
    return None


def first_difference(actual, expected, path: str = "") -> tuple[str, object, object] | None:
    """The path of the first part (depth first) where `actual` and `expected` differ, with the two
    values there, or None when no part differs. Meant for after `shape_error` found nothing: both
    have the same plain types, lengths and keys down to where they differ."""
    if type(expected) in (tuple, list) and type(actual) is type(expected):
        for i, (a, e) in enumerate(zip(actual, expected, strict=False)):
            if found := first_difference(a, e, f"{path}[{i}]"):
                return found
        return None
    if type(expected) is dict and type(actual) is dict:
        for key, e in expected.items():
            if key in actual and (found := first_difference(actual[key], e, f"{path}[{key!r}]")):
                return found
        return None
    return None if actual == expected else (path, actual, expected)


def texts_part(actual: str, expected: str) -> dict:
    """Where two texts part (`at`), with a little of each either side (`wanted`, `got`): for texts
    too long to read whole."""
    at = next((i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e), min(len(actual), len(expected)))
    start = max(at - _AROUND, 0)
    return {"wanted": repr(expected[start:at + _AROUND]), "got": repr(actual[start:at + _AROUND]), "at": at}


def _said(shape: str, where: str, what: str, values: dict) -> str:
    """The message of `shape` about `what`, said of the whole value (`where` "top"), of a part
    after `what` alone ("item"), or of a part after both whole values ("whole"). One f-string per
    message, so a catalog translates it as a whole."""
    path, expected, actual, kind, got, wanted, count, length, listed, missing, extra, at = (
        values.get(name, "") for name in _QUOTED)

    top = {"none": lambda: f"{what} should be None, got {got}",  # "a", "an": checks.is_type's words
           "a": lambda: f"{what} should be a {kind.__name__}, got {got}",
           "an": lambda: f"{what} should be an {kind.__name__}, got {got}",
           "length": lambda: f"{what} should have {count} items, got {length}: {listed}",
           "missing": lambda: f"{what}: missing keys {missing}",
           "extra": lambda: f"{what}: unexpected keys {extra}",
           "keys": lambda: f"{what}: missing keys {missing}; unexpected keys {extra}",
           "value": lambda: f"{what} should be {wanted}, got {got}",
           "text": lambda: f"{what} should be …{wanted}… at character {at}, got …{got}…"}
    item = {"none": lambda: f"{what}: item {path} should be None, got {got}",
            "a": lambda: f"{what}: item {path} should be a {kind.__name__}, got {got}",
            "an": lambda: f"{what}: item {path} should be an {kind.__name__}, got {got}",
            "length": lambda: f"{what}: item {path} should have {count} items, got {length}: {listed}",
            "missing": lambda: f"{what}: item {path}: missing keys {missing}",
            "extra": lambda: f"{what}: item {path}: unexpected keys {extra}",
            "keys": lambda: f"{what}: item {path}: missing keys {missing}; unexpected keys {extra}",
            "value": lambda: f"{what}: item {path} should be {wanted}, got {got}",
            "text": lambda: f"{what}: item {path} should be …{wanted}… at character {at}, got …{got}…"}
    whole = {
        "none": lambda: f"{what} should be {expected}, got {actual}: item {path} should be None, got {got}",
        "a": lambda: f"{what} should be {expected}, got {actual}: item {path} should be a {kind.__name__}, got {got}",
        "an": lambda: f"{what} should be {expected}, got {actual}: item {path} should be an {kind.__name__}, got {got}",
        "length": lambda: (f"{what} should be {expected}, got {actual}: "
                           f"item {path} should have {count} items, got {length}: {listed}"),
        "missing": lambda: f"{what} should be {expected}, got {actual}: item {path}: missing keys {missing}",
        "extra": lambda: f"{what} should be {expected}, got {actual}: item {path}: unexpected keys {extra}",
        "keys": lambda: (f"{what} should be {expected}, got {actual}: "
                         f"item {path}: missing keys {missing}; unexpected keys {extra}"),
        "value": lambda: f"{what} should be {expected}, got {actual}: item {path} should be {wanted}, got {got}",
        "text": lambda: (f"{what} should be {expected}, got {actual}: "
                         f"item {path} should be …{wanted}… at character {at}, got …{got}…")}
    return {"top": top, "item": item, "whole": whole}[where][shape]()


def mismatch(actual, expected, what: str) -> str | None:
    """What `equal` says when `actual` is not `expected` (None when it is): the first wrong type,
    length or key, else the first part that differs, named by its path after `what`; the two whole
    values come first only when they are short; of two long texts, where they part."""
    found = shape_error(actual, expected)
    if found is None:
        if actual == expected:
            return None
        difference = first_difference(actual, expected)
        if difference is None:  # no plain part differs (a value of another type): the whole
            return _said("value", "top", what, {"wanted": short(expected), "got": short(actual)})
        path, got, wanted = difference
        if type(got) is str and type(wanted) is str and max(len(got), len(wanted)) > 80:
            found = path, "text", texts_part(got, wanted)
        else:
            found = path, "value", {"wanted": short(wanted, 120), "got": short(got, 120)}
    path, shape, values = found
    if not path:
        return _said(shape, "top", what, values)
    wholes = {"expected": short(expected), "actual": short(actual)}
    fits = len(_said("value", "top", what, {"wanted": wholes["expected"], "got": wholes["actual"]})) <= WHOLE
    return _said(shape, "whole" if fits else "item", what, {**values, **wholes, "path": path})
