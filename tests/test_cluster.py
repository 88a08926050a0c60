"""`grade --cluster`: a real `dask scheduler` and two `dask worker` processes on 127.0.0.1.

The workers run in empty folders of their own (nothing shared but the network): the cohort graded
on them must give the same grades.csv as the local path, also when a worker is killed mid-run.
"""

import io
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from autograder import cohort, collect, export
from autograder.course import AutograderError, Course
from autograder.sandbox import bwrap_problem
from autograder.settings import Limits
from tests.dask_cluster import Cluster

pytestmark = pytest.mark.slow
# The grades are compared run to run, so no honest cell may hit a wall-clock limit on a busy machine:
# the sample cohort's cells take under a second of CPU, so 15 s per cell leaves a 15x slowdown (load
# ~30 on 2 cores) and dan's endless loop still ends; 300 s per notebook is the grader's default.
LIMITS = Limits(cell_timeout=15, notebook_timeout=300, sandbox="bwrap" if bwrap_problem() is None else "none")


def _workspace(root: Path, name: str) -> Course:
    """A course whose workspace holds the sample cohort, collected and not yet graded."""
    course = Course().with_workspace(root / name)
    collect.collect(course, course.sample_cohort)
    return course


def _csv(course: Course) -> str:
    path = course.workspace / "grades.csv"
    export.export(course, path)
    return path.read_text()


@pytest.fixture(scope="module")
def scratch():
    """Workspaces inside the repository (the course wants them under its root), removed after."""
    root = Course().workspace / "work" / f"cluster-test-{os.getpid()}"
    yield root
    subprocess.run(["rm", "-rf", str(root)], check=False)


@pytest.fixture(scope="module")
def local_csv(scratch):
    course = _workspace(scratch, "local")
    cohort.grade(course, workers=2, limits=LIMITS, out=io.StringIO())
    return _csv(course)


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "cluster")
    yield c
    c.close()


def _one_row_each(course: Course) -> None:
    with sqlite3.connect(course.gradebook) as con:
        rows = con.execute("SELECT student_id, assignment_id, COUNT(*) FROM submitted_assignment "
                           "GROUP BY student_id, assignment_id").fetchall()
    assert rows and all(n == 1 for *_, n in rows), rows
    saved = sorted(p.relative_to(course.results) for p in course.results.glob("*/*.json"))
    assert len(saved) == 10 == len(set(saved)), saved


def test_cluster_grades_like_the_local_path(scratch, local_csv, cluster):
    course = _workspace(scratch, "cluster")
    out = io.StringIO()
    records = cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=out)
    assert len(records) == 10 and all(r["status"] != "error" for r in records), out.getvalue()
    assert _csv(course) == local_csv
    _one_row_each(course)
    # The workers kept nothing: every file came back to the client, nothing stayed in their folders.
    leftovers = [p for w in ("worker0", "worker1") for p in (cluster.root / w).rglob("*.ipynb")]
    assert leftovers == []
    # A re-run grades nothing that did not change; --force grades again.
    again = io.StringIO()
    assert len(cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=again)) == 10
    assert "10 submission(s) already graded" in again.getvalue() and "/10" not in again.getvalue()
    edited = course.submitted / "ada" / "01_one_step" / "01_one_step.ipynb"
    edited.write_text(edited.read_text().replace("\n", "\n ", 1))  # same notebook, other bytes
    again = io.StringIO()
    cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=again)
    assert "9 submission(s) already graded" in again.getvalue() and "1/1" in again.getvalue()
    assert _csv(course) == local_csv


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(scratch, local_csv, cluster):
    course = _workspace(scratch, "killed")

    class Watch(io.StringIO):
        killed = False

        def write(self, text):
            if not self.killed and "] 1/10" in text:  # the first result is in; more are running
                self.killed = True
                cluster.kill(cluster.workers[0])
            return super().write(text)

    out = Watch()
    records = cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=out)
    assert out.killed, out.getvalue()
    assert sorted((r["student"], r["chapter"]) for r in records) == sorted(
        {(r["student"], r["chapter"]) for r in records}) and len(records) == 10
    assert all(r["status"] != "error" for r in records), out.getvalue()
    assert _csv(course) == local_csv
    _one_row_each(course)


def test_an_unreachable_scheduler_is_a_clear_error(scratch):
    course = _workspace(scratch, "unreachable")
    with pytest.raises(AutograderError, match="cannot reach the Dask scheduler"):
        cohort.grade(course, limits=LIMITS, cluster="tcp://127.0.0.1:9", out=io.StringIO())
