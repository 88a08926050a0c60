"""The feedback page a student reads (issue 45): its summary names each test's exercise and kind
(nbgrader says "Test cell" for every one), long lines wrap, and the page says once, where it
starts, why it shows less after the first hidden test (autograder/pipeline/feedback_filter.py,
autograder/pipeline/feedback_page/). Its look in Chromium: tests/browser/test_feedback_page.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbgrader
import pytest
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_output
from nbgrader.utils import compute_checksum
from traitlets.config import Config

from autograder import notebooks
from autograder.course import REPO, Course
from autograder.pipeline.feedback_filter import (
    WITHHELD,
    WITHHELD_ANCHOR,
    WITHHELD_NOTE,
    HideHiddenTests,
    exercise_label,
    use_course_page,
)
from workbook.link import heard

PILOT = REPO / "tests" / "pilot"
CHAPTER = "00_pilot"
BOOTSTRAP = (Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "static" / "node_modules"
             / "bootstrap" / "dist" / "css")  # where nbgrader's GenerateFeedback finds the page's CSS
LONG = "the same long line of output " * 20  # 580 characters on one line


def pilot_course(folder: Path) -> Course:
    """A course in `folder` with the pilot chapter's source (what the filter reads)."""
    shutil.copytree(PILOT / "solutions", folder / "course" / "solutions")
    return Course(root=folder / "course")


@pytest.fixture
def course(tmp_path):
    return pilot_course(tmp_path)


def graded(course: Course, hidden: bool = True):
    """The pilot's source notebook as autograde leaves it, every cell with an output (the answer
    cells' a long line); without its hidden test cells if not `hidden`."""
    nb = notebooks.read(course.solution_ipynb(CHAPTER))
    if not hidden:
        nb.cells = [c for c in nb.cells if "hidden" not in notebooks.nbmeta(c).get("grade_id", "")]
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if meta.get("grade_id"):
            meta["checksum"] = compute_checksum(cell)
        if meta.get("grade"):
            meta["score"] = 0.0
        if cell.cell_type == "code":
            cell.outputs = [new_output("stream", name="stdout",
                                       text=(LONG if meta.get("solution") else "ran") + "\n")]
    return nb


def page(course: Course, nb) -> str:
    """The page's HTML as `feedback` makes it: the course's filter and template, without the
    gradebook (nbgrader's GetGrades) whose scores the fixture writes itself."""
    config = Config()
    config.CourseDirectory.root = str(course.root)
    config.CourseDirectory.source_directory = "solutions"
    use_course_page(config)
    config.HTMLExporter.extra_template_paths = [str(BOOTSTRAP)]
    resources = {"nbgrader": {"assignment": CHAPTER, "notebook": CHAPTER, "student": "ann", "score": 0.0,
                              "max_score": 10.0, "late_penalty": 0}}
    nb, resources = HideHiddenTests(config=config).preprocess(nb, resources)
    return HTMLExporter(config=config).from_notebook_node(nb, resources=resources)[0]


def summary(html: str) -> list[str]:
    toc = html.split('<div id="toc">', 1)[1].split("</ol>", 1)[0]
    return re.findall(r'<li><a href="#[\w-]+">([^<]*)</a>', toc)


@pytest.mark.parametrize("grade_id, label", [
    ("parse_reply_tests", "parse_reply: visible test"),
    ("parse_reply_hidden_tests", "parse_reply: hidden tests"),
    ("parse_reply_hidden_tests_2", "parse_reply: hidden tests (2)"),
    ("two_steps_tests_3", "two_steps: visible test (3)"),
    ("a_cell", "a_cell"),  # not a test's name: said as it is
])
def test_a_tests_name_says_its_exercise_and_kind(grade_id, label):
    assert exercise_label(grade_id) == label


def test_the_summary_names_each_exercise(course):
    html = page(course, graded(course))
    assert summary(html) == ["add: visible test", "add: hidden tests", "parse_reply: visible test",
                             "parse_reply: hidden tests", "one_step: visible test", "one_step: hidden tests"]
    assert ">Test cell<" not in html


def test_the_page_says_once_where_it_starts_withholding_and_why(course):
    html = page(course, graded(course))
    assert html.count("Why: a hidden test hands your code its inputs") == 1
    assert f'id="{WITHHELD_ANCHOR}"' in html, "the heading's id is the one the summary links to"
    assert f'<a href="#{WITHHELD_ANCHOR}">why</a>' in html
    # Where: after the first hidden test cell, before the next exercise.
    note = html.index(f'id="{WITHHELD_ANCHOR}"')
    assert html.index("add_hidden_tests") < note < html.index("Exercise 2")
    # Each output withheld after it points back to the note, in a few words.
    assert html.count(WITHHELD) >= 2 and "note" in WITHHELD and len(WITHHELD) < 100
    # The note names the masks the judge puts in a message (workbook/link/heard.py).
    assert heard.REDACTED in WITHHELD_NOTE and heard.VALUE in WITHHELD_NOTE


def test_a_page_without_hidden_tests_withholds_nothing_and_says_nothing(course):
    html = page(course, graded(course, hidden=False))
    assert WITHHELD_ANCHOR not in html and "Why: a hidden test" not in html
    assert html.count(LONG.strip()) == 3, "every answer's output is shown"


def test_long_lines_wrap_on_the_page(course):
    html = page(course, graded(course))
    css = html.split("<body>", 1)[1].split("<style>", 1)[1].split("</style>", 1)[0]  # the course's
    assert "#notebook-container pre" in css and "white-space: pre-wrap" in css
    assert LONG.strip() in html, "the line is on the page whole: the browser wraps it"
