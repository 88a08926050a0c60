"""A test cell reaches the notebook only for the chapter's exercise names (issue 44, class 1).

Graded, a test cell runs in the judge, and a name it does not define is looked up in the student's
kernel only when it is an exercise name (what the chapter's answer cells define): every other name
a test uses (given code, prompts, constants, probes) is its own, an `#@include` copy, a workbook
import, or given code run in the notebook by a fixed path (`workbook.notebook_side`). Were a test
to read a given name from the notebook, the notebook would decide what it means (a rebound
`elsewhere`, `rag_search` or `exchange` scored a wrong answer full marks). This gate reads every
test cell's free names; the judge refuses any other name at run time (tests/test_judge_names.py).
"""

import ast
import builtins

import nbformat
import pytest

from autograder import notebooks
from tests import gates

CHAPTERS = gates.chapters()
IDS = [chapter for _, chapter in CHAPTERS]
BUILTINS = frozenset(dir(builtins))


def bound_and_read(source: str) -> tuple[set[str], set[str]]:
    """(names a cell binds anywhere, names it reads), by name alone."""
    bound, read = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
    return bound, read


def notebook_names(nb) -> dict[str, set[str]]:
    """For each test cell: the names it reads that neither it nor an earlier test cell binds, nor
    builtins, nor the chapter's exercises."""
    exercises = set(notebooks.exercise_names(nb))
    earlier: set[str] = set()
    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or not notebooks.is_test(cell):
            continue
        bound, read = bound_and_read(cell.source)
        found[notebooks.nbmeta(cell)["grade_id"]] = read - bound - earlier - exercises - BUILTINS
        earlier |= bound
    return found


def test_the_rule_sees_a_given_name():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("TOOLS = {}\ndef helper(): pass", metadata={}),
        nbformat.v4.new_code_cell("def run(): return 1", metadata={"nbgrader": {"solution": True, "grade_id": "run"}}),
        nbformat.v4.new_code_cell("x = run()\nassert helper() is None and TOOLS == {} and [y for y in [x]]",
                                  metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "run_tests"}})])
    assert notebook_names(nb) == {"run_tests": {"helper", "TOOLS"}}


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_a_test_cell_reads_only_exercise_names_of_the_notebook(course, chapter):
    found = {gid: names for gid, names in notebook_names(notebooks.read(course.solution_ipynb(chapter))).items()
             if names}
    assert not found, (
        f"{chapter}: test cells read names of the notebook that are not exercises (the judge will not look them "
        f"up, and the notebook could rebind them): {found}. Give the test its own copy: `#@include <chapter> <name>`, "
        "a workbook import, or `workbook.notebook_side` for given code that must run beside the student's")


def top_bound(source: str) -> set[str]:
    """Names a cell binds in the namespace its test cells share (not inside a function or class)."""
    bound: set[str] = set()
    stack: list[ast.AST] = [ast.parse(source)]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(child.name)  # its body binds its own locals
            elif isinstance(child, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                continue
            else:
                if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                    bound.add(child.id)
                elif isinstance(child, ast.alias):
                    bound.add((child.asname or child.name).split(".")[0])
                elif isinstance(child, ast.ExceptHandler) and child.name:
                    bound.add(child.name)
                stack.append(child)
    return bound


def test_the_rule_sees_a_test_that_binds_an_exercise_name():
    assert top_bound("def fetch_url(u): x = 1\nfor i in []: pass\nimport json as j\nf = lambda q: q") == \
        {"fetch_url", "i", "j", "f"}


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_a_test_cell_never_binds_an_exercise_name(course, chapter):
    """Graded, test cells share one namespace and the student orders the cells: a test cell that
    bound an exercise name (red team 5: ch19's hidden test defined its own `fetch_url`) would hand
    the tests after it its version in place of the student's."""
    nb = notebooks.read(course.solution_ipynb(chapter))
    exercises = set(notebooks.exercise_names(nb))
    found = {notebooks.nbmeta(cell)["grade_id"]: sorted(top_bound(cell.source) & exercises)
             for cell in nb.cells if cell.cell_type == "code" and notebooks.is_test(cell)}
    found = {gid: names for gid, names in found.items() if names}
    assert not found, f"{chapter}: test cells bind exercise names (rename the test's own): {found}"
