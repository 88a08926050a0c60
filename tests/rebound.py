"""The rebound variants (issue 44): a gate for the class "a name the test reads is the notebook's".

A test cell runs in the judge, and of the names it does not define only the chapter's exercises
are asked of the kernel (workbook/link/judge_end.py `Namespace`). So what any other name means is
fixed by the chapter, and rebinding it in the notebook can change what the student's own code does,
never what a test expects. Each chapter gets three gate submissions of kind "attack":

    rebound-base   the solved notebook with the first mutant of every exercise typed in
    rebound-liar   the same, and before every test cell a cell that rebinds every name the
                   notebook defines but its exercises to a liar (equal to anything, true, callable)
    rebound-pass   the same, with every such function and class rebound to a pass-through

and tests/test_gates_rebound.py asserts that no exercise scores more with a rebinding than in
rebound-base. The red team's three attacks of this class (ch08 `elsewhere`, ch18 `rag_search` and
`exchange`) each scored more than alone; tests/attacks.py keeps them as they were found.
"""

from __future__ import annotations

import os

from autograder import notebooks
from autograder.course import Course
from autograder.gates import variants

KINDS = ("base", "liar", "pass")

REBIND = '''_keep = {keep!r}
class _Liar:
    """Equal to anything, true, callable, every attribute and item itself."""
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
    def __call__(self, *args, **kwargs): return self
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self
    def __getitem__(self, key): return self
    def __contains__(self, item): return True
    def __iter__(self): return iter(())
    def __len__(self): return 0
    __hash__ = object.__hash__
def _pass(*args, **kwargs):
    return args[0] if args else None
for _name, _value in list(globals().items()):
    if _name.startswith("_") or _name in _keep:
        continue
    if {liar!r}:
        globals()[_name] = _Liar()
    elif callable(_value) and type(_value).__name__ != "module":
        globals()[_name] = _pass
'''
IPYTHON = ("In", "Out", "get_ipython", "exit", "quit")


def base(gate: Course, chapter: str):
    """The solved notebook with every exercise's first mutant in its answer cell."""
    nb = variants.solved(gate, chapter)
    for exercise, name in variants.first_mutants(gate, chapter).items():
        nb = variants.with_answer(nb, exercise, variants.mutant_source(gate, chapter, name))
    return nb


def rebound(gate: Course, chapter: str, kind: str):
    """`base`, and before every test cell the rebinding cell of `kind` ("liar" or "pass")."""
    nb = base(gate, chapter)
    keep = sorted(set(notebooks.exercise_names(notebooks.read(gate.solution_ipynb(chapter)))) | set(IPYTHON))
    cell = REBIND.format(keep=keep, liar=kind == "liar")
    for test in notebooks.chapter_tests(nb):
        nb = variants.insert(nb, cell, before=test["grade_id"])
    return nb


def builder(chapter: str, kind: str):
    if kind == "base":
        return lambda gate: base(gate, chapter)
    return lambda gate: rebound(gate, chapter, kind)


ALWAYS = ("08_retries_and_idempotency", "18_mcp_by_hand")  # where the red team rebound `elsewhere`, `rag_search`, `exchange`


def every_chapter() -> bool:
    """Every chapter (the third tier: `make test-real`, or GATES_REBOUND=all), else ALWAYS only: three
    full runs of a chapter each, and the class is closed by construction (the judge's Namespace)."""
    return os.environ.get("GATES_REAL") == "all" or os.environ.get("GATES_REBOUND") == "all"


def chapters(course: Course, every: bool = True) -> list[str]:
    """The chapters that have mutants (a rebound variant compares with them): all, or ALWAYS."""
    return [c for c in course.chapters() if variants.first_mutants(course, c) and (every or c in ALWAYS)]
