"""The fast runner on a tiny chapter: forks at the first differing cell, test cells judged by the
grader's judge, scores by the grader's rule, and ends a cell by CPU time, a dead process as
dead_kernel, stderr as an event only."""

from tests import fast_results, fast_runner

TESTS = [{"grade_id": "a_tests", "points": 1.0, "exercise": "a"},
         {"grade_id": "b_tests", "points": 2.0, "exercise": "b"}]


def _cell(index, source, grade_id=None):
    return {"index": index, "source": source, "grade_id": grade_id, "graded": grade_id is not None
            and grade_id.endswith("_tests"), "hidden": False}


BASE = [_cell(0, "import sys\nseen = []"), _cell(1, "def a():\n    seen.append('a')\n    return 1", "a"),
        _cell(2, "assert a() == 1", "a_tests"), _cell(3, "def b():\n    print('note', file=sys.stderr)\n"
                                                          "    return 2", "b"),
        _cell(4, "assert b() == 2\ntry:\n    seen  # given code: not an exercise name, so never the notebook's\n"
                 "except NameError:\n    pass\nelse:\n    raise AssertionError('a given name reached the kernel')",
              "b_tests")]
EXERCISES = ["a", "b"]


def _with(index, source):
    cells = [dict(c) for c in BASE]
    cells[index]["source"] = source
    return {"cells": cells, "cell_limit": 2, "notebook_limit": 20}


def test_variants_score_as_a_full_run_would():
    variants = {"same": _with(0, BASE[0]["source"]), "wrong_b": _with(3, "def b():\n    return 3"),
                "loops": _with(3, "while True:\n    pass"),
                "loops_when_tested": _with(3, "def b():\n    while True:\n        pass"), "dies": _with(3, "import os\nos._exit(3)"),
                "wrong_a": _with(1, "def a():\n    return 0")}
    job = {"chapter": "00_tiny", "base_limit": 2, "base": BASE, "variants": variants,
           "exercises": EXERCISES}
    lines = fast_results.grade({"00_tiny": job}, workers=1)["00_tiny"]
    found = {o["student"]: o for o in lines if "student" in o}
    rec = {s: fast_results.record(s, "00_tiny", TESTS, variants[s]["cells"], found[s], 0.0) for s in variants}
    scores = {s: {t: v["score"] for t, v in r["tests"].items()} for s, r in rec.items()}
    assert scores == {"same": {"a_tests": 1.0, "b_tests": 2.0}, "wrong_b": {"a_tests": 1.0, "b_tests": 0.0},
                      "loops": {"a_tests": 1.0, "b_tests": 0.0},
                      "loops_when_tested": {"a_tests": 1.0, "b_tests": 0.0}, "dies": {"a_tests": 1.0, "b_tests": 0.0},
                      "wrong_a": {"a_tests": 0.0, "b_tests": 2.0}}, scores
    assert found["wrong_b"]["fork"] == 3 and found["wrong_a"]["fork"] == 1
    assert rec["same"]["status"] == "ok" and [e["kind"] for e in rec["same"]["events"]] == ["stderr"]
    assert rec["loops"]["status"] == "timeout" and "CPU time" in str(rec["loops"]["events"])
    # the judge ends a test over its CPU time (the kernel's and its own), as the grader's does
    assert rec["loops_when_tested"]["status"] == "timeout", rec["loops_when_tested"]
    assert "2 s of CPU time" in rec["loops_when_tested"]["tests"]["b_tests"]["error"]
    assert rec["dies"]["status"] == "dead_kernel" and "not run" in rec["dies"]["tests"]["b_tests"]["error"]
    assert "AssertionError" in rec["wrong_a"]["tests"]["a_tests"]["error"]
    base = next(o for o in lines if o.get("base"))
    assert [s["index"] for s in base["steps"]] == [0, 1, 2, 3, 4], "the solved notebook's own steps come last"


def test_a_skipped_test_cell_is_scored_with_the_solved_notebooks_verdict():
    """cell_deps: a variant's clean test cells are not run; they take the solution's steps."""
    wrong_b = _with(3, "def b():\n    return 3")
    wrong_b["skip"] = [4]  # (a wrong claim, so the test can tell a skip from a run)
    job = {"chapter": "00_tiny", "base_limit": 2, "base": BASE, "variants": {"wrong_b": wrong_b},
           "exercises": EXERCISES}
    lines = fast_results.grade({"00_tiny": job}, workers=1)["00_tiny"]
    outcome = next(o for o in lines if o.get("student") == "wrong_b")
    assert [s.get("skipped", False) for s in outcome["steps"]] == [False, False, False, False, True]
    filled = fast_results.fill_skipped(outcome, next(o for o in lines if o.get("base"))["steps"])
    rec = fast_results.record("wrong_b", "00_tiny", TESTS, wrong_b["cells"], filled, 0.0)
    assert rec["tests"]["b_tests"]["score"] == 2.0, "the skipped cell took the solution's verdict"


def test_a_scored_variant_stops_at_the_last_test_cell():
    """What follows the last test cell (a quiz, a live cell) cannot change a score: mutants skip it."""
    tail = [*BASE, _cell(5, "print('the quiz')"), _cell(6, "raise SystemExit")]
    assert [c["index"] for c in fast_runner.through_last_test(tail)] == [0, 1, 2, 3, 4]
    assert fast_runner.through_last_test(BASE[:2]) == BASE[:2], "no test cell: every cell runs"
