"""Every check in a test cell says what to fix (issue 45, item 2).

A test cell's failure is all a learner sees: in the lab, in Validate, in graded feedback. An
`assert` without a message shows a bare AssertionError; a `no_raise` without a `hint` shows the
exception and no way forward (the hint is the check the block guards, which never runs once the
block raised). This gate reads every test cell of every chapter's solution, visible and hidden:
each `assert` has a message and each `no_raise(...)` a `hint=`. Static and fast.
"""

import ast

import nbformat
import pytest

from autograder import notebooks
from tests import gates

CHAPTERS = gates.chapters()
IDS = [chapter for _, chapter in CHAPTERS]


def silent_checks(source: str) -> list[str]:
    """The asserts without a message and the no_raise calls without a hint, as written."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert) and node.msg is None:
            found.append(ast.unparse(node)[:100])
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "no_raise"
              and not any(k.arg == "hint" for k in node.keywords)):
            found.append(ast.unparse(node)[:100])
    return found


def test_the_rule_sees_a_bare_assert_and_a_no_raise_without_hint():
    cell = ("assert x == 1\nassert y, 'why'\nwith wb.checks.no_raise('f()'):\n    f()\n"
            "with wb.checks.no_raise('g()', hint='fix'):\n    g()")
    assert silent_checks(cell) == ["assert x == 1", "wb.checks.no_raise('f()')"]


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_every_check_of_a_test_cell_says_what_to_fix(course, chapter):
    nb = notebooks.read(course.solution_ipynb(chapter))
    found = {notebooks.nbmeta(cell)["grade_id"]: silent
             for cell in nb.cells if cell.cell_type == "code" and notebooks.is_test(cell)
             if (silent := silent_checks(cell.source))}
    assert not found, (f"{chapter}: checks that say nothing when they fail (give an assert a message, a no_raise "
                       f"a hint= naming the fix for the check it guards): {found}")


def test_a_notebook_cell_is_read_as_source():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "assert ok", metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "x_tests"}})])
    assert [silent_checks(c.source) for c in nb.cells if notebooks.is_test(c)] == [["assert ok"]]
