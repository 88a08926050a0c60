"""`grade`: autograde a cohort in N parallel workers, sharded by student, with progress and ETA."""

from __future__ import annotations

import dataclasses
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from autograder import cluster as dask_cluster
from autograder import gradebook, grading, results, sandbox
from autograder.course import CHAPTER_ID, AutograderError, Course
from autograder.progress_line import describe, line
from autograder.settings import Limits


def submissions(course: Course) -> dict[str, list[str]]:
    """student -> chapters with a submitted notebook, from submitted/<student>/<chapter>/."""
    found: dict[str, list[str]] = {}
    if not course.submitted.is_dir():
        return found
    for nb in sorted(course.submitted.glob("*/*/*.ipynb")):
        student, chapter = nb.parent.parent.name, nb.parent.name
        if CHAPTER_ID.match(chapter) and nb.stem == chapter:
            found.setdefault(student, []).append(chapter)
    return found


def grade(course: Course, workers: int = 2, limits: Limits | None = None,
          students: list[str] | None = None, chapters: list[str] | None = None,
          limits_for: dict[str, Limits] | None = None, out=sys.stdout,
          cluster: str | None = None, force: bool = False) -> list[dict]:
    """Grade every collected submission (optionally only some students/chapters): in `workers`
    local processes, or with `cluster` (a Dask scheduler's address, or "local") one task per
    submission on a Dask cluster (autograder/cluster.py)."""
    limits, limits_for = limits or Limits(), limits_for or {}
    # Decide once, before anything is graded: bubblewrap, or a clear refusal, or none on purpose.
    mode = sandbox.resolve(limits.sandbox)
    limits = dataclasses.replace(limits, sandbox=mode)
    limits_for = {s: dataclasses.replace(lim, sandbox=sandbox.resolve(lim.sandbox)) for s, lim in limits_for.items()}
    todo = submissions(course)
    if students:
        missing = sorted(set(students) - set(todo))
        if missing:
            raise AutograderError(f"no submissions for student(s) {', '.join(missing)} in {course.submitted}")
        todo = {s: todo[s] for s in students}
    if chapters:
        for chapter in chapters:
            course.check_chapter(chapter)
        todo = {s: [c for c in cs if c in chapters] for s, cs in todo.items()}
    todo = {s: cs for s, cs in todo.items() if cs}
    if not todo:
        raise AutograderError(f"nothing to grade in {course.submitted}: run `python -m autograder collect` first")
    known = set(course.chapters())
    unknown = sorted({c for cs in todo.values() for c in cs} - known)
    if unknown:
        raise AutograderError(f"submissions for unknown chapter(s) {', '.join(unknown)}; "
                              f"the course has {', '.join(sorted(known)) or 'none'}")
    added = gradebook.ensure_assignments(course, sorted({c for cs in todo.values() for c in cs}))
    if added:
        print(f"gradebook: recorded {', '.join(added)}", file=out)
    if mode == "none":
        print("WARNING: --sandbox none: submissions run with your permissions and can read and change "
              "anything you can (solutions, other grades); every row's notes say sandbox=none", file=out)
    if cluster:
        started = time.monotonic()
        records = dask_cluster.grade(course, cluster, todo, limits, limits_for, workers=workers,
                                     force=force, out=out)
        print(f"graded {len(records)} submission(s) in {time.monotonic() - started:.1f} s", file=out)
        return sorted(records, key=lambda r: (r["student"], r["chapter"]))
    workers = max(1, min(workers, len(todo)))
    for slot in range(workers):
        gradebook.worker_copy(course, slot)
    total = sum(len(cs) for cs in todo.values())
    print(f"grading {total} submission(s) of {len(todo)} student(s) with {workers} worker(s)"
          f"{', each kernel in a bubblewrap sandbox' if mode == 'bwrap' else ''}", file=out)
    started, done, records, graded_by = time.monotonic(), 0, [], {}
    # Biggest shards first, so a student with many chapters does not finish last alone.
    order = sorted(todo, key=lambda s: (-len(todo[s]), s))
    ctx = grading.pool_context()
    slots = ctx.Queue()
    for slot in range(workers):
        slots.put(slot)
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=grading.init_worker,
                             initargs=(slots,)) as pool:
        futures = {pool.submit(grading.grade_student, course, s, todo[s], limits_for.get(s, limits)): s
                   for s in order}
        for future in as_completed(futures):
            student = futures[future]
            try:
                slot, got = future.result()
            except Exception as e:  # a worker process died: say so for each of its submissions
                slot, got = None, [_crashed(course, student, c, e) for c in todo[student]]
            graded_by.setdefault(slot, []).append(student)
            records += got
            done += len(got)
            print(line(done, total, started, describe(got)), file=out, flush=True)
    for slot, names in graded_by.items():
        if slot is not None:
            try:
                gradebook.merge(course.gradebook, course.work / f"worker{slot}" / "gradebook.db", names)
            except Exception as e:  # results/ still holds every grade; say which rows are missing
                print(f"WARNING: could not merge worker {slot}'s gradebook ({e}); its students "
                      f"{', '.join(names)} are in work/results but not in gradebook.db", file=out)
    elapsed = time.monotonic() - started
    print(f"graded {total} submission(s) in {elapsed:.1f} s ({elapsed / total:.2f} s each)", file=out)
    return sorted(records, key=lambda r: (r["student"], r["chapter"]))


def _crashed(course: Course, student: str, chapter: str, error: Exception) -> dict:
    record = results.failed(course, student, chapter, f"grading worker crashed: {error!r}")
    results.save(course, record)
    return record
