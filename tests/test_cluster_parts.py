"""The pieces of `grade --cluster` that need no cluster: task packing, file names, gradebook rows."""

import io
import json
import sqlite3
import threading

import pytest

from autograder.cluster import cluster, cluster_task
from autograder.course import AutograderError, Course
from autograder.pipeline import gradebook
from autograder.settings import Limits

SCHEMA = """
CREATE TABLE student (id TEXT PRIMARY KEY, first_name TEXT);
CREATE TABLE assignment (id TEXT PRIMARY KEY, name TEXT UNIQUE);
CREATE TABLE submitted_assignment (id TEXT PRIMARY KEY, assignment_id TEXT, student_id TEXT,
                                   UNIQUE (assignment_id, student_id));
CREATE TABLE submitted_notebook (id TEXT PRIMARY KEY, assignment_id TEXT);
CREATE TABLE grade (id TEXT PRIMARY KEY, notebook_id TEXT, auto_score REAL);
CREATE TABLE comment (id TEXT PRIMARY KEY, notebook_id TEXT);
INSERT INTO assignment VALUES ('a1', '01_one_step'), ('a2', '02_the_loop');
"""


def _db(path, rows=()):
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    for sql in rows:
        con.execute(sql)
    con.commit()
    con.close()
    return path


def _worker_db(tmp_path, suffix, score):
    return _db(tmp_path / f"worker{suffix}.db", [
        "INSERT INTO student VALUES ('ada', NULL)",
        f"INSERT INTO submitted_assignment VALUES ('sa{suffix}', 'a1', 'ada')",
        f"INSERT INTO submitted_notebook VALUES ('sn{suffix}', 'sa{suffix}')",
        f"INSERT INTO grade VALUES ('g{suffix}', 'sn{suffix}', {score})"])


def test_a_regraded_submission_replaces_its_rows_and_touches_nothing_else(tmp_path):
    master = _db(tmp_path / "master.db", [
        "INSERT INTO student VALUES ('ada', 'Ada')", "INSERT INTO student VALUES ('ben', NULL)",
        "INSERT INTO submitted_assignment VALUES ('old', 'a1', 'ada')",
        "INSERT INTO submitted_notebook VALUES ('oldnb', 'old')",
        "INSERT INTO grade VALUES ('oldg', 'oldnb', 1)",
        "INSERT INTO submitted_assignment VALUES ('ben1', 'a1', 'ben')",
        "INSERT INTO submitted_assignment VALUES ('ada2', 'a2', 'ada')"])
    rows = gradebook.submission_rows(_worker_db(tmp_path, 1, 3.0), "ada", "01_one_step")
    assert [len(rows[t]) - 1 for t in ("student", "submitted_assignment", "grade")] == [1, 1, 1]
    gradebook.put_submission(master, rows, "ada", "01_one_step")
    gradebook.put_submission(master, rows, "ada", "01_one_step")  # the same result twice: one row
    with sqlite3.connect(master) as con:
        assert con.execute("SELECT id FROM submitted_assignment ORDER BY id").fetchall() == [
            ("ada2",), ("ben1",), ("sa1",)]
        assert con.execute("SELECT id, auto_score FROM grade").fetchall() == [("g1", 3.0)]
        assert con.execute("SELECT first_name FROM student WHERE id='ada'").fetchone() == ("Ada",)


def test_rows_for_another_student_are_refused(tmp_path):
    master = _db(tmp_path / "master.db")
    rows = gradebook.submission_rows(_worker_db(tmp_path, 1, 3.0), "ada", "01_one_step")
    with pytest.raises(ValueError, match="another student"):
        gradebook.put_submission(master, rows, "ben", "01_one_step")
    rows["grade"][0] = ["id; DROP TABLE grade", "notebook_id", "auto_score"]
    with pytest.raises(ValueError, match="bad column names"):
        gradebook.put_submission(master, rows, "ada", "01_one_step")


@pytest.mark.parametrize("name", ["../escape.ipynb", "/etc/x", "a/../../b"])
def test_file_names_cannot_leave_their_folder(tmp_path, name):
    with pytest.raises(ValueError, match="refusing"):
        cluster_task.write_files(tmp_path / "in", {name: b"x"})
    with pytest.raises(ValueError, match="refusing"):
        cluster._record(Course(root=tmp_path), {
            "record": {"student": "ada", "chapter": "01_one_step"}, "autograded": {name: b"x"},
            "log": "", "rows": {}})
    assert not (tmp_path / "escape.ipynb").exists()


def test_the_key_changes_with_the_notebook_the_source_and_the_limits(tmp_path):
    course, chapter = Course(root=tmp_path), "01_one_step"
    (course.source / chapter).mkdir(parents=True)
    for name in (f"{chapter}.py", f"{chapter}.ipynb", "data.csv"):
        (course.source / chapter / name).write_text(name)
    folder = course.submitted / "ada" / chapter
    folder.mkdir(parents=True)
    (folder / f"{chapter}.ipynb").write_text("{}")
    task = cluster_task.pack(course, "ada", chapter, Limits())
    assert sorted(task.source) == [f"{chapter}.ipynb", "data.csv"], \
        "a chapter's jupytext source (the solutions' .py) never travels"
    assert cluster_task.pack(course, "ada", chapter, Limits()).key == task.key
    assert cluster_task.pack(course, "ada", chapter, Limits(cell_timeout=5)).key != task.key
    (folder / f"{chapter}.ipynb").write_text("{ }")
    assert cluster_task.pack(course, "ada", chapter, Limits()).key != task.key


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "tcp://nohost", "http://x:1"])
def test_a_bad_address_is_a_clear_error(address):
    with pytest.raises(AutograderError, match="--cluster wants"):
        cluster._connect(address, 1)


RELEASE = threading.Event()
GAVE_UP: list[str] = []  # stuck tasks that stopped waiting on their own (the run had not ended them)


def _stuck_or_failing(task, template):
    """A worker's grading: ben's raises, anyone else's never returns until the test ends."""
    if task.student == "ben":
        raise ValueError("boom")
    if not RELEASE.wait(600):  # a backstop only: the run's deadline ends the task long before
        GAVE_UP.append(task.student)
    return {}


def _stuck_course(tmp_path, students):
    course, chapter = Course(root=tmp_path), "01_one_step"
    (course.source / chapter).mkdir(parents=True)
    (course.source / chapter / f"{chapter}.ipynb").write_text("{}")
    for student in students:
        (course.submitted / student / chapter).mkdir(parents=True)
        (course.submitted / student / chapter / f"{chapter}.ipynb").write_text("{}")
    return course, {s: [chapter] for s in students}


def _grade_in_process(monkeypatch, course, todo, **cluster_kw):
    """cluster.grade on an in-process LocalCluster (no nanny: a stuck worker cannot be restarted,
    the harder case), with a 3-second deadline; returns the records by student. The run must end
    while its stuck tasks are still stuck (an observed state, not a guess of how long it takes)."""
    from dask.distributed import Client, LocalCluster

    RELEASE.clear()
    GAVE_UP.clear()
    local = LocalCluster(processes=False, dashboard_address=None, **cluster_kw)
    monkeypatch.setattr(cluster_task, "run", _stuck_or_failing)
    monkeypatch.setattr(cluster, "_connect", lambda address, workers: (Client(local), None))
    monkeypatch.setattr(cluster, "deadline", lambda limits: 3.0)
    monkeypatch.setattr(cluster, "POLL", 0.5)
    monkeypatch.setattr(gradebook, "template", lambda course: b"")
    try:
        records = cluster.grade(course, "tcp://unused:1", todo, Limits(sandbox="none"), {},
                                out=io.StringIO())
        assert not GAVE_UP, f"the run waited for its stuck tasks {GAVE_UP} instead of ending them"
    finally:
        RELEASE.set()
        local.close()
    saved = {json.loads(p.read_text())["student"] for p in course.results.glob("*/*.json")}
    assert saved == set(todo), saved
    return {r["student"]: r for r in records}


def test_a_stuck_task_is_cancelled_at_its_deadline_and_a_failed_one_is_a_row(tmp_path, monkeypatch):
    """One task never returns (a grading step hung outside the kernel's watchdog), one raises: the
    run ends at the deadline with an error row for each, while the stuck task still waits."""
    course, todo = _stuck_course(tmp_path, ["ada", "ben"])
    by = _grade_in_process(monkeypatch, course, todo, n_workers=1, threads_per_worker=2)
    assert by["ada"]["status"] == "error" and "made no progress for 3 s" in by["ada"]["message"]
    assert by["ben"]["status"] == "error" and "ValueError: boom" in by["ben"]["message"]


def test_tasks_queued_behind_a_stuck_task_end_too(tmp_path, monkeypatch):
    """One thread, two stuck tasks: the second never starts while the first holds the thread; the
    run still ends, each with its row."""
    course, todo = _stuck_course(tmp_path, ["ada", "cy"])
    by = _grade_in_process(monkeypatch, course, todo, n_workers=1, threads_per_worker=1)
    assert {r["status"] for r in by.values()} == {"error"}
    assert all("run the same command again" in r["message"] for r in by.values()), by


def test_with_no_worker_at_all_the_run_still_ends(tmp_path, monkeypatch):
    course, todo = _stuck_course(tmp_path, ["ada"])
    by = _grade_in_process(monkeypatch, course, todo, n_workers=0)
    assert "no worker graded anything" in by["ada"]["message"]
