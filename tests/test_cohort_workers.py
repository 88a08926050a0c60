"""A dead grading worker costs only its own submission (issue 25, item 6): the grading function is
a double that kills its own worker process (os.kill) on one chosen submission."""

import io
import os
import signal
import time

from autograder import cohort, gradebook
from autograder.course import Course
from autograder.settings import Limits

VICTIM = ("carol", "01_b")  # grading this submission kills the worker that holds it


def kill_on_victim(course, student, chapters, limits, slot=None):
    """A stand-in for grading.grade_student, run inside the worker process."""
    if (student, chapters[0]) == VICTIM:
        os.kill(os.getpid(), signal.SIGKILL)
    return slot, [{"student": student, "chapter": c, "status": "ok", "score": 1.0, "max_score": 1.0,
                   "pid": os.getpid()} for c in chapters]


def _course(tmp_path, students, chapters) -> Course:
    course = Course(root=tmp_path)
    for chapter in chapters:
        (course.source / chapter).mkdir(parents=True)
        (course.source / chapter / f"{chapter}.py").write_text("# a chapter\n")
        for student in students:
            nb = course.submitted / student / chapter / f"{chapter}.ipynb"
            nb.parent.mkdir(parents=True, exist_ok=True)
            nb.write_text("{}")
    return course


def test_a_killed_worker_costs_only_the_submission_it_was_grading(tmp_path, monkeypatch):
    students, chapters = ["alice", "bob", "carol", "dave", "erin", "frank"], ["00_a", "01_b", "02_c"]
    course = _course(tmp_path, students, chapters)
    merged = []
    monkeypatch.setattr(gradebook, "ensure_assignments", lambda course, chapters: [])
    monkeypatch.setattr(gradebook, "worker_copy", lambda course, slot: None)
    monkeypatch.setattr(gradebook, "merge", lambda master, db, names: merged.append((db.parent.name, names)))
    out = io.StringIO()
    records = cohort.grade(course, workers=2, limits=Limits(sandbox="none"), out=out, grade_one=kill_on_victim)
    rows = {(r["student"], r["chapter"]): r for r in records}
    assert sorted(rows) == sorted((s, c) for s in students for c in chapters), "one row per submission"
    assert rows[VICTIM]["status"] == "error" and "worker died" in rows[VICTIM]["message"], rows[VICTIM]
    assert "SIGKILL" in rows[VICTIM]["message"] or "-9" in rows[VICTIM]["message"], rows[VICTIM]
    others = [r for key, r in rows.items() if key != VICTIM]
    assert all(r["status"] == "ok" for r in others), [r for r in others if r["status"] != "ok"]
    assert rows[("carol", "02_c")]["pid"] != rows[("carol", "00_a")]["pid"], (
        "the victim's other chapters were graded by a fresh worker")
    # At most the two workers and the one that replaced the dead one. (Two is right too: on a busy
    # machine one worker and the fresh one can finish every submission before the other starts.)
    assert len({r["pid"] for r in others}) <= 3, "two workers, and one fresh one after the death"
    for student in set(students) - {VICTIM[0]}:
        assert len({rows[(student, c)]["pid"] for c in chapters}) == 1, f"{student}'s chapters stay with one worker"
    assert sorted(s for _, names in merged for s in names).count("carol") >= 1, merged
    assert out.getvalue().count("ERROR") == 1, out.getvalue()


def test_workers_that_keep_dying_still_end_the_run(tmp_path, monkeypatch):
    course = _course(tmp_path, ["carol"], ["01_b"])
    monkeypatch.setattr(gradebook, "ensure_assignments", lambda course, chapters: [])
    monkeypatch.setattr(gradebook, "worker_copy", lambda course, slot: None)
    monkeypatch.setattr(gradebook, "merge", lambda master, db, names: None)
    [record] = cohort.grade(course, workers=2, limits=Limits(sandbox="none"), out=io.StringIO(),
                            grade_one=kill_on_victim)
    assert record["status"] == "error", "graded once, never retried forever"


def wait_for_alice(course, student, chapters, limits, slot=None):
    """bob's first chapter waits until alice's three are graded: her worker is then free first."""
    marks = course.root / "marks"
    if student == "bob" and chapters == ["00_a"]:
        deadline = time.monotonic() + 60
        while not (marks / "alice-02_c").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    marks.mkdir(exist_ok=True)
    (marks / f"{student}-{chapters[0]}").write_text("")
    return slot, [{"student": student, "chapter": c, "status": "ok", "score": 1.0, "max_score": 1.0,
                   "pid": os.getpid()} for c in chapters]


def test_a_free_worker_never_takes_a_chapter_of_a_student_another_worker_holds(tmp_path, monkeypatch):
    """Two workers' gradebooks both holding one student could merge a stale row over a fresh one."""
    chapters = ["00_a", "01_b", "02_c"]
    course = _course(tmp_path, ["alice", "bob"], chapters)
    monkeypatch.setattr(gradebook, "ensure_assignments", lambda course, chapters: [])
    monkeypatch.setattr(gradebook, "worker_copy", lambda course, slot: None)
    monkeypatch.setattr(gradebook, "merge", lambda master, db, names: None)
    records = cohort.grade(course, workers=2, limits=Limits(sandbox="none"), out=io.StringIO(),
                           grade_one=wait_for_alice)
    assert (course.root / "marks" / "alice-02_c").exists(), "alice was graded while bob's first chapter waited"
    pids = {r["student"]: {x["pid"] for x in records if x["student"] == r["student"]} for r in records}
    assert len(pids["bob"]) == 1 and len(pids["alice"]) == 1, pids
