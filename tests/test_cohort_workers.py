"""A dead grading worker costs only its own submission (issue 25, item 6): the grading function is
a double that kills its own worker process (os.kill) on one chosen submission."""

import io
import os
import signal
import sqlite3
import time

from autograder.course import Course
from autograder.pipeline import cohort, gradebook
from autograder.settings import Limits

VICTIM = ("carol", "01_b")  # grading this submission kills the worker that holds it


def graded(student, chapters, slot) -> list[dict]:
    """The records a grading double returns: full marks, and which process and slot graded them."""
    return [{"student": student, "chapter": c, "status": "ok", "score": 1.0, "max_score": 1.0,
             "pid": os.getpid(), "slot": slot} for c in chapters]


def kill_on_victim(course, student, chapters, limits, slot=None):
    """A stand-in for grading.grade_student, run inside the worker process."""
    if (student, chapters[0]) == VICTIM:
        os.kill(os.getpid(), signal.SIGKILL)
    return slot, graded(student, chapters, slot)


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
    done = sorted(pair for _, pairs in merged for pair in pairs)
    assert done == sorted(key for key in rows if key != VICTIM), "each graded submission merged once, the dead one not"
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
    return slot, graded(student, chapters, slot)


def test_a_student_two_workers_graded_is_merged_submission_by_submission(tmp_path, monkeypatch):
    """A free worker takes a chapter of a student another worker holds; each worker's gradebook
    then gives the master only the submissions it graded (its copy may hold old rows of others)."""
    chapters = ["00_a", "01_b", "02_c"]
    course = _course(tmp_path, ["alice", "bob"], chapters)
    merged = []
    monkeypatch.setattr(gradebook, "ensure_assignments", lambda course, chapters: [])
    monkeypatch.setattr(gradebook, "worker_copy", lambda course, slot: None)
    monkeypatch.setattr(gradebook, "merge", lambda master, db, pairs: merged.append((db.parent.name, pairs)))
    records = cohort.grade(course, workers=2, limits=Limits(sandbox="none"), out=io.StringIO(),
                           grade_one=wait_for_alice)
    assert (course.root / "marks" / "alice-02_c").exists(), "alice was graded while bob's first chapter waited"
    graded = {(r["student"], r["chapter"]): f"worker{r['slot']}" for r in records}
    assert len({graded[("bob", c)] for c in chapters}) == 2, "the free worker helped with bob's chapters"
    assert sorted((pair, slot) for slot, pairs in merged for pair in pairs) == sorted(
        (pair, slot) for pair, slot in graded.items()), "each submission merged once, from its own worker"


def test_merge_replaces_only_the_submissions_a_worker_graded(tmp_path):
    """A worker's copy holds an old row of a chapter another worker re-graded: never merged back."""
    master, worker = tmp_path / "master.db", tmp_path / "worker.db"
    for db in (master, worker):
        con = sqlite3.connect(db)
        con.executescript(SCHEMA)
        con.close()

    def put(db, student, chapter, score):
        con = sqlite3.connect(db)
        with con:
            con.execute("INSERT OR IGNORE INTO student (id) VALUES (?)", (student,))
            sa = f"{student}-{chapter}-{score}"
            con.execute("INSERT INTO submitted_assignment (id, assignment_id, student_id) VALUES (?, ?, ?)",
                        (sa, chapter, student))
            con.execute("INSERT INTO submitted_notebook (id, assignment_id) VALUES (?, ?)", (sa + "-nb", sa))
            con.execute("INSERT INTO grade (id, notebook_id, auto_score) VALUES (?, ?, ?)", (sa + "-g", sa + "-nb", score))
        con.close()
    put(master, "bob", "01_b", 5.0)  # the fresh grade another worker merged
    put(worker, "bob", "01_b", 1.0)  # the old row this worker's copy started with
    put(worker, "bob", "00_a", 3.0)  # what this worker graded
    gradebook.merge(master, worker, [("bob", "00_a")])
    con = sqlite3.connect(master)
    scores = dict(con.execute("SELECT a.name, g.auto_score FROM grade g JOIN submitted_notebook n ON n.id = g.notebook_id "
                              "JOIN submitted_assignment sa ON sa.id = n.assignment_id JOIN assignment a ON a.id = sa.assignment_id"))
    con.close()
    assert scores == {"01_b": 5.0, "00_a": 3.0}, scores


SCHEMA = """
CREATE TABLE assignment (id TEXT PRIMARY KEY, name TEXT UNIQUE);
INSERT INTO assignment VALUES ('00_a', '00_a'), ('01_b', '01_b');
CREATE TABLE student (id TEXT PRIMARY KEY);
CREATE TABLE submitted_assignment (id TEXT PRIMARY KEY, assignment_id TEXT, student_id TEXT,
                                   UNIQUE (assignment_id, student_id));
CREATE TABLE submitted_notebook (id TEXT PRIMARY KEY, assignment_id TEXT);
CREATE TABLE grade (id TEXT PRIMARY KEY, notebook_id TEXT, auto_score REAL);
CREATE TABLE comment (id TEXT PRIMARY KEY, notebook_id TEXT);
"""
