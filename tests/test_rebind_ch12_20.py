"""A notebook cannot change what a test expects by rebinding a name (issue 24, chapters 12, 13, 15, 20).

A test cell runs in the judge, and a name it does not define is looked up in the student's
kernel. So a test that compared what the student's code sent with the kernel's `ROUTER_PROMPT`
could be passed by a notebook that rebinds `ROUTER_PROMPT` in a later cell: the solution then
sends the rebound text and the test expects it. The test cells now hold their own copies
(`#@include` of the chapter's own definition, or the workbook's constant), so such a notebook
loses the points of the test that checks the name.

One name per chapter: the solved notebook plus one student cell, before the exercise's tests, that
appends a sentence to a given prompt (tests/rebind_cases.py). Graded with the gates, by the
grader's judge.
"""

from __future__ import annotations

import pytest

from tests import gates
from tests.rebind_cases import REBINDS


@pytest.mark.parametrize("chapter", list(REBINDS))
def test_a_rebound_name_does_not_change_what_a_test_expects(graded, chapter):
    code, _, failing = REBINDS[chapter]
    record = gates.record_of(graded, chapter, "attack", f"rebind_{chapter[:2]}")
    assert record["status"] == "ok", f"{chapter} was not graded: {record['status']} {record['events']}"
    for grade_id in failing:
        test = record["tests"][grade_id]
        assert test["score"] == 0, (
            f"{chapter}: after `{code}` the solution sends the rebound text, and {grade_id} still gave "
            f"{test['score']}/{test['max']}: the test reads the expected value from the student's kernel")
    exercise = record["tests"][failing[0]]["exercise"]
    others = {k: v for k, v in record["exercises"].items() if k != exercise}
    assert all(v["score"] == v["max"] for v in others.values()), (
        f"{chapter}: the rebinding should cost only {exercise}'s points; exercises: {record['exercises']}")
