"""A copy of a call's argument part, to tell later whether it changed (endpoint.py `_states`).

After every call, each side tells the other which argument parts of the test's last 32 calls it
changed in place. Encoding every part again after every call to see whether it changed cost most
of a many-call test's time; comparing it with a copy made when it was last encoded (`==`, in C)
costs little, and only a part that differs is encoded again.
"""

from __future__ import annotations

from workbook.link import codec

MAX_DEPTH = 40
PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def shadow(value, depth: int = 0):
    """A copy of `value` to compare it with later (`==`): lists, dicts, sets and tuples copied all
    the way down, plain values (text, numbers, bytes, None) themselves, and anything else (a record,
    a handle, a model) `object()`, equal to nothing: a part that holds one is always encoded."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return object()
    if kind is list or kind is tuple:
        return kind(shadow(v, depth + 1) for v in value)
    if kind is dict:
        return {k: shadow(v, depth + 1) for k, v in value.items()}
    if kind is set:
        return set(value)
    if codec.is_record(value) or kind not in PLAIN:
        return object()
    return value

