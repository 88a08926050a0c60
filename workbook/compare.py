"""What `checks.equal` says when two values differ: the first wrong type, length, key or value.

    mismatch(("tool", "x", []), ("tool", "x", {}), "r")
        # "r should be ('tool', 'x', {}), got ('tool', 'x', []): item [2] should be a dict, got list"
    mismatch(messages, expected, "messages")   # long values: only the part that differs
        # "messages: item [2]['content'] should be 'refunded', got 'refund'"

Plain data only (`PLAIN`): a value of another type is compared with `==` as a whole, so an object
whose `__eq__` always says True is stopped by the type check before any `==` runs on it.
"""

from __future__ import annotations

PLAIN = (type(None), bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset)
WHOLE = 160  # a message quotes both whole values up to this length, else only the part that differs
_AROUND = 30  # characters shown either side of where two long texts part


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


def shape_error(actual, expected, path: str = "") -> tuple[str, str] | None:
    """Where (a path like "[0]['k']", "" for the whole) and why `actual` does not have the plain
    types, lengths and keys of `expected`, or None."""
    if type(expected) not in PLAIN:
        return None  # not plain data: only == applies
    if type(actual) is not type(expected):  # also stops objects whose __eq__ always says True
        got = "None" if actual is None else f"{type(actual).__name__} {short(actual, 80)}"
        kind = "None" if expected is None else with_article(type(expected).__name__)
        return path, f"should be {kind}, got {got}"
    if isinstance(expected, (tuple, list)):
        if len(actual) != len(expected):
            return path, f"should have {len(expected)} items, got {len(actual)}: {short(actual, 120)}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            if found := shape_error(a, e, f"{path}[{i}]"):
                return found
    if isinstance(expected, dict):
        if set(actual) != set(expected):
            missing, extra = set(expected) - set(actual), set(actual) - set(expected)
            parts = [f"missing keys {', '.join(sorted(map(repr, missing)))}" if missing else "",
                     f"unexpected keys {', '.join(sorted(map(repr, extra)))}" if extra else ""]
            return path, ": " + "; ".join(p for p in parts if p)
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


def texts_part(actual: str, expected: str) -> str:
    """Where two texts part, with a little of each either side: for texts too long to read whole."""
    at = next((i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e), min(len(actual), len(expected)))
    start = max(at - _AROUND, 0)
    return (f"should be …{expected[start:at + _AROUND]!r}… at character {at}, "
            f"got …{actual[start:at + _AROUND]!r}…")


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
            return f"{what} should be {short(expected)}, got {short(actual)}"
        path, got, wanted = difference
        if type(got) is str and type(wanted) is str and max(len(got), len(wanted)) > 80:
            found = path, texts_part(got, wanted)
        else:
            found = path, f"should be {short(wanted, 120)}, got {short(got, 120)}"
    path, detail = found
    whole = f"{what} should be {short(expected)}, got {short(actual)}"
    space = "" if detail.startswith(":") else " "
    if not path:
        return f"{what}{space}{detail}"
    located = f"item {path}{space}{detail}"
    return f"{whole}: {located}" if len(whole) <= WHOLE else f"{what}: {located}"
