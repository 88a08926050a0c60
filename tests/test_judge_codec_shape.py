"""The codec's shape (workbook/link/codec.py): trusted code of the judge, so no function in it is
above radon grade C (issue 44 item 9), and the dispatch tables that keep it so say the same as
the wire forms. Also the numbering the tables must not change: every list, tuple, dict, record,
named tuple and pydantic model each time it is met, in that order, each before its own parts."""

from __future__ import annotations

import ast
import collections
import datetime
import pathlib

import pytest

from workbook.link import codec

GRADE_C = 20  # radon: A 1-5, B 6-10, C 11-20, D 21-30, ...


def complexity(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Cyclomatic complexity as radon counts it (its ComplexityVisitor), so the check needs no
    radon installed; a nested function's branches count for the one around it too (never less)."""
    n = 1
    for node in (x for stmt in fn.body for x in ast.walk(stmt)):
        if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
            n += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            n += 1 + bool(node.orelse)
        elif isinstance(node, ast.Try):
            n += len(node.handlers) + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            n += 1 + len(node.ifs)
        elif isinstance(node, ast.Match):
            n += len(node.cases)
    return n


def test_no_function_in_the_codec_is_above_grade_c():
    tree = ast.parse(pathlib.Path(codec.__file__).read_text())
    found = {f.name: complexity(f) for f in ast.walk(tree)
             if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert found["__call__"] >= 1 and len(found) > 20  # the walk saw the methods too
    assert {name: n for name, n in found.items() if n > GRADE_C} == {}


def test_the_tables_cover_every_tag():
    assert set(codec.Decoder.BY_TAG) == codec.TAGS
    assert set(codec.Encoder.BY_TYPE) >= {float, bytes, list, tuple, set, dict, datetime.date}


Point = collections.namedtuple("Point", "x y")


def handles(obj):
    return {"$h": 1, "side": "k", "kind": type(obj).__name__}


def make(tag, node, inner):
    assert tag == "$nt"
    return Point(*[inner(v) for v in node["v"]])


def test_values_are_copies_with_no_identity_on_the_wire():
    a = [1]
    value = [a, (a, Point(a, {"k": a})), {1: a}]
    wire = codec.encode(value, handles)
    assert "$arg" not in str(wire)  # nothing says "the same object as"
    back = codec.decode(wire, make)
    assert back == [[1], ([1], Point([1], {"k": [1]})), {1: [1]}]
    assert len({id(back[0]), id(back[1][0]), id(back[1][1].x), id(back[2][1])}) == 4
    with pytest.raises(codec.LinkError, match="unknown tag"):
        codec.decode({"$arg": 1}, make)


def test_a_simple_namespace_crosses_as_data():
    import types
    wire = codec.encode(types.SimpleNamespace(name="x", n=[1, (2,)]), handles)
    assert wire == {"$ns": {"name": "x", "n": [1, {"$t": [2]}]}}
    assert codec.decode(wire, make) == types.SimpleNamespace(name="x", n=[1, (2,)])
    with pytest.raises(codec.LinkError, match="not names"):
        codec.decode({"$ns": {"a b": 1}}, make)


def test_the_wire_forms_round_trip():
    value = {"s": "x", "f": float("inf"), "b": b"\x00", "p": pathlib.PurePosixPath("/a"),
             "dt": datetime.datetime(2024, 1, 2, 3, 4), "d": datetime.date(2024, 1, 2),
             "t": datetime.time(5), "td": datetime.timedelta(seconds=90), "set": {(1, 2)},
             "types": [int, type(None), KeyError], "$schema": {1: None}}
    wire = codec.encode(value, handles)
    assert wire["$x"][2] == ["b", {"$b": "AA=="}] and wire["$x"][-1] == ["$schema", {"$d": [[1, None]]}]
    back = codec.decode(wire, make)
    assert back == {**value, "p": pathlib.Path("/a")}


def test_an_int_is_bounded_by_its_digits():
    assert codec.decode(10 ** codec.MAX_INT_DIGITS - 1, make) == 10 ** codec.MAX_INT_DIGITS - 1
    with pytest.raises(codec.LinkError, match="an integer too large to read"):
        codec.decode(-(10 ** codec.MAX_INT_DIGITS), make)


class Unhashable(type):
    """A metaclass without a hash: the encoder's table lookup must not ask for one."""

    def __eq__(cls, other):
        return NotImplemented

    __hash__ = None


class Odd(metaclass=Unhashable):
    pass


def test_an_object_of_a_class_that_cannot_be_hashed_is_a_handle():
    assert codec.encode(Odd(), handles) == {"$h": 1, "side": "k", "kind": "Odd"}
