"""What a student waits for when they press Validate: nbgrader's own Validator (what the button's
handler runs) on each chapter's released notebook with the solution's answers filled in, as a
finished student's notebook is. Wall seconds include the kernel's start; chapters run one at a time.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from nbgrader.validator import Validator
from traitlets.config import Config

from autograder.course import Course
from autograder.gates import variants
from bench import print_table

COURSE = Course()


def validate_seconds(chapter: str, dest: Path) -> tuple[float, str]:
    """(wall seconds, verdict) for one finished chapter."""
    shutil.copytree(COURSE.release / chapter, dest / chapter)
    notebook = variants.save(variants.solved(COURSE, chapter), dest / chapter / f"{chapter}.ipynb")
    start = time.perf_counter()
    result = Validator(config=Config()).validate(str(notebook))
    seconds = time.perf_counter() - start
    return seconds, "passed" if not any(result.values()) else "failed: " + ", ".join(k for k, v in result.items() if v)


def main() -> None:
    chapters = COURSE.chapters()
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
        rows = [(chapter, *validate_seconds(chapter, Path(tmp))) for chapter in chapters]
    seconds = [s for _, s, _ in rows]
    print_table(["chapter (finished)", "Validate s", "verdict"],
                [[c, f"{s:.2f}", v] for c, s, v in rows]
                + [["median / slowest", f"{statistics.median(seconds):.2f} / {max(seconds):.2f}", ""]])


if __name__ == "__main__":
    main()
