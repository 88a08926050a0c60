"""The nbgrader gradebooks: the course's master, and one private copy per grading worker.

nbgrader's SQLite gradebook is not safe to share between parallel autograde processes, so each
worker grades into its own copy of the master and the parent merges the rows of the students that
worker graded back into the master afterwards. Ids come from the shared master, so rows line up.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from autograder.course import Course


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ensure_assignments(course: Course, chapters: list[str]) -> list[str]:
    """Record each chapter's source cells in the master gradebook when they are new or changed."""
    from nbgrader.converters import GenerateAssignment

    from autograder import nbgrader_run
    from autograder.settings import nbgrader_config

    stamp = course.work / "assigned.json"
    known = json.loads(stamp.read_text()) if stamp.is_file() and course.gradebook.is_file() else {}
    todo = [c for c in chapters if known.get(c) != _fingerprint(course.solution_ipynb(c))]
    if not todo:
        return []
    course.work.mkdir(parents=True, exist_ok=True)
    config = nbgrader_config(course)
    scratch = course.work / "release"  # generate_assignment must write somewhere; not chapters/
    config.CourseDirectory.release_directory = course.rel(scratch)
    for chapter in todo:
        nbgrader_run.run(GenerateAssignment, config, chapter, student=".")
        known[chapter] = _fingerprint(course.solution_ipynb(chapter))
    shutil.rmtree(scratch, ignore_errors=True)
    stamp.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
    return todo


def worker_copy(course: Course, slot: int) -> Path:
    """A fresh copy of the master gradebook for worker `slot`."""
    path = course.work / f"worker{slot}" / "gradebook.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(course.gradebook, path)
    return path


def scores(db: Path, student: str, chapter: str) -> dict[str, float]:
    """grade_id -> score of one submission (manual score if a grader set one, else the auto score)."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            """SELECT bc.name, COALESCE(g.manual_score, g.auto_score)
               FROM grade g JOIN base_cell bc ON bc.id = g.cell_id
               JOIN submitted_notebook sn ON sn.id = g.notebook_id
               JOIN submitted_assignment sa ON sa.id = sn.assignment_id
               JOIN assignment a ON a.id = sa.assignment_id
               WHERE sa.student_id = ? AND a.name = ?""", (student, chapter)).fetchall()
    return {name: score for name, score in rows}


def merge(master: Path, worker_db: Path, submissions: list[tuple[str, str]]) -> None:
    """Replace each (student, chapter) of `submissions` in the master by its rows in a worker's
    gradebook: only what that worker graded, so a student whose chapters two workers graded
    keeps the fresh rows of each (the copy a worker started from may hold old ones)."""
    for student, chapter in submissions:
        put_submission(master, submission_rows(worker_db, student, chapter), student, chapter)


# -- rows that travel: a cluster worker grades into a private copy and sends one submission back
# Tables of one submission, parents first; each row selected by the submission's (student, chapter).
_SUBMISSION = "SELECT sa.id FROM submitted_assignment sa JOIN assignment a ON a.id = sa.assignment_id " \
              "WHERE sa.student_id = :student AND a.name = :chapter"
_NOTEBOOKS = f"SELECT id FROM submitted_notebook WHERE assignment_id IN ({_SUBMISSION})"
_TABLES = (("student", "id = :student"),
           ("submitted_assignment", f"id IN ({_SUBMISSION})"),
           ("submitted_notebook", f"id IN ({_NOTEBOOKS})"),
           ("grade", f"notebook_id IN ({_NOTEBOOKS})"),
           ("comment", f"notebook_id IN ({_NOTEBOOKS})"))


def template(course: Course) -> bytes:
    """The master gradebook without any student's rows: what a cluster worker grades into."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "template.db"
        shutil.copyfile(course.gradebook, path)
        con = sqlite3.connect(path)
        try:
            for table in ("comment", "grade", "submitted_notebook", "submitted_assignment", "student"):
                con.execute(f"DELETE FROM {table}")
            con.commit()
            con.execute("VACUUM")
        finally:
            con.close()
        return path.read_bytes()


def submission_rows(db: Path, student: str, chapter: str) -> dict[str, list[list]]:
    """One submission's rows, table by table (columns first), as plain lists that pickle anywhere."""
    con = sqlite3.connect(db)
    try:
        found = {}
        for table, where in _TABLES:
            cur = con.execute(f"SELECT * FROM {table} WHERE {where}", {"student": student, "chapter": chapter})
            found[table] = [[d[0] for d in cur.description], *map(list, cur.fetchall())]
        return found
    finally:
        con.close()


def put_submission(master: Path, rows: dict[str, list[list]], student: str, chapter: str) -> None:
    """Replace one submission's rows in the master by `rows` (from `submission_rows`), in one
    transaction: a re-graded submission leaves no rows of its earlier grading behind."""
    con = sqlite3.connect(master)
    try:
        with con:
            params = {"student": student, "chapter": chapter}
            for table, where in reversed(_TABLES[1:]):  # children first
                con.execute(f"DELETE FROM {table} WHERE {where}", params)
            for table, _ in _TABLES:
                columns, *values = rows.get(table) or [[]]
                if not values:
                    continue
                if not all(isinstance(c, str) and c.isidentifier() for c in columns):
                    raise ValueError(f"bad column names for {table}: {columns!r}")
                if any(v[columns.index("student_id" if table == "submitted_assignment" else "id")] != student
                       for v in values) and table in ("student", "submitted_assignment"):
                    raise ValueError(f"rows of {table} for another student than {student}")
                verb = "INSERT OR IGNORE" if table == "student" else "INSERT"
                marks = ", ".join("?" * len(columns))
                con.executemany(f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({marks})", values)
    finally:
        con.close()
