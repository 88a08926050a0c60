"""The student's Validate lists each failed test as its name and its error's own line, then the
traceback; never the test's code first (issue 45, workbook/validate.py). The browser's view of the
same dialog: tests/browser/test_validate_dialog.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output

from autograder import notebooks
from workbook.validate import HANDLERS, HeadlineValidator, headline

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = "01_one_step"
WRONG = ('def parse_reply(reply):\n    if reply.get("final"):\n        return ("final", reply["final"])\n'
         '    return ("tool", reply["tool"], reply.get("args", {}))\n')


def _cell(*outputs):
    cell = new_code_cell("'''Visible tests: ...'''\nassert 1 == 2, 'one is not two'\n", outputs=list(outputs))
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "add_tests", "points": 1, "solution": False}
    return cell


def test_the_headline_is_the_tests_name_then_its_errors_own_line():
    error = new_output("error", ename="AssertionError", evalue="\x1b[31madd(2, 3) should be 5\x1b[0m — hint",
                       traceback=["long", "traceback"])
    assert headline(_cell(error), "long\ntraceback") == "add_tests\nAssertionError: add(2, 3) should be 5 — hint"


def test_a_cell_that_raised_nothing_says_nbgraders_first_line():
    stderr = new_output("stream", name="stderr", text="\nwarning: slow\nmore\n")
    assert headline(_cell(stderr), "\nwarning: slow\nmore\n") == "add_tests\nwarning: slow"
    nameless = _cell()
    nameless.metadata["nbgrader"].pop("grade_id")
    assert headline(nameless, "") == "a test cell\nit failed"


def visible_tests(nb) -> list[str]:
    """The grade_ids of a released notebook's visible test cells, in order (a hidden test's cell
    is there, empty: it passes)."""
    return [t["grade_id"] for t in notebooks.chapter_tests(nb) if not t["grade_id"].endswith("_hidden_tests")]


@pytest.mark.slow
def test_validate_puts_the_failure_first_and_leaves_the_test_code_out(tmp_path):
    """nbgrader's Validator, run as the lab's Validate runs it, on chapter 01 with a wrong answer."""
    path = tmp_path / f"{CHAPTER}.ipynb"
    shutil.copy(ROOT / "chapters" / CHAPTER / f"{CHAPTER}.ipynb", path)
    nb = nbformat.read(path, as_version=4)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "parse_reply").source = WRONG
    nbformat.write(nb, path)
    failed = HeadlineValidator().validate(str(path))["failed"]
    # every visible test fails: parse_reply's answer is wrong, the others are the release's stubs
    expected = visible_tests(nb)
    assert expected[0] == "parse_reply_tests" and len(expected) >= 3, expected
    assert [f["source"].splitlines()[0] for f in failed] == expected
    said = ("AssertionError: parse_reply({'final': ''}) raised KeyError: 'tool' — "
            "an empty final answer is still a final answer")
    assert failed[0]["source"] == f"parse_reply_tests\n{said}"
    assert "Traceback" in failed[0]["raw_error"] and "Visible tests" not in json.dumps(failed)
    assert nbformat.read(path, as_version=4) == nb, "Validate must not change the notebook"


def test_the_students_lab_serves_validate_from_the_workbook_not_from_nbgrader():
    """Both answer /assignments/validate: exactly one may be on, and it is ours."""
    config = json.loads((ROOT / "lab" / "student" / "jupyter_server_config.d" / "nbgrader-student.json")
                        .read_text(encoding="utf-8"))["ServerApp"]["jpserver_extensions"]
    assert config["workbook.validate"] is True
    assert config["nbgrader.server_extensions.validate_assignment"] is False
    assert [pattern for pattern, _ in HANDLERS] == ["/assignments/validate", "/nbgrader_version"]
