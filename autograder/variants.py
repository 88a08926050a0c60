"""Submissions made from a chapter's own notebooks: solved, stub, partial, mutants, hostile.

The gates, the sample cohort and the benchmark all use these, so they stay valid when a
chapter changes. A variant starts from the released notebook (what a student gets) and changes
only what a student could change.
"""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import nbformat

from autograder import notebooks, results
from autograder.course import AutograderError, Course

MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", re.M)
MUTANT_NAME = re.compile(r"^(?P<exercise>[A-Za-z_][A-Za-z0-9_]*)-(?P<mistake>[A-Za-z0-9_-]+)\.py$")


def answer_ids(nb) -> list[str]:
    """grade_ids of the answer cells (`solution: true`) that have test cells, in order."""
    tested = {t["exercise"] for t in results.chapter_tests(nb)}
    return [c.metadata.nbgrader["grade_id"] for c in nb.cells
            if notebooks.nbmeta(c).get("solution") and
            c.metadata.nbgrader["grade_id"] in tested]


def _cell(nb, grade_id: str):
    for cell in nb.cells:
        if notebooks.nbmeta(cell).get("grade_id") == grade_id:
            return cell
    raise AutograderError(f"no cell with grade_id {grade_id!r}")


def stub(course: Course, chapter: str):
    """The released notebook, untouched."""
    return notebooks.read(course.released(chapter))


def solution_answers(course: Course, chapter: str) -> dict[str, str]:
    """grade_id -> the solution's answer code, without the BEGIN/END SOLUTION lines."""
    sol = notebooks.read(course.solution_ipynb(chapter))
    return {g: MARKER.sub("", _cell(sol, g).source) for g in answer_ids(sol)}


def solved(course: Course, chapter: str, only: list[str] | None = None):
    """The released notebook with the solution's answers typed in (all, or only some)."""
    nb = stub(course, chapter)
    for grade_id, source in solution_answers(course, chapter).items():
        if only is None or grade_id in only:
            _cell(nb, grade_id).source = source
    return nb


def with_answer(nb, grade_id: str, source: str):
    """A copy of `nb` whose answer cell `grade_id` holds `source`."""
    nb = copy.deepcopy(nb)
    _cell(nb, grade_id).source = source
    return nb


def insert(nb, source: str, before: str | None = None):
    """A copy of `nb` with a student's code cell added before the first test cell (or `before`)."""
    nb = copy.deepcopy(nb)
    first_test = next(i for i, c in enumerate(nb.cells)
                      if notebooks.nbmeta(c).get("grade_id") ==
                      (before or results.chapter_tests(nb)[0]["grade_id"]))
    cell = nbformat.v4.new_code_cell(source)
    cell["id"] = f"student-{len(nb.cells)}"
    nb.cells.insert(first_test, cell)
    return nb


def mutants(course: Course, chapter: str) -> dict[str, Path]:
    """`<exercise>-<mistake>` -> mutant file, for this chapter."""
    folder = course.mutants / chapter
    found = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if not MUTANT_NAME.match(path.name):
            raise AutograderError(f"{path}: a mutant file is named <exercise>-<mistake>.py")
        found[path.stem] = path
    return found


def mutant(course: Course, chapter: str, name: str):
    """The solved notebook with one answer replaced by the mutant `name`."""
    path = mutants(course, chapter)[name]
    exercise = MUTANT_NAME.match(path.name).group("exercise")
    nb = solved(course, chapter)
    if exercise not in answer_ids(nb):
        raise AutograderError(f"{path}: {chapter} has no graded exercise {exercise!r}")
    return with_answer(nb, exercise, path.read_text(encoding="utf-8"))


def defined_names(source: str) -> list[tuple[str, str]]:
    """(kind, name) of the functions and classes an answer cell defines at top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    kinds = {ast.FunctionDef: "def", ast.AsyncFunctionDef: "async def", ast.ClassDef: "class"}
    return [(kinds[type(n)], n.name) for n in tree.body if type(n) in kinds]


def save(nb, path: Path) -> Path:
    """Write a submission notebook."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notebooks.dumps(nb), encoding="utf-8")
    return path
