"""Hostile submissions, built from any chapter, with the grade each one must get.

`full`: every test keeps its points; `zero`: every test gets 0; `first_zero`: the first
exercise gets 0 and the others keep their points.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder import notebooks
from autograder.gates import variants
from autograder.gates.sample import (  # the sample cohort's hostile students are cases here too
    ALWAYS_EQUAL,
    cheat_answers,
    first_answer_defs,
    loop_in_function,
    os_exit,
    patch_workbook,
    patch_workbook_code,
    stderr_noise,
)


@dataclass(frozen=True)
class Expect:
    score: str  # "full" | "zero" | "first_zero"
    status: str = "ok"
    short_timeout: bool = False  # a case that burns cell timeouts: grade it with short ones
    os_level: bool = False  # defended by the sandbox: graded only when it is on
    notebook_limit: int = 0  # a notebook time limit of its own (0: the gate's)


def loop_top_level(course, chapter):
    return variants.insert(variants.solved(course, chapter), "while True:\n    pass\n")


def loop_ignores_interrupt(course, chapter):
    code = "while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\n"
    return variants.insert(variants.solved(course, chapter), code)


def sys_exit(course, chapter):
    return variants.insert(variants.solved(course, chapter), "import sys\nsys.exit()\n")


def huge_output(course, chapter):
    """A flood at the top and in every call of the first exercise: each over every cap (a cell's
    100 000 bytes; together, the notebook's 2 MB). 2 MB per call, not more: at 10 MB a hidden test's
    three calls took over 50 s of wall time at load 12 per core, which measured only the machine."""
    first, defs = first_answer_defs(course, chapter)
    noisy = "\n".join(f"_quiet_{n} = {n}\ndef {n}(*args, **kwargs):\n    print('x' * 2_000_000)\n"
                      f"    return _quiet_{n}(*args, **kwargs)" for k, n in defs if k == "def")
    nb = variants.solved(course, chapter)
    nb = variants.with_answer(nb, first, variants.solution_answers(course, chapter)[first] + "\n" + noisy + "\n")
    return variants.insert(nb, "print('y' * 10_000_000)\nfor i in range(100_000):\n    print(i)\n")


def asks_input(course, chapter):
    return variants.insert(variants.solved(course, chapter), "name = input('Your name? ')\n")


def always_equal(course, chapter):
    return cheat_answers(course, chapter)


SHADOW_CODE = ("def fresh(*args, **kwargs):\n    return AlwaysEqual()\n"
               "FakeLLM = scenarios = wb = checks = AlwaysEqual()\n")


def shadow_names(course, chapter):
    return variants.insert(cheat_answers(course, chapter), ALWAYS_EQUAL + SHADOW_CODE)


def patch_code(course, chapter):
    code = ALWAYS_EQUAL + '''
import workbook.checks
def _fake_fresh(*args, **kwargs):
    return AlwaysEqual()
workbook.checks.fresh.__code__ = _fake_fresh.__code__
'''
    return variants.insert(cheat_answers(course, chapter), code)


def replace_modules(course, chapter):
    code = ALWAYS_EQUAL + '''
import sys, types
import workbook
fake = types.ModuleType("workbook.checks")
fake.fresh = lambda *args, **kwargs: AlwaysEqual()
fake.__getattr__ = lambda name: AlwaysEqual()
sys.modules["workbook.checks"] = fake
workbook.checks = fake
'''
    return variants.insert(cheat_answers(course, chapter), code)


def patch_builtins(course, chapter):
    code = ALWAYS_EQUAL + '''
import builtins
_real_isinstance, _real_callable = builtins.isinstance, builtins.callable
# Subtle enough to keep the kernel working, so the tests are the only ones fooled.
builtins.isinstance = lambda obj, types: type(obj).__name__ == "AlwaysEqual" or _real_isinstance(obj, types)
builtins.callable = lambda obj: True
'''
    return variants.insert(cheat_answers(course, chapter), code)


def swallow_errors(course, chapter):
    code = '''
import ast
from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
shell = get_ipython()
shell.set_custom_exc((BaseException,), lambda *args, **kwargs: None)
InteractiveShell.showtraceback = lambda *args, **kwargs: None
class DropAsserts(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()
    def visit_Raise(self, node):
        return ast.Pass()
shell.ast_transformers.append(DropAsserts())
'''
    return variants.insert(variants.stub(course, chapter), code)


def read_solutions(course, chapter):
    """Answers that exec the solution file, and print what the gradebook and notebook reveal."""
    files = sorted({str(course.solution_py(chapter)), str(course.solution_py(chapter).resolve()),
                    str(course.solution_ipynb(chapter).resolve())})
    dbs = [str(course.gradebook)] + [str(course.work / f"worker{i}" / "gradebook.db") for i in range(4)]
    code = f'''
import json, os, sqlite3
for _path in {files!r} + [os.path.join(os.getcwd(), {chapter + ".ipynb"!r})]:
    try:
        with open(_path, encoding="utf-8") as _f:
            _text = _f.read()
    except Exception as _e:
        print("blocked:", type(_e).__name__)
        continue
    if _path.endswith(".ipynb"):
        _text = "\\n".join("".join(c["source"]) for c in json.loads(_text)["cells"] if c["cell_type"] == "code")
    print("LEAKED", _path)
    if "BEGIN SOLUTION" in _text:
        exec(_text)
        break
for _db in {dbs!r}:
    try:
        print("LEAKED", sqlite3.connect(_db).execute("SELECT source FROM source_cell").fetchall())
    except Exception as _e:
        print("blocked:", type(_e).__name__)
'''
    nb = variants.stub(course, chapter)
    for grade_id in variants.answer_ids(nb):
        nb = variants.with_answer(nb, grade_id, code)
    return nb


def edited_tests(course, chapter):
    nb = variants.stub(course, chapter)
    for test in notebooks.chapter_tests(nb):
        cell = variants._cell(nb, test["grade_id"])
        cell.source = '"""Edited by the student."""\npass\n'
        cell.metadata.nbgrader["points"] = 100
    return nb


def _delete_tests(nb):
    ids = {t["grade_id"] for t in notebooks.chapter_tests(nb)}
    nb.cells = [c for c in nb.cells if notebooks.nbmeta(c).get("grade_id") not in ids]
    return nb


def deleted_tests(course, chapter):
    return _delete_tests(variants.stub(course, chapter))


def deleted_tests_solved(course, chapter):
    return _delete_tests(variants.solved(course, chapter))


# The grader's own defences: the same on every chapter, so they run on the pilot chapter
# (and everywhere with GATES_HOSTILE=all). patch_builtins, swallow_errors, patch_code and
# replace_modules once attacked the in-kernel guard's snapshot; under the judge they show that
# nothing the kernel does to its builtins, IPython's error display or its workbook modules reaches
# a test: the judge has its own builtins and workbook, and the kernel's reports decide nothing.
GRADER_CASES = {
    "loop_in_function": (loop_in_function, Expect("first_zero", "timeout", short_timeout=True)),
    "loop_top_level": (loop_top_level, Expect("full", "timeout", short_timeout=True)),
    "loop_ignores_interrupt": (loop_ignores_interrupt, Expect("zero", "timeout", short_timeout=True)),
    "os_exit": (os_exit, Expect("zero", "dead_kernel")),
    "sys_exit": (sys_exit, Expect("full")),
    "huge_output": (huge_output, Expect("full")),
    "input": (asks_input, Expect("full")),
    "patch_builtins": (patch_builtins, Expect("zero")),
    "swallow_errors": (swallow_errors, Expect("zero")),
    "patch_code": (patch_code, Expect("zero")),
    "replace_modules": (replace_modules, Expect("zero")),
    "read_solutions": (read_solutions, Expect("zero")),
    "edited_tests": (edited_tests, Expect("zero")),
    "deleted_tests": (deleted_tests, Expect("zero")),
    "always_equal": (always_equal, Expect("zero")),  # implied by shadow_names on other chapters
}


def cheats_everywhere(course, chapter):
    """shadow_names and patch_workbook in one notebook: answers equal to anything, with the test
    vocabulary shadowed and every public workbook function replaced."""
    return variants.insert(cheat_answers(course, chapter), ALWAYS_EQUAL + patch_workbook_code() + SHADOW_CODE)


def noisy_without_tests(course, chapter):
    """stderr_noise and deleted_tests_solved in one notebook: correct, noisy answers whose
    notebook lost its test cells."""
    return _delete_tests(stderr_noise(course, chapter))


# Each alone, once, on the pilot chapter (GRADER_CASES)...
SINGLE_CHAPTER_CASES = {
    "shadow_names": (shadow_names, Expect("zero")),
    "patch_workbook": (patch_workbook, Expect("zero")),
    "deleted_tests_solved": (deleted_tests_solved, Expect("full")),
    "stderr_noise": (stderr_noise, Expect("full")),
}
# ...and in pairs on every chapter, as these also test the chapter's own tests (type checks,
# fresh(), quiet solutions, independent test cells). A pair proves what each of its cases does:
# two cheats that only make comparisons true add up (either one getting through earns points, so
# the pair scores more than zero), and on a correct notebook any defence that fails costs points.
CHAPTER_CASES = {
    "cheats_everywhere": (cheats_everywhere, Expect("zero")),
    "noisy_without_tests": (noisy_without_tests, Expect("full")),
}
CASES = {**GRADER_CASES, **SINGLE_CHAPTER_CASES, **CHAPTER_CASES}
