"""How the fake model reads a tool result for the fields it needs, the way a model would.

`Conversation.read` (in turns) is the one entry point every scenario uses; this module holds the
rules, pure functions on already-parsed data:

- a JSON object, or a list holding one object, or `key: value` text ("count: 2, total_kzt: 5000");
  an object's "result" / "data" object is read too;
- a field under its own name first, else under a name close to it ("total" or "totalKzt" for
  "total_kzt", "temperature_c" for "temp_c", "state" for "status");
- a number also from text ("5000", "5,000 KZT"); a text field takes a string or a number.

A result the chapters' correct tools return (a JSON object with exactly these names) reads the
same as a plain `dict` look-up, so the tolerance never changes what a correct loop sees.
"""

from __future__ import annotations

import difflib
import math
import re

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
THOUSANDS = re.compile(r"(?<=\d)[,\s\u00a0\u202f](?=\d{3}(?!\d))")
PAIR = re.compile(r"(?<![\w'\"])([A-Za-z_][\w-]{0,40})[ \t]*[:=][ \t]*(.*?)[ \t]*"
                  r"(?=[,;\n][ \t]*[A-Za-z_][\w-]{0,40}[ \t]*[:=]|\n|$)")
TEXT_LIMIT = 20_000  # a model reads the start of a long text for its fields
NAMES_LIMIT = 200  # and does not compare a field's name with thousands of others
KINDS = (int, float, str)
BRIEF = 200  # characters of a result quoted back in a reply or an error message


def brief(text: str) -> str:
    """The start of a long text, to quote it."""
    return text if len(text) <= BRIEF else text[:BRIEF] + "…"


def words(name: str) -> list[str]:
    """A field name as lowercase words: "totalKzt", "total_kzt", "Total KZT" -> ["total", "kzt"]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if w]


def candidates(name: str, names) -> list[str]:
    """The names in `names` a model could take for `name`, best first: itself, the same words
    written another way, ones starting like it (total ~ total_kzt, temperature_c ~ temp_c), then
    near spellings (state ~ status)."""
    exact = [name] if name in names else []
    want = words(name)
    names = [n for n in list(names)[:NAMES_LIMIT] if isinstance(n, str) and n != name and len(n) < 100]
    if not want:
        return exact
    joined = "".join(want)
    ranked = sorted(names, key=lambda n: -difflib.SequenceMatcher(None, "".join(words(n)),
                                                                  joined).ratio())

    def same_start(n: str) -> bool:
        got = words(n)
        return bool(got) and min(len(got[0]), len(want[0])) >= 3 and \
            (got[0].startswith(want[0]) or want[0].startswith(got[0]))

    def near(n: str) -> bool:
        return difflib.SequenceMatcher(None, "".join(words(n)), joined).ratio() >= 0.7

    return (exact + [n for n in ranked if words(n) == want]
            + [n for n in ranked if words(n) != want and same_start(n)]
            + [n for n in ranked if words(n) != want and not same_start(n) and near(n)])


def record(data, text: str) -> dict | None:
    """The fields a result holds: parsed JSON (`data`), else `key: value` pairs of its text."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, dict):
        inner = [v for k, v in data.items() if k in ("result", "data") and isinstance(v, dict)]
        return {**inner[0], **data} if inner else data
    if data is not None and not isinstance(data, str):
        return None
    pairs = PAIR.findall((data if isinstance(data, str) else text)[:TEXT_LIMIT])
    return {k: v for k, v in pairs} or None


def as_number(value):
    """A number as a model reads it: 5000, "5000", "5,000 KZT", "2 rides"; None if there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    found = NUMBER.search(THOUSANDS.sub("", value[:200]))
    if found is None:
        return None
    n = float(found.group())
    return int(n) if n.is_integer() and "." not in found.group() else n


def as_kind(value, kind):
    """`value` as the kind of field asked for (a number, or a short text), or None."""
    if kind is str:
        return value if isinstance(value, str | int | float) and not isinstance(value, bool) else None
    return as_number(value)


def read(data, text: str, kinds: dict) -> dict | None:
    """The result's fields with each asked-for one under its own name, or None if one is missing."""
    for kind in kinds.values():
        if kind not in KINDS:
            raise TypeError(f"read() takes field=int, float or str, got {kind!r}")
    fields = record(data, text)
    if fields is None:
        return None
    out = dict(fields)
    for name, kind in kinds.items():
        values = (as_kind(fields[n], kind) for n in candidates(name, fields))
        value = next((v for v in values if v is not None), None)
        if value is None:
            return None
        out[name] = value
    return out
