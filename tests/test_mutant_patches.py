"""Mutants are patches against their solution cell (autograder/mutants/<chapter>/<exercise>-<mistake>.patch).

Every patch applies strictly to today's solution, and the cell it makes compiles and binds every
top-level name the solution's cell binds: a mutant must lose its points by an assertion, never by
a SyntaxError or a NameError that would make the mutant gates pass without proving anything.
Static and fast: nothing is graded here.
"""

from __future__ import annotations

import functools
import re

import pytest

from autograder.__main__ import main
from autograder.course import REPO, AutograderError, Course
from autograder.gates import mutant_diff, variants

PILOT = Course(root=REPO / "tests" / "pilot")
MUTANTS = [(course, chapter, name) for course in (Course(), PILOT) for chapter in course.chapters()
           for name in variants.mutants(course, chapter)]


@functools.cache
def answers(course: Course, chapter: str) -> dict[str, str]:
    return variants.solution_answers(course, chapter)


def test_every_chapter_has_mutants():
    chapters = {(c.root, ch) for c in (Course(), PILOT) for ch in c.chapters()}
    assert chapters <= {(c.root, ch) for c, ch, _ in MUTANTS}, "a chapter has no mutant patches"


@pytest.mark.parametrize(("course", "chapter", "name"), MUTANTS, ids=[f"{ch}/{n}" for _, ch, n in MUTANTS])
def test_mutant_applies_compiles_and_keeps_the_solutions_names(course, chapter, name):
    source = variants.mutant_source(course, chapter, name, answers(course, chapter))  # raises if stale
    exercise = variants.MUTANT_NAME.match(f"{name}.patch")["exercise"]
    found = mutant_diff.problems(answers(course, chapter)[exercise], source, f"mutant {chapter}/{name}")
    assert not found, "; ".join(found) + (f". Edit the cell (`python -m autograder mutant-diff {chapter} "
                                          f"{name}` prints it) and write the patch again")


def test_variants_mutant_swaps_the_patched_cell_into_the_solved_notebook():
    nb = variants.mutant(PILOT, "00_pilot", "add-concatenates")
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in nb.cells}
    assert cells["add"] == variants.mutant_source(PILOT, "00_pilot", "add-concatenates")
    assert cells["add"] != answers(PILOT, "00_pilot")["add"]
    assert cells["parse_reply"] == answers(PILOT, "00_pilot")["parse_reply"]


BASE = "def f(x):\n    a = 1\n\n    b = 2\n    c = 3\n    d = 4\n    e = 5\n    return x"


@pytest.mark.parametrize("mutant", [
    BASE.replace("    c = 3\n", "    c = 30\n"),  # one changed line
    BASE.replace("    b = 2\n", ""),  # a line removed
    "import os\n" + BASE,  # added before the first line
    BASE + "\n",  # the last line gains its end of line
    BASE.replace("return x", "return -x"),  # the last line, still without one
    BASE.replace("    a = 1\n", "    a = 10\n").replace("    e = 5\n", "    e = 50\n"),  # two hunks
])
def test_make_then_apply_gives_the_mutant_back(mutant):
    patch = mutant_diff.make_patch(BASE, mutant, "00_pilot", "f-x")
    assert patch.startswith("--- a/00_pilot/f\n+++ b/00_pilot/f-x\n@@ ")
    assert variants.apply_patch(BASE, patch, "00_pilot/f-x") == mutant


def test_a_hunk_that_does_not_apply_names_the_mutant_the_hunk_and_the_line():
    patch = mutant_diff.make_patch(BASE, BASE.replace("    e = 5\n", "    e = 50\n"), "ch", "f-x")
    changed = BASE.replace("    d = 4\n", "    d = 44\n")  # the solution changed under the mutant
    with pytest.raises(AutograderError, match=r"mutant ch/f-x: hunk 1 \(@@ -5,4 \+5,4 @@\) does not "
                                              r"apply: line 6 of the solution's cell is '    d = 44\\n', "
                                              r"the patch expects '    d = 4\\n'"):
        variants.apply_patch(changed, patch, "ch/f-x")


def test_no_offset_and_no_fuzz():
    patch = mutant_diff.make_patch(BASE, BASE.replace("    c = 3\n", "    c = 30\n"), "ch", "f-x")
    with pytest.raises(AutograderError, match=r"hunk 1 \(@@ -3,5 \+3,5 @@\) does not apply: line 3 "):
        variants.apply_patch("# a line more on top\n" + BASE, patch, "ch/f-x")  # GNU patch would shift it
    with pytest.raises(AutograderError, match=r"line 7 of the solution's cell does not exist \(6 lines\)"):
        variants.apply_patch(BASE.split("    e = 5")[0], patch, "ch/f-x")


def test_an_empty_context_line_whose_space_was_trimmed_still_matches_an_empty_line():
    mutant = BASE.replace("    b = 2\n", "    b = 20\n")
    patch = mutant_diff.make_patch(BASE, mutant, "ch", "f-x")
    assert "\n \n" in patch
    assert variants.apply_patch(BASE, patch.replace("\n \n", "\n\n"), "ch/f-x") == mutant
    with pytest.raises(AutograderError, match="line 3 of the solution's cell is '    b = 2"):
        variants.apply_patch(BASE.replace("\n\n", "\n    b = 2\n"), patch, "ch/f-x")


@pytest.mark.parametrize(("patch", "says"), [
    ("def f(x):\n    return x\n", "not a unified diff"),
    ("--- a\n+++ b\n", "not a unified diff"),
    ("--- a\n+++ b\nnot a hunk\n", "patch line 3 should open a hunk"),
    ("--- a\n+++ b\n@@ -1,2 +1,2 @@\n def f(x):\n", "hunk 1 .* is cut short"),
    ("--- a\n+++ b\n@@ -1,2 +1,2 @@\n def f(x):\n*   a = 1\n", "hunk 1 .*: patch line 5 starts with '\\*'"),
    ("--- a\n+++ b\n@@ -2 +2 @@\n-    a = 1\n+    a = 2\n@@ -1 +1 @@\n-def f(x):\n+def g(x):\n",
     "hunk 2 .* overlaps the hunk before it"),
])
def test_a_malformed_patch_is_refused(patch, says):
    with pytest.raises(AutograderError, match=f"mutant ch/f-x: {says}"):
        variants.apply_patch(BASE, patch, "ch/f-x")


WITH_NAMES = "import json\nA = 1\n" + BASE


@pytest.mark.parametrize(("solution", "mutant", "says"), [
    (BASE, BASE, "m is the solution's cell unchanged"),
    (BASE, BASE.replace("def f(x):", "def f(x)"),
     r"m does not compile: .* \(line 1\); it would lose its points by a SyntaxError"),
    (WITH_NAMES, WITH_NAMES.replace("def f(x):", "def g(x):"), "m no longer defines f .* by a NameError"),
    (WITH_NAMES, WITH_NAMES.replace("import json\n", "").replace("A = 1\n", ""), "m no longer defines A, json "),
])
def test_problems_names_a_mutant_that_would_fail_by_an_error(solution, mutant, says):
    found = mutant_diff.problems(solution, mutant, "m")
    assert len(found) == 1 and re.search(says, found[0]), found
    assert mutant_diff.problems(solution, solution.replace("a = 1", "a = 2"), "m") == []


def test_top_level_names_are_functions_classes_assignments_and_imports():
    source = ("import os.path\nfrom json import loads as load\nclass K:\n    z = 1\n"
              "async def g():\n    w = 2\nA, (B, C) = 1, (2, 3)\nD: int = 4\nE = 0\nE += 1\nK.attr = 5\n")
    assert mutant_diff.top_level_names(source) == {"os", "load", "K", "g", "A", "B", "C", "D", "E"}


def test_a_leftover_whole_copy_mutant_is_refused(tmp_path):
    course = Course(root=PILOT.root, mutants=tmp_path)
    (tmp_path / "00_pilot").mkdir()
    (tmp_path / "00_pilot" / "add-concatenates.py").write_text("def add(a, b):\n    return str(a) + str(b)\n")
    with pytest.raises(AutograderError, match=r"add-concatenates\.py: a mutant is a patch named "
                                              r"<exercise>-<mistake>\.patch"):
        variants.mutants(course, "00_pilot")


def test_mutant_diff_prints_the_cell_then_writes_a_patch_that_gives_the_edit_back(tmp_path):
    course = Course(root=PILOT.root, mutants=tmp_path / "mutants")
    [printed] = mutant_diff.mutant_diff(course, "00_pilot", "add-negated", None)
    assert printed + "\n" == answers(PILOT, "00_pilot")["add"]
    edited = tmp_path / "cell.py"
    edited.write_text(printed.replace("return a + b", "return -(a + b)") + "\n")
    assert edited.read_text() != printed + "\n", "the pilot's add cell changed; pick another edit"
    [said] = mutant_diff.mutant_diff(course, "00_pilot", "add-negated", edited)
    assert "wrote" in said and "00_pilot--mutant--add-negated" in said
    assert variants.mutant_source(course, "00_pilot", "add-negated") == edited.read_text()
    [again] = mutant_diff.mutant_diff(course, "00_pilot", "add-negated", None)  # now the mutant's cell
    assert again + "\n" == edited.read_text()


@pytest.mark.parametrize(("name", "cell", "says"), [
    ("add", "x = 1\n", "a mutant is named <exercise>-<mistake>"),
    ("nope-x", "x = 1\n", "00_pilot has no graded exercise 'nope'"),
    ("add-broken", "def add(a, b)\n    return a\n", "does not compile"),
    ("add-renamed", "def plus(a, b):\n    return a - b\n", "no longer defines add"),
])
def test_mutant_diff_refuses_a_mutant_that_proves_nothing(tmp_path, name, cell, says):
    course = Course(root=PILOT.root, mutants=tmp_path / "mutants")
    (tmp_path / "cell.py").write_text(cell)
    with pytest.raises(AutograderError, match=says):
        mutant_diff.mutant_diff(course, "00_pilot", name, tmp_path / "cell.py")
    assert not (tmp_path / "mutants").exists()


def test_the_cli_prints_an_existing_mutants_cell(capsys):
    assert main(["--root", str(PILOT.root), "mutant-diff", "00_pilot", "add-concatenates"]) == 0
    assert capsys.readouterr().out == variants.mutant_source(PILOT, "00_pilot", "add-concatenates")
