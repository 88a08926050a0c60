"""Grade one student's submissions with nbgrader autograde, inside one worker process."""

from __future__ import annotations

import time
from pathlib import Path

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.pipeline import files, gradebook, results
from autograder.settings import Limits

# Cells of one submitted notebook the grader runs: each costs the grader a few ms of its own (not
# the notebook's CPU limit), and red team 17's 60,000 empty cells held a worker for 10 minutes.
MAX_CELLS = 2_000


def pool_context():
    """Workers start from a clean forkserver with nbgrader imported: fast, and safe to use from a
    process that already runs threads (plain fork could inherit a held lock and hang)."""
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["autograder.pipeline.grading", "nbgrader.converters", "nbclient"])
    return ctx


def quiet() -> None:
    """nbgrader's gradebook emits SQLAlchemy warnings on every autograde; they mean nothing here."""
    import warnings

    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)


def grade_student(course: Course, student: str, chapters: list[str], limits: Limits,
                  slot: int) -> tuple[int, list[dict]]:
    """Autograde `student`'s chapters into worker `slot`'s gradebook; save and return the results."""
    from autograder.settings import nbgrader_config

    db = course.work / f"worker{slot}" / "gradebook.db"
    config = nbgrader_config(course, db=f"sqlite:///{db}", limits=limits)
    records = []
    for chapter in chapters:
        try:
            records.append(_grade_one(course, config, db, student, chapter, limits))
        except Exception as e:  # one broken submission never stops the others
            record = results.failed(course, student, chapter, f"grading failed: {e!r}", limits.sandbox)
            results.save(course, record)
            records.append(record)
    return slot, records


def _grade_one(course: Course, config, db: Path, student: str, chapter: str, limits: Limits) -> dict:
    from nbgrader.converters import Autograde

    from autograder import nbgrader_run

    started, message = time.monotonic(), ""
    # A stale autograded copy must never stand in for this run's result.
    files.clear(course.autograded / student / chapter, within=course.workspace)
    too_many = _too_many_cells(course.submitted / student / chapter / f"{chapter}.ipynb")
    if too_many:
        record = results.failed(course, student, chapter, too_many, limits.sandbox)
        results.save(course, record)
        return record
    for _ in range(2):
        try:
            log, message = nbgrader_run.run(Autograde, config, chapter, student), ""
            break
        except AutograderError as e:
            log, message = str(e), str(e)
            if "didn't respond" not in message:  # only a kernel that never started is retried
                break
    files.write_text(course.work / "logs" / student / f"{chapter}.log", log, within=course.workspace)
    try:
        record = results.build(course, student, chapter, gradebook.scores(db, student, chapter),
                               time.monotonic() - started, message, sandbox=limits.sandbox)
    except AutograderError as e:  # e.g. the autograded notebook is unreadable
        record = results.build(course, student, chapter, {}, time.monotonic() - started, str(e),
                               sandbox=limits.sandbox)
        record["status"] = "error"
    if message:
        record["status"] = "error"
    results.save(course, record)
    return record


def _too_many_cells(path: Path) -> str:
    """Why a notebook of more than MAX_CELLS cells is not run, else "" (an unreadable one is
    nbgrader's to report)."""
    try:
        cells = len(notebooks.read(path).cells)
    except AutograderError:
        return ""
    if cells <= MAX_CELLS:
        return ""
    return (f"the notebook has {cells:,} cells and the grader runs at most {MAX_CELLS:,}: "
            "delete the cells you added that you do not need, and submit again")
