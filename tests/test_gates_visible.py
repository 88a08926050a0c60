"""Gate: visible tests teach. Every mutant fails at least one visible test cell of its own exercise,
so a learner who passes every visible test has built every behaviour the exercise text names and
loses hidden points only to the cases hidden tests add. Uses the gates' one graded batch (the
`graded` fixture in conftest.py): no extra grading.

An exception is written in the mutant file's module docstring, as a line
`Visible tests pass: <why>`; the gate reports each one as a VisibleTestsPass warning.
"""

import ast
import re
import warnings

import pytest

from autograder import notebooks
from autograder.gates import variants
from tests import gates

pytestmark = pytest.mark.slow
MUTANTS = [(course, sub) for course, sub in gates.plan() if sub.kind == "mutant"]
JUSTIFIED = re.compile(r"^Visible tests pass: *(?P<why>\S.*)$", re.M)


class VisibleTestsPass(UserWarning):
    """A mutant that passes every visible test of its exercise, with the reason its file gives."""


def visible_pass_reason(source: str) -> str:
    """The `Visible tests pass: <why>` line of a mutant's module docstring, or ''."""
    try:
        doc = ast.get_docstring(ast.parse(source)) or ""
    except SyntaxError:
        return ""
    found = JUSTIFIED.search(doc)
    return found.group("why").strip() if found else ""


def test_visible_pass_reason_reads_the_module_docstring_only():
    assert visible_pass_reason('"""A mutant.\n\nVisible tests pass: only a hidden case shows it."""\n'
                               "def f():\n    pass\n") == "only a hidden case shows it."
    assert visible_pass_reason('def f():\n    """Visible tests pass: not the function\'s docstring."""\n') == ""
    assert visible_pass_reason("# Visible tests pass: not a comment\ndef f():\n    pass\n") == ""


@pytest.mark.parametrize("course, sub", MUTANTS, ids=[s.student for _, s in MUTANTS])
def test_mutant_fails_a_visible_test_of_its_exercise(graded, course, sub):
    record = graded["records"][sub.student]
    assert record["status"] != "error", f"{sub.student} could not be graded: {record['message']}"
    visible = {t: v for t, v in record["tests"].items()
               if v["exercise"] == sub.exercise and not notebooks.TEST_ID.match(t).group(2)}
    assert visible, f"{sub.chapter}: exercise {sub.exercise} has no visible test cell {sub.exercise}_tests"
    caught = sorted(t for t, v in visible.items() if v["score"] < v["max"])
    why = visible_pass_reason(variants.mutant_source(course, sub.chapter, sub.name))
    if why:
        assert not caught, (f"mutant {sub.chapter}/{sub.name} says 'Visible tests pass: {why}', but it fails "
                            f"{caught}: drop that line from its docstring")
        warnings.warn(VisibleTestsPass(f"{sub.chapter}/{sub.name}: {why}"), stacklevel=1)
        return
    scores = {t: f"{v['score']:g}/{v['max']:g}" for t, v in record["tests"].items()}
    assert caught, (f"mutant {sub.chapter}/{sub.name} passes every visible test of {sub.exercise} "
                    f"({sorted(visible)}): a learner would lose hidden points with no hint. Make a visible test "
                    "catch this mistake, or justify it in the mutant file's docstring with a line "
                    f"'Visible tests pass: <why>'. Scores: {scores}")
