"""The sample cohort under autograder/sample_cohort/: made from the chapters, never by hand.

Five students over the first two chapters, in the three layouts `collect` accepts:
ada (everything right), ben (first exercise only), cy (handed in untouched),
dan (an infinite loop in one chapter, stderr noise in the other),
eve (tampering with the workbook in one chapter, `os._exit` in the other).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from autograder.course import AutograderError, Course
from autograder.gates import variants

README = """\
# Sample cohort — generated, do not edit

Made by `python -m autograder sample-cohort` from the first chapters' notebooks, so it stays valid
when they change (a test fails when it is stale). `make grade` collects, grades, gives feedback
on, exports and reports this cohort in `autograder/work/demo/`.

| student | what they handed in |
|---|---|
| ada | everything right |
| ben | only the first exercise of each chapter |
| cy  | the released notebooks, untouched |
| dan | an infinite loop in one chapter; noisy stderr in the other |
| eve | tampering with the workbook in one chapter; `os._exit(1)` in the other |

The layouts are the three `collect` accepts: `ada/<chapter>/<chapter>.ipynb`,
`ben_<chapter>.ipynb`, `cy/<chapter>.ipynb` (and again for dan and eve).
"""


# dan's and eve's submissions. The quality gates grade them too, among the hostile cases in
# tests/hostile.py (which stays with the tests: the package ships only what the sample needs).
ALWAYS_EQUAL = '''\
class AlwaysEqual:
    """Looks equal to anything, is truthy, has every attribute: fools `==`-only tests."""
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    __le__ = __gt__ = __ge__ = __lt__
    def __hash__(self): return 0
    def __bool__(self): return True
    def __len__(self): return 1
    def __iter__(self): return iter([AlwaysEqual()])
    def __contains__(self, item): return True
    def __getattr__(self, name): return AlwaysEqual()
    def __getitem__(self, key): return AlwaysEqual()
    def __call__(self, *args, **kwargs): return AlwaysEqual()
    def __repr__(self): return "AlwaysEqual()"
'''

def cheat_answers(course: Course, chapter: str):
    """The released notebook whose every answer returns AlwaysEqual instead of working."""
    nb = variants.stub(course, chapter)
    for grade_id in variants.answer_ids(nb):
        defs = variants.defined_names(variants.solution_answers(course, chapter)[grade_id])
        lines = [ALWAYS_EQUAL]
        for kind, name in defs:
            if kind == "class":
                lines.append(f"{name} = AlwaysEqual()")
            else:
                lines.append(f"{kind} {name}(*args, **kwargs):\n    return AlwaysEqual()")
        nb = variants.with_answer(nb, grade_id, "\n".join(lines) + "\n")
    return nb


def first_answer_defs(course: Course, chapter: str) -> tuple[str, list[tuple[str, str]]]:
    """The first exercise's grade id and what its solution defines."""
    answers = variants.solution_answers(course, chapter)
    first = next(iter(answers))
    return first, variants.defined_names(answers[first])


def loop_in_function(course, chapter):
    """The solution, but every name the first exercise defines loops forever when called."""
    first, defs = first_answer_defs(course, chapter)
    nb = variants.solved(course, chapter)
    loops = "\n".join(f"{k if k != 'class' else 'def'} {n}(*args, **kwargs):\n    while True:\n        pass"
                      for k, n in defs)
    return variants.with_answer(nb, first, variants.solution_answers(course, chapter)[first] + "\n" + loops + "\n")


def os_exit(course, chapter):
    """The solution with a cell that ends the kernel before the tests."""
    return variants.insert(variants.solved(course, chapter), "import os\nos._exit(1)\n")


def stderr_noise(course, chapter):
    """Correct answers that log to stderr, warn, and print to stderr every time they are called."""
    nb = variants.solved(course, chapter)
    for grade_id, source in variants.solution_answers(course, chapter).items():
        wraps = "\n".join(
            f"{n} = _noisy({n})" for k, n in variants.defined_names(source) if k == "def")
        noisy = ("import functools, logging, sys, warnings\n"
                 "def _noisy(f):\n    @functools.wraps(f)\n    def wrapper(*args, **kwargs):\n"
                 "        print('debug: calling', f.__name__, file=sys.stderr)\n"
                 "        warnings.warn('a warning from ' + f.__name__)\n"
                 "        logging.getLogger('student').warning('a log line')\n"
                 "        return f(*args, **kwargs)\n    return wrapper\n")
        nb = variants.with_answer(nb, grade_id, source + "\n" + noisy + wraps + "\n")
    return nb


def patch_workbook(course, chapter):
    """Answers that equal anything, and every public workbook function replaced by one."""
    return variants.insert(cheat_answers(course, chapter), ALWAYS_EQUAL + patch_workbook_code())


def patch_workbook_code() -> str:
    """A cell that replaces every public function of every workbook module, and `fresh`."""
    return '''
import importlib, pkgutil
import workbook, workbook.checks
for info in pkgutil.iter_modules(workbook.__path__):
    try:
        module = importlib.import_module("workbook." + info.name)
    except Exception:
        continue
    for name, value in list(vars(module).items()):
        if callable(value) and not name.startswith("_"):
            setattr(module, name, AlwaysEqual())
def _fake_fresh(*args, **kwargs):
    return AlwaysEqual()
workbook.checks.fresh = _fake_fresh
'''


def _students(course: Course, chapters: list[str]):
    """(relative path, notebook) for every sample submission."""
    first, second = chapters[0], chapters[-1]
    for chapter in chapters:
        first_ex = variants.answer_ids(variants.stub(course, chapter))[:1]
        yield f"ada/{chapter}/{chapter}.ipynb", variants.solved(course, chapter)
        yield f"ben_{chapter}.ipynb", variants.solved(course, chapter, only=first_ex)
        yield f"cy/{chapter}.ipynb", variants.stub(course, chapter)
    yield f"dan/{first}/{first}.ipynb", loop_in_function(course, first)
    yield f"dan_{second}.ipynb", stderr_noise(course, second)
    yield f"eve/{first}.ipynb", patch_workbook(course, first)
    yield f"eve_{second}.ipynb", os_exit(course, second)


def build(course: Course, out: Path) -> list[Path]:
    """Write the sample cohort into the empty folder `out`."""
    chapters = course.chapters()[:2]
    if not chapters:
        raise AutograderError(f"the course has no chapters in {course.source}")
    written = [variants.save(nb, out / rel) for rel, nb in _students(course, chapters)]
    (out / "README.md").write_text(README, encoding="utf-8")
    return written


def regenerate(course: Course) -> list[str]:
    """Rebuild the committed sample cohort; return the lines to print."""
    target = course.sample_cohort
    with tempfile.TemporaryDirectory(prefix="sample-") as tmp:
        written = build(course, Path(tmp))
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(tmp, target)
    return [f"sample cohort: {len(written)} notebook(s) in {target}"]
