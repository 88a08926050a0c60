"""What the judge costs: the same cohort graded with `grade --workers 2` in bubblewrap, its test
cells judged out of process (today's grader) and run inside the kernel (the grader before the
judge, still used for the chapters in settings.NOT_YET_JUDGED). Rounds alternate and the fastest
of each counts, so a burst of load from elsewhere hits both alike.

BENCH_JUDGE_CHAPTERS (default 01_one_step,03_openai_format), BENCH_STUDENTS per chapter (default 8),
BENCH_ROUNDS (default 2).
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import time
from pathlib import Path

from autograder import cohort, gradebook, variants
from autograder.course import Course
from autograder.release import build_release
from autograder.sandbox import bwrap_problem
from autograder.settings import Limits
from bench import print_table


def _course(root: Path, chapters: list[str]) -> Course:
    real, course = Course(), Course(root=root)
    course.source.mkdir(parents=True)
    for chapter in chapters:
        (course.source / chapter).symlink_to(real.source / chapter, target_is_directory=True)
    course.release.mkdir()
    build_release(course, course.release)
    return course


def _grade(course: Course, cohort_nbs: dict, judge: bool, sandbox: str) -> float:
    shutil.rmtree(course.workspace, ignore_errors=True)
    for (student, chapter), nb in cohort_nbs.items():
        variants.save(nb, course.submitted / student / chapter / f"{chapter}.ipynb")
    gradebook.ensure_assignments(course, sorted({c for _, c in cohort_nbs}))
    started = time.monotonic()
    cohort.grade(course, workers=2, limits=Limits(sandbox=sandbox, judge=judge), out=io.StringIO())
    return time.monotonic() - started


def main() -> None:
    chapters = os.environ.get("BENCH_JUDGE_CHAPTERS", "01_one_step,03_openai_format").split(",")
    size, rounds = int(os.environ.get("BENCH_STUDENTS", "8")), int(os.environ.get("BENCH_ROUNDS", "2"))
    sandbox = "none" if bwrap_problem() else "bwrap"
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as tmp:
        course = _course(Path(tmp) / "course", chapters)
        nbs = {}
        for chapter in chapters:
            kinds = [variants.solved(course, chapter), variants.stub(course, chapter)]
            for i in range(size):
                nbs[(f"s{i:03}", chapter)] = kinds[i % 2]
        load = os.getloadavg()
        best = {True: float("inf"), False: float("inf")}
        for _ in range(rounds):
            for judge in (False, True):
                best[judge] = min(best[judge], _grade(course, nbs, judge, sandbox))
        after = os.getloadavg()
    n = len(nbs)
    print(f"{n} submissions ({size} per chapter of {', '.join(chapters)}: solved and untouched), "
          f"--workers 2, sandbox {sandbox}, fastest of {rounds}; load average {load[0]:.2f} before, "
          f"{after[0]:.2f} after\n")
    print_table(["how test cells run", "total s", "s / submission"],
                [["in the kernel (before the judge)", f"{best[False]:.1f}", f"{best[False] / n:.2f}"],
                 ["in the judge (out of process)", f"{best[True]:.1f}", f"{best[True] / n:.2f}"]])
    print(f"\nthe judge's cost: {100 * (best[True] - best[False]) / best[False]:+.1f} % per submission")


if __name__ == "__main__":
    main()
