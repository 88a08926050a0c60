"""Chapter 21's test cells compute what they expect with their own code (issue 24): a notebook
that rebinds a name the chapter defines (`json`, the given `to_messages` or `chained_agent`) no
longer changes its grade. Before, the judge reached those names in the kernel: a rebound
`chained_agent` that ignored its `build` gave a wrong `next_request` full marks.

Graded with the gates, by the grader's judge (the notebooks: tests/rebind_cases.py); the static
test says the same for every test cell of the chapter at once.
"""

from __future__ import annotations

import ast
import builtins

from autograder import notebooks
from autograder.course import REPO
from autograder.gates import variants
from tests import cell_deps, gates

CHAPTER = "21_responses_api"


def test_rebinding_the_chapters_names_changes_no_test(graded):
    r = gates.record_of(graded, CHAPTER, "attack", "rebind_21_everything")
    lost = {g: t for g, t in r["tests"].items() if t["score"] < t["max"]}
    assert r["status"] == "ok" and not lost, f"a rebound name changed these tests: {lost}"


def test_a_rebound_harness_does_not_save_a_wrong_next_request(graded):
    r = gates.record_of(graded, CHAPTER, "attack", "rebind_21_harness")
    ex = r["exercises"]
    assert ex["next_request"]["score"] == 0, f"next_request scored {ex['next_request']} behind a rebound chained_agent"
    visible, hidden = (r["tests"][g].get("error") or "" for g in ("next_request_tests", "next_request_hidden_tests"))
    assert "Duplicate item found with id" in visible, visible  # the mistake's own 400
    # a hidden test quotes no message of what the notebook raised (checks.said), only its class
    assert "raised" in hidden and "Duplicate item" not in hidden, hidden
    assert all(e["score"] == e["max"] for name, e in ex.items() if name != "next_request"), ex


def test_no_test_cell_reads_a_name_of_the_notebook_but_the_answers():
    nb = notebooks.read(REPO / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    answers = set(variants.answer_ids(nb))
    cells = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells
             if notebooks.nbmeta(c).get("grade_id") in {t["grade_id"] for t in notebooks.chapter_tests(nb)}}
    read_from_kernel = {}
    for grade_id, source in cells.items():
        tree = ast.parse(source)
        now, later = cell_deps.reads(tree)
        own = set().union(*(cell_deps.binds(st) for st in tree.body))
        free = (now | later) - own - set(dir(builtins)) - answers
        if free:
            read_from_kernel[grade_id] = sorted(free)
    assert not read_from_kernel, f"test cells that read the notebook's names: {read_from_kernel}"
