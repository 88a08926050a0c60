"""`mutant-diff`: a mutant's patch from an edited copy of its answer cell, and the checks it must pass.

A mutant is stored as a unified diff against its exercise's answer cell in the solved notebook
(the solution's cell without its BEGIN/END SOLUTION lines), with CONTEXT lines of context;
`variants.apply_patch` applies it strictly at gate time. To add one:

    python -m autograder mutant-diff 01_one_step parse_reply-no-type-check > /tmp/cell.py
    (edit /tmp/cell.py: make the one plausible mistake)
    python -m autograder mutant-diff 01_one_step parse_reply-no-type-check /tmp/cell.py

Without a file the command prints the cell to start from (the mutant's own cell if it exists,
else the solution's); with one it writes autograder/mutants/<chapter>/<exercise>-<mistake>.patch.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

from autograder.course import AutograderError, Course
from autograder.gates import variants

CONTEXT = 2


def make_patch(solution: str, mutant: str, chapter: str, name: str) -> str:
    """The unified diff that turns the solution's answer cell into mutant `name`'s."""
    exercise = variants.MUTANT_NAME.match(f"{name}.patch")["exercise"]
    rows = difflib.unified_diff(variants.lines(solution), variants.lines(mutant),
                                f"a/{chapter}/{exercise}", f"b/{chapter}/{name}", n=CONTEXT)
    return "".join(r if r.endswith("\n") else r + "\n" + variants.NO_NEWLINE for r in rows)


def top_level_names(source: str) -> set[str]:
    """Names a cell binds at top level: functions, classes, assignment targets and imports."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def problems(solution: str, mutant: str, label: str) -> list[str]:
    """Why `mutant` would not prove anything: it must differ from the solution, compile, and bind
    every top-level name the solution's cell binds, so that it loses points by an assertion and
    not by a SyntaxError or a NameError."""
    if mutant == solution:
        return [f"{label} is the solution's cell unchanged"]
    try:
        compile(mutant, label, "exec", dont_inherit=True)
    except SyntaxError as e:
        return [f"{label} does not compile: {e.msg} (line {e.lineno}); it would lose its points by a "
                "SyntaxError, not by an assertion"]
    dropped = sorted(top_level_names(solution) - top_level_names(mutant))
    if dropped:
        return [f"{label} no longer defines {', '.join(dropped)} (the solution's cell does); a test would "
                "fail by a NameError, not by an assertion"]
    return []


def mutant_diff(course: Course, chapter: str, name: str, edited: Path | None) -> list[str]:
    """Print the cell to edit (no `edited`), or write the mutant's patch from the edited copy."""
    course.check_chapter(chapter)
    if not variants.MUTANT_NAME.match(f"{name}.patch"):
        raise AutograderError(f"{name!r}: a mutant is named <exercise>-<mistake> (letters, digits, _ or -)")
    exercise = variants.MUTANT_NAME.match(f"{name}.patch")["exercise"]
    answers = variants.solution_answers(course, chapter)
    if exercise not in answers:
        raise AutograderError(f"{chapter} has no graded exercise {exercise!r}; known: {', '.join(answers)}")
    path = course.mutants / chapter / f"{name}.patch"
    if edited is None:
        cell = variants.mutant_source(course, chapter, name, answers) if path.is_file() else answers[exercise]
        return [cell.removesuffix("\n")]
    if not edited.is_file():
        raise AutograderError(f"{edited}: no such file (the edited copy of {chapter}'s {exercise} cell)")
    source = edited.read_bytes().decode("utf-8")
    found = problems(answers[exercise], source, str(edited))
    if found:
        raise AutograderError("; ".join(found))
    patch = make_patch(answers[exercise], source, chapter, name)
    if variants.apply_patch(answers[exercise], patch, f"{chapter}/{name}") != source:
        raise AutograderError(f"{edited}: the patch made from it does not give it back (a line break "
                              "other than \\n?); save it with plain \\n line ends")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(patch.encode("utf-8"))
    hunks = sum(r.startswith("@@") for r in variants.lines(patch))
    return [f"wrote {path} ({hunks} hunk{'s' * (hunks != 1)}); the gates grade it as {chapter}--mutant--{name}"]
