"""`demo` (`make grade`): collect -> grade -> feedback -> export -> report on the sample cohort."""

from __future__ import annotations

import shutil

from autograder.course import AutograderError, Course
from autograder.pipeline import cohort, collect, export, feedback
from autograder.sandbox import sandbox
from autograder.settings import Limits

# The demo's own limits, shorter than `grade`'s (30 s per cell, 300 s per notebook) so dan's
# infinite loop ends quickly; autograder/README.md states both, and the demo prints them.
DEMO_CELL_SECONDS, DEMO_NOTEBOOK_SECONDS = 10, 120


def demo(course: Course, workers: int = 2, out=print) -> None:
    """Run the whole pipeline in autograder/work/demo/, leaving the real workspace alone."""
    if not course.sample_cohort.is_dir():
        raise AutograderError(f"no sample cohort in {course.sample_cohort}: "
                              "run `python -m autograder sample-cohort`")
    demo_course = course.with_workspace(course.demo_workspace)
    shutil.rmtree(demo_course.workspace, ignore_errors=True)
    _show("collect", collect.collect(demo_course, course.sample_cohort), out)
    out("== grade")
    # The sample cohort is the course's own notebooks: without bubblewrap, grade it anyway and say so.
    mode = "auto" if sandbox.bwrap_problem() is None else "none"
    if mode == "none":
        out(f"note: {sandbox.bwrap_problem()}; grading the sample cohort without a sandbox. "
            f"A real cohort needs one: {sandbox.INSTALL_HINT}")
    out(f"limits: {DEMO_CELL_SECONDS} s per cell, {DEMO_NOTEBOOK_SECONDS} s per notebook (the demo's; "
        f"`grade` uses {Limits.cell_timeout} s and {Limits.notebook_timeout} s, `--timeout`)")
    cohort.grade(demo_course, workers=workers,
                 limits=Limits(cell_timeout=DEMO_CELL_SECONDS, notebook_timeout=DEMO_NOTEBOOK_SECONDS,
                               sandbox=mode))
    _show("feedback", feedback.feedback(demo_course, workers), out)
    _show("export", export.export(demo_course), out)
    _show("report", export.report(demo_course), out)
    out(f"Demo workspace: {demo_course.workspace} (grades.csv, feedback/, autograded/, gradebook.db)")


def _show(title: str, lines: list[str], out) -> None:
    out(f"== {title}")
    for line in lines:
        out(line)
