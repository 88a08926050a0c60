"""The judge-side classes made for the notebook's named tuples, dataclasses and pydantic models
(autograder/judge/kernel_objects.py) are bounded: fields per class, classes per judge. The red
team's kernel answered a lookup with a named tuple of 400,000 fields (and new ones forever): the
judge cached one class each for good, 18-67 MB a CPU second; `make_dataclass` with 50,000 fields
took 52 s of CPU inside one call. Both are refused now with a LinkError saying which bound."""

from __future__ import annotations

import pytest

from autograder.judge import kernel_objects
from autograder.judge.remote import JudgeEnd
from workbook.link import codec

MANY = [f"f{i}" for i in range(400_000)]


@pytest.fixture
def empty_caches(monkeypatch):
    for cache in ("_records", "_tuples", "_models"):
        monkeypatch.setattr(kernel_objects, cache, {})


@pytest.mark.parametrize("make", [kernel_objects.named_tuple, kernel_objects.record_type,
                                  kernel_objects.pydantic_type])
def test_a_class_of_too_many_fields_is_refused(empty_caches, make):
    with pytest.raises(codec.LinkError, match=f"400000 fields: the judge makes classes of at most "
                                              f"{kernel_objects.MAX_FIELDS}"):
        make("m1:T1", MANY)
    assert make("m1:T1", MANY[:kernel_objects.MAX_FIELDS]).__name__ == "T1"  # the bound itself is fine


def test_the_named_tuple_of_the_attack_is_refused_through_the_link(empty_caches):
    node = {"$nt": "m1:T1", "n": MANY, "v": [0] * len(MANY)}
    with pytest.raises(codec.LinkError, match="400000 fields"):
        JudgeEnd().decode(node)
    assert kernel_objects._tuples == {}


@pytest.mark.parametrize(("make", "cache"), [(kernel_objects.named_tuple, "_tuples"),
                                             (kernel_objects.record_type, "_records"),
                                             (kernel_objects.pydantic_type, "_models")])
def test_each_cache_holds_a_bounded_number_of_classes(empty_caches, monkeypatch, make, cache):
    monkeypatch.setattr(kernel_objects, "MAX_CLASSES", 5)
    made = [make(f"m:T{k}", ["a", "b"]) for k in range(5)]
    assert make("m:T0", ["a", "b"]) is made[0], "a class already made is the same class"
    with pytest.raises(codec.LinkError, match="more than 5"):
        make("m:T5", ["a", "b"])
    assert len(getattr(kernel_objects, cache)) == 5
