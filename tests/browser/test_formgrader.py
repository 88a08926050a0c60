"""`make grade`, then `make lab-instructor`: the Formgrader shows the course (issue 31 item 2).

A copy of the course (solutions/, chapters/, the sample cohort) is graded as `make grade` grades
it, into its demo workspace (three of the sample cohort's students: the others add only time,
dan's loop its cell limit); then the instructor's lab starts as the Makefile starts it, with no
WORKSPACE, so it must find the demo's gradebook itself. In Chromium the Formgrader lists every
chapter with its number of submissions, and its Manual Grading and Manage Students pages give each
student the score grades.csv gives them. Screenshots: test-artifacts/formgrader-*.png.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import sandbox
from tests.browser.jupyter import (
    BACKSTOP_S,
    ROOT,
    TEST_BACKSTOP_S,
    JupyterServer,
    skip_reason,
)
from tests.browser.jupyter import shot as screenshot

COHORT = ("ada", "ben", "cy")  # all right, the first exercise of each chapter, untouched
GRADED = ("00_start_here", "01_one_step")  # the sample cohort's chapters

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(skip_reason() is not None, reason=f"browser tests: {skip_reason()}"),
    pytest.mark.timeout(TEST_BACKSTOP_S),
]


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


def _autograder(course: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "autograder", "--root", str(course), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=BACKSTOP_S)
    assert done.returncode == 0, f"autograder {args}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course graded as `make grade` grades it; (its root, grades.csv's rows by (student, chapter))."""
    course = tmp_path_factory.mktemp("formgrader") / "course"
    for part in ("solutions", "chapters"):
        shutil.copytree(ROOT / part, course / part)
    cohort = course / "autograder" / "sample_cohort"
    sample = ROOT / "autograder" / "sample_cohort"
    cohort.mkdir(parents=True)
    for entry in sample.iterdir():
        if entry.name.split("_")[0] in COHORT:
            (shutil.copytree if entry.is_dir() else shutil.copy)(entry, cohort / entry.name)
    demo = course / "autograder" / "work" / "demo"  # where `make grade` (autograder demo) grades
    mode = "bwrap" if sandbox.bwrap_problem() is None else "none"
    _autograder(course, "--workspace", str(demo), "collect", str(cohort))
    _autograder(course, "--workspace", str(demo), "grade", "--workers", "2", "--sandbox", mode)
    _autograder(course, "--workspace", str(demo), "export")
    with (demo / "grades.csv").open(encoding="utf-8") as f:
        rows = {(r["student"], r["chapter"]): r for r in csv.DictReader(f)}
    assert set(rows) == {(s, c) for s in COHORT for c in GRADED}, sorted(rows)
    assert rows["ada", "01_one_step"]["score"] == rows["ada", "01_one_step"]["max_score"] != "0"
    assert float(rows["ben", "01_one_step"]["score"]) > float(rows["cy", "01_one_step"]["score"]) == 0
    return course, rows


@pytest.fixture
def instructor_lab(graded, tmp_path):
    """The lab `make lab-instructor` starts: lab/instructor/, the venv's bin first on PATH, no WORKSPACE."""
    course, _ = graded
    server = JupyterServer(course, tmp_path, config_path=ROOT / "lab" / "instructor")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUTOGRADER_ROOT", str(course))  # the copy, laid out as the repository
        mp.setenv("AUTOGRADER_WORKSPACE", "")
        mp.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        server.start()
    try:
        yield server
    finally:
        server.stop()


def shot(page, name: str) -> None:
    screenshot(page, f"formgrader-{name}.png", full_page=True)


def _score(row: dict) -> str:
    """A score as the Formgrader writes it: '3 / 5'."""
    return f"{float(row['score']):g} / {float(row['max_score']):g}"


def test_the_formgrader_shows_every_chapter_the_cohort_and_its_scores(graded, instructor_lab, page):
    course, rows = graded
    chapters = sorted(p.name for p in (course / "solutions").iterdir() if p.is_dir() and p.name[:2].isdigit())

    page.goto(instructor_lab.url("formgrader"))  # Manage Assignments
    table = page.locator("tbody#main-table")
    expect(table.locator("tr")).to_have_count(len(chapters))
    assert table.locator("td.name").all_inner_texts() == chapters
    for chapter in chapters:
        count = table.locator("tr", has=page.locator(f'td.name[data-order="{chapter}"]')).locator("td.num-submissions")
        expect(count).to_have_text(str(len(COHORT)) if chapter in GRADED else "0")
    shot(page, "assignments")

    for chapter in GRADED:  # Manual Grading: each submission's autograded score
        page.goto(instructor_lab.url(f"formgrader/gradebook/{chapter}/{chapter}"))
        table = page.locator("tbody#main-table")
        expect(table.locator("tr")).to_have_count(len(COHORT))
        page.get_by_role("button", name="Show All Names").click()  # names are hidden at first
        for student in COHORT:
            row = table.locator("tr", has=page.locator("a.name-shown", has_text=student))
            expect(row.locator("a.name-shown")).to_be_visible()
            expect(row.locator("td.score")).to_have_text(_score(rows[student, chapter]))
        shot(page, f"grading-{chapter}")

    page.goto(instructor_lab.url("formgrader/manage_students"))  # each student's total
    table = page.locator("tbody#main-table")
    expect(table.locator("tr")).to_have_count(len(COHORT))
    for student in COHORT:
        total = sum(float(rows[student, c]["score"]) for c in GRADED)
        most = sum(float(rows[student, c]["max_score"]) for c in GRADED)
        row = table.locator("tr", has=page.locator(f'td.id[data-order="{student}"]'))
        expect(row.locator("td.score")).to_have_text(f"{total:g} / {most:g}")
    shot(page, "students")
    assert "exchange directory" not in instructor_lab.tail(300).lower()
