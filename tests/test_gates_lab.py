"""Gate: the lab gives every visible test the verdict grading gives. A learner's kernel runs test
cells through the judge's link, in process (workbook/loopback.py); this runs the solution and each
exercise's first mutant with `check` (a kernel, as Run All and Validate run it) and compares each
visible test's PASS or FAIL with the gates' graded record of the same notebook.

A kernel a notebook (about 2.5 s of CPU each, 140 notebooks): `make test-mutants` runs it (CI),
with GATES_LAB=1 and GATES_MUTANTS=first, reading the graded batch `make test` cached.
"""

from __future__ import annotations

import os
import shutil

import pytest

from autograder import notebooks
from autograder.gates import variants
from autograder.pipeline.check import check
from tests import gates

pytestmark = pytest.mark.skipif(os.environ.get("GATES_LAB") != "1",
                                reason="a kernel a notebook: set GATES_LAB=1 (make test-mutants)")
SUBS = [(course, sub) for course, sub in gates.plan() if sub.kind in ("solution", "mutant")]


def lab_verdicts(lines: list[str]) -> dict[str, bool]:
    """grade_id -> passed, from `check`'s lines (`PASS id`, `FAIL id: why`, `TODO id: why`)."""
    out = {}
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        if word in ("PASS", "FAIL", "TODO"):
            out[rest.split(":")[0].strip()] = word == "PASS"
    return out


def test_lab_verdicts_reads_checks_lines():
    assert lab_verdicts(["Checking x.ipynb", "  PASS  a_tests", "  FAIL  b_tests: AssertionError: no",
                         "  TODO  c_tests: not answered yet", "  ----  d_hidden_tests: hidden tests"]) == {
        "a_tests": True, "b_tests": False, "c_tests": False}


@pytest.mark.parametrize("course, sub", SUBS, ids=[s.student for _, s in SUBS])
def test_the_lab_gives_each_visible_test_its_graded_verdict(graded, course, sub, tmp_path):
    record = graded["records"][sub.student]
    graded_visible = {t: v["score"] == v["max"] for t, v in record["tests"].items()
                      if not notebooks.TEST_ID.match(t).group(2)}
    folder = tmp_path / sub.chapter  # the chapter's folder: the loop reads its exercise names there
    shutil.copytree(course.release / sub.chapter, folder)
    nb = variants.solved(course, sub.chapter) if sub.kind == "solution" else variants.mutant(
        course, sub.chapter, sub.name)
    _, lines = check(variants.save(nb, folder / f"{sub.chapter}.ipynb"), timeout=30)
    lab = lab_verdicts(lines)
    differ = {t: f"lab {'PASS' if lab.get(t) else 'FAIL'}, graded {'PASS' if ok else 'FAIL'}"
              for t, ok in graded_visible.items() if lab.get(t) != ok}
    assert not differ, f"{sub.student}: the lab and grading disagree: {differ}\n" + "\n".join(lines)
