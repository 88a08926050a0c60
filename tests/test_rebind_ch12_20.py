"""A notebook cannot change what a test expects by rebinding a name (issue 24, chapters 12, 13, 15, 20).

A test cell runs in the judge, and a name it does not define is looked up in the student's
kernel. So a test that compared what the student's code sent with the kernel's `ROUTER_PROMPT`
could be passed by a notebook that rebinds `ROUTER_PROMPT` in a later cell: the solution then
sends the rebound text and the test expects it. The test cells now hold their own copies
(`#@include` of the chapter's own definition, or the workbook's constant), so such a notebook
loses the points of the test that checks the name.

One name per chapter: the solved notebook plus one student cell, before the exercise's tests, that
appends a sentence to a given prompt. Graded by the real pipeline, sandboxed and judged.
"""

from __future__ import annotations

import pytest

from autograder import variants
from tests import gates

# chapter: (the rebinding cell, the test cell it is inserted before, the test cells that must fail)
REBINDS = {
    "12_workflow_or_agent": ('ROUTER_PROMPT = ROUTER_PROMPT + "\\nAnswer fast."', "route_tests",
                             ["route_hidden_tests"]),
    "13_react_and_plan_execute": ('PLANNER_PROMPT = PLANNER_PROMPT + " Be brief."', "plan_and_execute_tests",
                                  ["plan_and_execute_hidden_tests"]),
    "15_why_the_bill_grows": ('ROUTER = ROUTER + " Be brief."', "pick_model_tests", ["pick_model_tests"]),
    "20_evaluating_an_agent": ('JUDGE_SYSTEM = JUDGE_SYSTEM + " Be fair."', "judge_pair_tests",
                               ["judge_pair_hidden_tests"]),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    def make(gate):
        return {("rebinds", chapter): variants.insert(variants.solved(gate, chapter), code, before=before)
                for chapter, (code, before, _) in REBINDS.items()}

    return {chapter: record for (_, chapter), record in
            gates.grade_made(tmp_path_factory.mktemp("rebind") / "course", make).items()}


@pytest.mark.slow
@pytest.mark.parametrize("chapter", list(REBINDS))
def test_a_rebound_name_does_not_change_what_a_test_expects(graded, chapter):
    code, _, failing = REBINDS[chapter]
    if chapter not in graded:
        pytest.skip(f"{chapter} is not gated here (GATES_ONLY)")
    record = graded[chapter]
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
