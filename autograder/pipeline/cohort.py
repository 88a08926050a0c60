"""`grade`: autograde a cohort in N parallel workers, sharded by student, with progress and ETA."""

from __future__ import annotations

import dataclasses
import sys
import time
from multiprocessing.connection import wait

from autograder.cluster import cluster as dask_cluster
from autograder.course import CHAPTER_ID, AutograderError, Course
from autograder.pipeline import gradebook, grading, results
from autograder.pipeline.progress_line import describe, line
from autograder.sandbox import sandbox
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
          cluster: str | None = None, force: bool = False, grade_one=grading.grade_student) -> list[dict]:
    """Grade every collected submission (optionally only some students/chapters): in `workers`
    local processes, or with `cluster` (a Dask scheduler's address, or "local") one task per
    submission on a Dask cluster (autograder/cluster/cluster.py). `grade_one` (a module-level function, as
    grading.grade_student) grades one student's chapters in a worker; tests pass a double."""
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
    for slot, student, got in _pool(course, todo, workers, lambda s: limits_for.get(s, limits), grade_one):
        if slot is not None:
            graded_by.setdefault(slot, []).extend((student, r["chapter"]) for r in got)
        records += got
        done += len(got)
        print(line(done, total, started, describe(got)), file=out, flush=True)
    for slot, done_here in graded_by.items():
        try:
            gradebook.merge(course.gradebook, course.work / f"worker{slot}" / "gradebook.db", done_here)
        except Exception as e:  # results/ still holds every grade; say which rows are missing
            names = sorted({f"{s}/{c}" for s, c in done_here})
            print(f"WARNING: could not merge worker {slot}'s gradebook ({e}); its submissions "
                  f"{', '.join(names)} are in work/results but not in gradebook.db", file=out)
    elapsed = time.monotonic() - started
    print(f"graded {total} submission(s) in {elapsed:.1f} s ({elapsed / total:.2f} s each)", file=out)
    return sorted(records, key=lambda r: (r["student"], r["chapter"]))


def _serve(conn, slot: int, grade_one) -> None:
    """A worker process: grade the submissions the parent sends, one at a time, into the
    gradebook of `slot`, until it sends None."""
    grading.quiet()
    while (task := conn.recv()) is not None:
        course, student, chapter, limits = task
        conn.send(grade_one(course, student, [chapter], limits, slot=slot)[1])


def _pool(course: Course, todo: dict[str, list[str]], workers: int, limits_of, grade_one):
    """Yield (slot, student, records) as `workers` processes grade `todo`, one submission each at a
    time. A student's chapters stay with one worker while it lives (biggest students first), unless
    another worker is free and no other student waits. A worker that dies costs only the
    submission it was grading (an `error` row, slot None); a fresh worker takes its slot and
    everything else still waiting."""
    ctx = grading.pool_context()
    waiting = {s: list(todo[s]) for s in sorted(todo, key=lambda s: (-len(todo[s]), s))}
    procs, conns, doing = {}, {}, {}  # slot -> process, its pipe, (student, chapter) it grades

    def start(slot: int) -> None:
        conns[slot], child = ctx.Pipe()
        procs[slot] = ctx.Process(target=_serve, args=(child, slot, grade_one))
        procs[slot].start()
        child.close()

    def give(slot: int, student: str | None) -> None:
        if not waiting.get(student):  # its next student: one no other worker holds, if any is left
            held = {s for s, _ in doing.values()}  # (else a chapter of one: merge() goes by submission)
            student = next((s for s in waiting if s not in held), next(iter(waiting), None))
        if student is None:
            return
        chapter = waiting[student].pop(0)
        if not waiting[student]:
            del waiting[student]
        doing[slot] = (student, chapter)
        conns[slot].send((course, student, chapter, limits_of(student)))

    try:
        for slot in range(workers):
            start(slot)
            give(slot, None)
        while doing:
            ready = wait([conns[s] for s in doing] + [procs[s].sentinel for s in doing])
            for slot in [s for s in list(doing) if conns[s] in ready or procs[s].sentinel in ready]:
                student, chapter = doing.pop(slot)
                try:
                    got = conns[slot].recv() if conns[slot].poll() else None
                except (EOFError, OSError):
                    got = None
                if got is None:  # it died: this submission is an error row, the rest goes on
                    procs[slot].join()
                    code = procs[slot].exitcode
                    yield None, student, [_crashed(course, student, chapter, f"exit code {code}")]
                    conns[slot].close()
                    if waiting:
                        start(slot)
                else:
                    yield slot, student, got
                give(slot, student)
    finally:
        for slot, process in procs.items():
            try:
                conns[slot].send(None)
            except OSError:
                pass
            process.join(timeout=30)
            if process.is_alive():
                process.kill()


def _crashed(course: Course, student: str, chapter: str, why: str) -> dict:
    record = results.failed(course, student, chapter, f"the grading worker died while grading it ({why})")
    results.save(course, record)
    return record
