"""The judge makes no class from a name the kernel sends (workbook/link/kernel_objects.py,
workbook/link/exc_classes.py; issue 44). The red team's kernel answered a lookup with a named tuple
of 400,000 fields, and new ones forever: the judge once cached a class for each, 18-67 MB a CPU
second. Now a dataclass instance or a pydantic model the test has no class for is a `Record` (its
class's name and fields, as data), a named tuple is a tuple, and a notebook's own exception class
is the stand-in of its built-in base, its name kept on the error as data."""

from __future__ import annotations

import dataclasses

import pytest

from workbook import checks
from workbook.link import codec
from workbook.link.exc_classes import stand_in
from workbook.link.judge_end import JudgeEnd
from workbook.link.kernel_objects import Record

MANY = [f"f{i}" for i in range(400_000)]


def test_the_named_tuple_of_the_attack_is_a_tuple_within_the_codec_bounds():
    got = JudgeEnd().decode({"$nt": "m1:T1", "n": MANY, "v": [0] * len(MANY)})
    assert type(got) is tuple and len(got) == len(MANY), "data: no class of 400,000 fields"
    with pytest.raises(codec.LinkError):
        JudgeEnd().decode({"$nt": "m1:T1", "n": [], "v": [0] * (codec.MAX_NODES + 1)})


def test_records_of_a_thousand_names_are_data_of_one_class():
    end = JudgeEnd()
    got = [end.decode({"$rec": f"__main__:T{k}", "f": {"a": k, "b": [k]}}) for k in range(1_000)]
    assert {type(r) for r in got} == {Record}, "no class per name"
    assert (got[7].a, got[7].b, checks.kind(got[7]), repr(got[7])) == (7, [7], "T7", "T7(a=7, b=[7])")
    assert got[7] == end.decode({"$rec": "__main__:T7", "f": {"a": 7, "b": [7]}}) and got[7] != got[8]
    with pytest.raises(TypeError, match="set nothing"):
        got[7].a = 1
    with pytest.raises(AttributeError, match="no field 'c'"):
        got[7].c  # noqa: B018 - the read is the test
    odd = end.decode({"$rec": "__main__:Odd", "f": {"data": 1, "record_kind": 2, "model_dump": 3}})
    assert (odd.data, odd.record_kind, odd.model_dump, checks.kind(odd)) == (1, 2, 3, "Odd"), "fields win"
    model = end.decode({"$pyd": "__main__:Plan", "v": {"steps": ["a"]}})
    assert type(model) is Record and model.steps == ["a"] and model.model_dump() == {"steps": ["a"]}
    assert checks.kind(model) == "Plan"
    assert end.decode({"$nt": "__main__:Pair", "n": ["x", "y"], "v": [1, 2]}) == (1, 2)


def test_a_record_goes_back_to_the_notebook_as_its_own():
    end = JudgeEnd()
    record = end.decode({"$rec": "__main__:AgentResult", "f": {"answer": "ok", "status": "done", "steps": 1}})
    assert end.encode(record) == {"$rec": "__main__:AgentResult", "f": {"answer": "ok", "status": "done", "steps": 1}}
    model = end.decode({"$pyd": "__main__:Plan", "v": {"steps": ["a"]}})
    assert end.encode(model) == {"$pyd": "__main__:Plan", "v": {"steps": ["a"]}}


def test_kind_reads_a_class_name_in_a_notebook_too():
    @dataclasses.dataclass
    class AgentResult:
        answer: str

    assert checks.kind(AgentResult("x")) == "AgentResult"
    assert checks.kind(AgentResult) is None and checks.kind({"answer": "x"}) is None


def test_a_notebooks_exception_classes_are_one_stand_in_per_built_in_base():
    end = JudgeEnd()
    errors = [end.make_exception({"$e": f"__main__:Err{k}", "msg": "no", "mro": [f"Err{k}", "ValueError",
                                                                                "Exception"]}) for k in range(1_000)]
    assert {type(e) for e in errors} == {stand_in("x:y", ["y", "ValueError"])}, "one class, made by the judge"
    assert isinstance(errors[0], ValueError) and type(errors[0]).__name__ == "ValueError"
    assert errors[3].notebook_class == "Err3", "the notebook's name is data on the error"
    other = end.make_exception({"$e": "__main__:Odd", "msg": "no", "mro": ["Odd", "Exception"]})
    assert type(other) is not type(errors[0]) and type(other).__bases__ == (Exception,)


def test_a_sets_parts_count_against_the_values_bound():
    """Red team 13: `set(range(600_000))` crossed although a list of as many parts is refused."""
    with pytest.raises(codec.LinkError, match="more than"):
        JudgeEnd().decode({"$set": list(range(codec.MAX_NODES + 1))})
    with pytest.raises(codec.LinkError, match="more than"):
        JudgeEnd().encode(set(range(codec.MAX_NODES + 1)))
    with pytest.raises(codec.LinkError, match="cannot be in a set"):
        JudgeEnd().decode({"$set": [[1, 2]]})
    assert JudgeEnd().decode({"$set": [1, 2]}) == {1, 2}
