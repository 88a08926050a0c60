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

from autograder import notebooks
from autograder.course import AutograderError, Course

MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", re.M)
MUTANT_NAME = re.compile(r"^(?P<exercise>[A-Za-z_][A-Za-z0-9_]*)-(?P<mistake>[A-Za-z0-9_-]+)\.patch$")
HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<count>\d+))? \+\d+(?:,(?P<new>\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file\n"  # follows a patch line that has no end of line


def answer_ids(nb) -> list[str]:
    """grade_ids of the answer cells (`solution: true`) that have test cells, in order."""
    tested = {t["exercise"] for t in notebooks.chapter_tests(nb)}
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
                      (before or notebooks.chapter_tests(nb)[0]["grade_id"]))
    cell = nbformat.v4.new_code_cell(source)
    cell["id"] = f"student-{len(nb.cells)}"
    nb.cells.insert(first_test, cell)
    return nb


def mutants(course: Course, chapter: str) -> dict[str, Path]:
    """`<exercise>-<mistake>` -> mutant patch file, for this chapter."""
    folder = course.mutants / chapter
    found = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.name.startswith("."):
            continue
        if not MUTANT_NAME.match(path.name):
            raise AutograderError(f"{path}: a mutant is a patch named <exercise>-<mistake>.patch "
                                  "(make one with `python -m autograder mutant-diff`)")
        found[path.name.removesuffix(".patch")] = path
    return found


def first_mutants(course: Course, chapter: str) -> dict[str, str]:
    """exercise -> the name of its first mutant (in file order)."""
    found: dict[str, str] = {}
    for name in mutants(course, chapter):
        found.setdefault(MUTANT_NAME.match(name + ".patch")["exercise"], name)
    return found


def mutant_source(course: Course, chapter: str, name: str, answers: dict[str, str] | None = None) -> str:
    """The mutant `name`'s answer cell: its patch applied to the solution's answer cell."""
    found = mutants(course, chapter)
    if name not in found:
        raise AutograderError(f"{chapter} has no mutant {name!r}; known: {', '.join(found) or 'none'}")
    exercise = MUTANT_NAME.match(found[name].name).group("exercise")
    answers = solution_answers(course, chapter) if answers is None else answers
    if exercise not in answers:
        raise AutograderError(f"{found[name]}: {chapter} has no graded exercise {exercise!r}")
    return apply_patch(answers[exercise], found[name].read_bytes().decode("utf-8"), f"{chapter}/{name}")


def mutant(course: Course, chapter: str, name: str):
    """The solved notebook with one answer replaced by the mutant `name`."""
    source = mutant_source(course, chapter, name)
    return with_answer(solved(course, chapter), MUTANT_NAME.match(f"{name}.patch")["exercise"], source)


def lines(text: str) -> list[str]:
    """`text` split after each newline (only "\\n": a cell's other line breaks stay in their line)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def apply_patch(base: str, patch: str, name: str) -> str:
    """`base` changed by the unified diff `patch`, strictly: each hunk applies at its own line
    number with every context and removed line equal to `base`'s, or AutograderError says which
    hunk and line of mutant `name` do not match."""
    rows, old_lines = lines(patch), lines(base)
    if len(rows) < 3 or not rows[0].startswith("--- ") or not rows[1].startswith("+++ "):
        raise AutograderError(f"mutant {name}: not a unified diff ('--- ', '+++ ', then '@@' hunks); "
                              "make it with `python -m autograder mutant-diff`")
    out, done, i, hunk = [], 0, 2, 0
    while i < len(rows):
        head = HUNK.match(rows[i])
        if not head:
            raise AutograderError(f"mutant {name}: patch line {i + 1} should open a hunk (@@ -a,b +c,d @@), "
                                  f"it is {rows[i]!r}")
        hunk, i, old, new = hunk + 1, i + 1, [], []
        count, new_count = (int(head[k]) if head[k] is not None else 1 for k in ("count", "new"))
        while i < len(rows) and (len(old) < count or len(new) < new_count):
            row = " \n" if rows[i] == "\n" else rows[i]  # an empty context line whose space was trimmed
            tag, text, i = row[:1], row[1:], i + 1
            if tag not in (" ", "-", "+"):
                raise AutograderError(f"mutant {name}: hunk {hunk} ({head[0]}): patch line {i} starts "
                                      f"with {tag!r}, not ' ', '-' or '+'")
            if i < len(rows) and rows[i] == NO_NEWLINE:
                text, i = text.removesuffix("\n"), i + 1
            old += [text] if tag != "+" else []
            new += [text] if tag != "-" else []
        if (len(old), len(new)) != (count, new_count):
            raise AutograderError(f"mutant {name}: hunk {hunk} ({head[0]}) is cut short")
        first = int(head["start"]) - (1 if count else 0)  # with no old lines, the line it follows
        if first < done:
            raise AutograderError(f"mutant {name}: hunk {hunk} ({head[0]}) overlaps the hunk before it")
        for k, want in enumerate(old):
            got = old_lines[first + k] if first + k < len(old_lines) else None
            if got != want:
                seen = f"is {got!r}" if got is not None else f"does not exist ({len(old_lines)} lines)"
                raise AutograderError(
                    f"mutant {name}: hunk {hunk} ({head[0]}) does not apply: line {first + k + 1} of the "
                    f"solution's cell {seen}, the patch expects {want!r}. The solution changed under "
                    f"this mutant: edit its cell again (`python -m autograder mutant-diff {name.replace('/', ' ')}` "
                    "prints it) and remake the patch")
        out += old_lines[done:first] + new
        done = first + count
    return "".join(out + old_lines[done:])


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


def answers_defined_as(course: Course, chapter: str, body: str, prelude: str = ""):
    """The stub whose every answer cell defines its exercise's functions with `body` (indented
    function body), after `prelude`: how hostile cases replace every answer at once."""
    nb = stub(course, chapter)
    for grade_id, source in solution_answers(course, chapter).items():
        defs = "\n".join(f"def {n}(*args, **kwargs):\n{body}" for k, n in defined_names(source) if k == "def")
        nb = with_answer(nb, grade_id, prelude + defs + "\n")
    return nb
