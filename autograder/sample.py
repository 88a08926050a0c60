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

from autograder import hostile, variants
from autograder.course import AutograderError, Course

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


def _students(course: Course, chapters: list[str]):
    """(relative path, notebook) for every sample submission."""
    first, second = chapters[0], chapters[-1]
    for chapter in chapters:
        first_ex = variants.answer_ids(variants.stub(course, chapter))[:1]
        yield f"ada/{chapter}/{chapter}.ipynb", variants.solved(course, chapter)
        yield f"ben_{chapter}.ipynb", variants.solved(course, chapter, only=first_ex)
        yield f"cy/{chapter}.ipynb", variants.stub(course, chapter)
    yield f"dan/{first}/{first}.ipynb", hostile.loop_in_function(course, first)
    yield f"dan_{second}.ipynb", hostile.stderr_noise(course, second)
    yield f"eve/{first}.ipynb", hostile.patch_workbook(course, first)
    yield f"eve_{second}.ipynb", hostile.os_exit(course, second)


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
