"""Chapter 21's test cells compute what they expect with their own code (issue 24): a notebook
that rebinds a name the chapter defines (`json`, the given `to_messages` or `chained_agent`) no
longer changes its grade. Before, the judge reached those names in the kernel: a rebound
`chained_agent` that ignored its `build` gave a wrong `next_request` full marks.

Graded by the real pipeline (the judge, bubblewrap where the machine has it) on a copy of the
chapter; the static test says the same for every test cell of the chapter at once.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import io
import shutil

import pytest

from autograder import cohort, notebooks, results, variants
from autograder.course import REPO, Course
from autograder.sandbox import bwrap_problem
from autograder.settings import Limits
from tests import cell_deps

pytestmark = pytest.mark.slow
CHAPTER = "21_responses_api"
LIMITS = Limits(cell_timeout=60, notebook_timeout=600, sandbox="bwrap" if bwrap_problem() is None else "none")

BREAK_JSON = '''import types
json = types.SimpleNamespace(dumps=lambda *a, **k: "{}", loads=lambda *a, **k: {})'''
RIGHT_JSON = "import json"
BREAK_TO_MESSAGES = "_given_to_messages, to_messages = to_messages, lambda items: []"
RIGHT_TO_MESSAGES = "to_messages = _given_to_messages"
BREAK_CHAINED = '''_given_chained = chained_agent
def chained_agent(*args, **kwargs):
    raise RuntimeError("rebound by the notebook")'''
RIGHT_CHAINED = "chained_agent = _given_chained"
# The harness a cheat would rebind: the given loop, with the right next request whatever `build` is.
CHEAT_CHAINED = '''_given_chained = chained_agent
def _right_request(previous, outputs, model, tools, instructions):
    return {"model": model, "tools": tools, "instructions": instructions,
            "previous_response_id": previous.id, "input": list(outputs)}
def chained_agent(client, model, prompt, tools, impl, instructions, build, max_rounds=4):
    return _given_chained(client, model, prompt, tools, impl, instructions, _right_request, max_rounds)'''


def around(nb, before: str, after: str, broken: str, restored: str):
    """`nb` with `broken` run just before test cell `before` and `restored` just before `after`:
    only the test cells between see the rebound name (the answers themselves never read it)."""
    return variants.insert(variants.insert(nb, broken, before=before), restored, before=after)


def rebinds_everything(course: Course):
    nb = variants.solved(course, CHAPTER)
    nb = around(nb, "trim_memory_tests", "trim_memory_hidden_tests", BREAK_JSON, RIGHT_JSON)
    nb = around(nb, "next_request_tests", "measure", BREAK_CHAINED, RIGHT_CHAINED)
    return around(nb, "to_items_tests", "to_items_hidden_tests", BREAK_TO_MESSAGES, RIGHT_TO_MESSAGES)


def cheats_with_a_harness(course: Course):
    """A next_request that sends the history again (a 400 on a chain), behind a rebound harness."""
    nb = variants.mutant(course, CHAPTER, "next_request-history-resent")
    return variants.insert(nb, CHEAT_CHAINED, before="next_request_tests")


COHORT = {"rebinds": rebinds_everything, "cheat": cheats_with_a_harness}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("rebind-course")
    for folder in ("solutions", "chapters"):
        shutil.copytree(REPO / folder / CHAPTER, root / folder / CHAPTER)
    course = dataclasses.replace(Course(root=root), mutants=REPO / "autograder" / "mutants").with_workspace(
        root / "work")
    for student, make in COHORT.items():
        variants.save(make(course), course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb")
    records = cohort.grade(course, workers=2, limits=LIMITS, out=io.StringIO())
    return {r["student"]: r for r in records}


def test_rebinding_the_chapters_names_changes_no_test(graded):
    r = graded["rebinds"]
    lost = {g: t for g, t in r["tests"].items() if t["score"] < t["max"]}
    assert r["status"] == "ok" and not lost, f"a rebound name changed these tests: {lost}"


def test_a_rebound_harness_does_not_save_a_wrong_next_request(graded):
    r = graded["cheat"]
    ex = r["exercises"]
    assert ex["next_request"]["score"] == 0, f"next_request scored {ex['next_request']} behind a rebound chained_agent"
    errors = [r["tests"][g].get("error", "") for g in ("next_request_tests", "next_request_hidden_tests")]
    assert all("Duplicate item found with id" in e for e in errors), errors  # the mistake's own 400
    assert all(e["score"] == e["max"] for name, e in ex.items() if name != "next_request"), ex


def test_no_test_cell_reads_a_name_of_the_notebook_but_the_answers():
    nb = notebooks.read(REPO / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    answers = set(variants.answer_ids(nb))
    cells = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells
             if notebooks.nbmeta(c).get("grade_id") in {t["grade_id"] for t in results.chapter_tests(nb)}}
    read_from_kernel = {}
    for grade_id, source in cells.items():
        tree = ast.parse(source)
        now, later = cell_deps.reads(tree)
        own = set().union(*(cell_deps.binds(st) for st in tree.body))
        free = (now | later) - own - set(dir(builtins)) - answers
        if free:
            read_from_kernel[grade_id] = sorted(free)
    assert not read_from_kernel, f"test cells that read the notebook's names: {read_from_kernel}"
