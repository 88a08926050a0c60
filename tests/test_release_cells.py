"""Released hidden-test cells echo nothing when a student runs them (issue 17 §3).

nbgrader removes the hidden block and leaves the docstring, which IPython would show as Out[n];
`release` ends such a cell with a statement. The grader is unaffected: it puts its own copy back.
"""

import json
import subprocess
import sys

import pytest

from autograder import notebooks
from autograder.course import Course
from autograder.release.release import ends_with_expression, name_stubs, quiet_hidden_cells
from tests import gates

CHAPTERS = gates.chapters()


def _hidden_ids(course, chapter):
    return {notebooks.nbmeta(c).get("grade_id") for c in notebooks.read(course.solution_ipynb(chapter)).cells
            if c.cell_type == "code" and "### BEGIN HIDDEN TESTS" in c.source}


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=[c for _, c in CHAPTERS])
def test_no_released_hidden_cell_ends_with_a_bare_expression(course, chapter):
    released = course.release / chapter / f"{chapter}.ipynb"
    if not released.is_file():
        pytest.skip("not released into this course's chapters/")
    hidden = _hidden_ids(course, chapter)
    cells = [c for c in notebooks.read(released).cells if notebooks.nbmeta(c).get("grade_id") in hidden]
    assert len(cells) == len(hidden), "every hidden-test cell is released"
    echoing = [notebooks.nbmeta(c)["grade_id"] for c in cells if ends_with_expression(c.source)]
    assert not echoing, f"these released cells would echo their docstring as Out[n]: {echoing}"


def test_ipython_displays_nothing_for_a_released_hidden_cell():
    course, chapter = Course(), "00_start_here"  # whatever GATES_ONLY narrows (make quick: none)
    hidden = _hidden_ids(course, chapter)
    sources = [c.source for c in notebooks.read(course.release / chapter / f"{chapter}.ipynb").cells
               if notebooks.nbmeta(c).get("grade_id") in hidden]
    assert sources
    script = ("import json, sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
              "shell = InteractiveShell.instance()\n"
              "print(json.dumps([repr(shell.run_cell(s).result) for s in json.loads(sys.stdin.read())]))")
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(sources + ['"""doc"""']),
                          capture_output=True, text=True, timeout=60, check=True)
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown[-1] == "'doc'", "the check itself: a bare docstring is displayed"
    assert shown[:-1] == ["None"] * len(sources), f"a released hidden cell displayed {shown[:-1]}"


def test_quiet_hidden_cells_keeps_the_docstring_and_updates_the_checksum():
    from nbformat.v4 import new_code_cell, new_notebook
    from nbgrader.utils import compute_checksum

    meta = {"nbgrader": {"grade": True, "grade_id": "x_hidden_tests", "locked": True, "points": 1,
                         "solution": False, "schema_version": 3, "checksum": "old"}}
    source = new_notebook(cells=[new_code_cell('"""Hidden tests: x."""\n### BEGIN HIDDEN TESTS\nassert 1\n'
                                               '### END HIDDEN TESTS', metadata=meta)])
    released = new_notebook(cells=[new_code_cell('"""Hidden tests: x."""', metadata=json.loads(json.dumps(meta))),
                                   new_code_cell('"""Not hidden."""')])
    quiet_hidden_cells(source, released)
    cell = released.cells[0]
    assert cell.source.startswith('"""Hidden tests: x."""\n') and cell.source.endswith("\npass")
    assert cell.metadata.nbgrader["checksum"] == compute_checksum(cell) != "old"
    assert released.cells[1].source == '"""Not hidden."""', "only cells that lost hidden tests change"


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=[c for _, c in CHAPTERS])
def test_every_released_stub_says_what_to_do(course, chapter):
    """An unfinished exercise's error names it and says what to do, wherever it is seen (§6)."""
    released = course.release / chapter / f"{chapter}.ipynb"
    if not released.is_file():
        pytest.skip("not released into this course's chapters/")
    answers = [c for c in notebooks.read(released).cells if c.cell_type == "code" and notebooks.nbmeta(c).get("solution")]
    assert answers
    for cell in answers:
        grade_id = notebooks.nbmeta(cell)["grade_id"]
        assert "raise NotImplementedError()" not in cell.source, f"{grade_id}: a bare stub is left"
        stub = f'raise NotImplementedError("not answered yet: your answer to {grade_id} goes here")'
        assert stub in cell.source, (
            f"{grade_id}: the stub does not say what to do:\n{cell.source}")


def test_a_named_stub_is_still_an_error_and_says_so():
    from nbformat.v4 import new_code_cell, new_notebook

    meta = {"nbgrader": {"grade": False, "grade_id": "add", "locked": False, "solution": True,
                         "schema_version": 3, "checksum": "old"}}
    nb = new_notebook(cells=[new_code_cell("def add(a, b):\n    # YOUR CODE HERE\n    raise NotImplementedError()",
                                           metadata=meta)])
    name_stubs(nb)
    namespace = {}
    exec(nb.cells[0].source, namespace)
    with pytest.raises(NotImplementedError, match="^not answered yet: your answer to add goes here$"):
        namespace["add"](1, 2)
    assert nb.cells[0].metadata.nbgrader["checksum"] != "old"
