"""`grade --cluster`: a real `dask scheduler` and two `dask worker` processes on 127.0.0.1.

The workers run in empty folders of their own (nothing shared but the network): the cohort graded
on them must give the same grades.csv as the local path, also when a worker is killed mid-run.

What is tested is the cluster's bookkeeping (packing, results written by the client alone, the
gradebook's rows, re-runs, a lost worker), which every submission goes through alike; grading
itself is the gates' job. So the course is the pilot chapter (tests/pilot: three small exercises)
and four submissions that give four different rows: full marks, one exercise, none, and a kernel
that dies (`os._exit`). One cluster serves the module: starting one costs three processes that
import Dask. No submission loops, so no verdict rests on a time limit; the limits below are
backstops for a machine at any load.
"""

import io
import os
import shutil
import sqlite3

import pytest

from autograder import notebooks
from autograder.course import REPO, AutograderError, Course
from autograder.gates import variants
from autograder.pipeline import cohort, export
from autograder.sandbox.sandbox import bwrap_problem
from autograder.settings import Limits
from bench.dask_cluster import Cluster
from tests import gates, hostile_judge

pytestmark = pytest.mark.slow
PILOT, CHAPTER = REPO / "tests" / "pilot", "00_pilot"
LIMITS = Limits(cell_timeout=60, notebook_timeout=600, sandbox="bwrap" if bwrap_problem() is None else "none")
COHORT = {  # student -> the notebook handed in, made from the pilot's own notebooks
    "ada": lambda c: variants.solved(c, CHAPTER),
    "ben": lambda c: variants.solved(c, CHAPTER, only=["add"]),
    "cy": lambda c: variants.stub(c, CHAPTER),
    "eve": lambda c: variants.insert(variants.solved(c, CHAPTER), "import os\nos._exit(1)"),
}
N = len(COHORT)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A copy of the pilot course (solutions/ and chapters/); each test grades in a workspace of
    its own inside it (the course wants its workspaces under its root)."""
    root = tmp_path_factory.mktemp("cluster-course")
    for folder in ("solutions", "chapters"):
        shutil.copytree(PILOT / folder, root / folder)
    return root


def _workspace(root, name: str, students=tuple(COHORT)) -> Course:
    """A course whose workspace holds the cohort (or some of it), submitted and not yet graded."""
    course = Course(root=root).with_workspace(root / name)
    for student in students:
        variants.save(COHORT[student](course), course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb")
    return course


def _csv(course: Course) -> str:
    path = course.workspace / "grades.csv"
    export.export(course, path)
    return path.read_text()


@pytest.fixture(scope="module")
def local_csv(scratch):
    course = _workspace(scratch, "local")
    records = cohort.grade(course, workers=1, limits=LIMITS, out=io.StringIO())
    # The four rows differ, so a cluster run that swapped or dropped a result cannot match.
    assert sorted((r["student"], r["status"], r["score"]) for r in records) == [
        ("ada", "ok", 9.0), ("ben", "ok", 3.0), ("cy", "ok", 0.0), ("eve", "dead_kernel", 0.0)], records
    return _csv(course)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.close()


def _one_row_each(course: Course, students=tuple(COHORT)) -> None:
    with sqlite3.connect(course.gradebook) as con:
        rows = con.execute("SELECT student_id, COUNT(*) FROM submitted_assignment "
                           "GROUP BY student_id, assignment_id").fetchall()
    assert sorted(rows) == [(s, 1) for s in sorted(students)], rows
    saved = sorted(p.relative_to(course.results) for p in course.results.glob("*/*.json"))
    assert len(saved) == len(students) == len(set(saved)), saved


def _rows_of(csv: str, students) -> str:
    """grades.csv cut to some students' rows (the header stays)."""
    header, *rows = csv.splitlines(keepends=True)
    return header + "".join(r for r in rows if r.split(",")[0] in students)


def test_cluster_grades_like_the_local_path(scratch, local_csv, cluster):
    course = _workspace(scratch, "cluster")
    out = io.StringIO()
    records = cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=out)
    assert len(records) == N and all(r["status"] != "error" for r in records), out.getvalue()
    assert _csv(course) == local_csv
    _one_row_each(course)
    # The workers kept nothing: every file came back to the client, nothing stayed in their folders.
    leftovers = [p for w in ("worker0", "worker1") for p in (cluster.root / w).rglob("*.ipynb")]
    assert leftovers == []
    # A re-run grades nothing that did not change; --force grades again.
    again = io.StringIO()
    assert len(cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=again)) == N
    assert f"{N} submission(s) already graded" in again.getvalue() and f"/{N}" not in again.getvalue()
    edited = course.submitted / "ada" / CHAPTER / f"{CHAPTER}.ipynb"
    edited.write_text(edited.read_text().replace("\n", "\n ", 1))  # same notebook, other bytes
    again = io.StringIO()
    cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=again)
    assert f"{N - 1} submission(s) already graded" in again.getvalue() and "1/1" in again.getvalue()
    assert _csv(course) == local_csv


def test_in_process_attacks_score_zero_on_the_cluster(scratch, cluster):
    """Issue 24: each in-process attack (an untouched stub plus a few lines: closure cells, the
    kernel's sender, a profile hook, frame walking, gc/ctypes, lying values, a forged link end)
    scores 0 when a worker grades it, as the gates show it does locally; the solved notebook
    graded beside them keeps its 9 points, so the zeros are the judge's verdicts, not a broken run."""
    course = Course(root=scratch).with_workspace(scratch / "hostile")
    cases = {name.replace("_", "-"): make for name, (make, _) in hostile_judge.CASES.items()}
    for student, make in {**cases, "ada": COHORT["ada"]}.items():
        variants.save(make(course, CHAPTER) if student in cases else make(course),
                      course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb")
    out = io.StringIO()
    records = cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=out)
    scores = {r["student"]: r["score"] for r in records}
    assert scores == {**dict.fromkeys(cases, 0.0), "ada": 9.0}, out.getvalue()


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(scratch, local_csv, cluster):
    """Two submissions on two workers: when the first result is in, the worker holding the other
    is killed, and the other is graded again elsewhere. After the module's other cluster test:
    this one leaves the cluster with one worker."""
    students = ("ben", "eve")
    course = _workspace(scratch, "killed", students)
    # ben's notebook waits a few seconds before its tests (no CPU, the same scores): on a quiet
    # machine both notebooks were done within the same second, and the kill found nothing held.
    slow = course.submitted / "ben" / CHAPTER / f"{CHAPTER}.ipynb"
    variants.save(variants.insert(notebooks.read(slow), "import time\ntime.sleep(6)"), slow)

    class Watch(io.StringIO):
        held = None

        def write(self, text):
            if self.held is None and f"] 1/{len(students)}" in text:  # the first is in; the other runs
                # The worker the scheduler has given the most of the rest, so the kill loses work.
                holders = cluster.holders()
                victim = max(holders, key=holders.get, default=0)
                self.held = holders.get(victim, 0)
                cluster.kill(cluster.workers[victim])
            return super().write(text)

    out = Watch()
    records = cohort.grade(course, limits=LIMITS, cluster=cluster.address, out=out)
    assert out.held, f"the killed worker held no submission: {out.getvalue()}"
    assert sorted((r["student"], r["chapter"]) for r in records) == [(s, CHAPTER) for s in students]
    assert all(r["status"] != "error" for r in records), out.getvalue()
    assert _csv(course) == _rows_of(local_csv, students)
    _one_row_each(course, students)


def test_an_unreachable_scheduler_is_a_clear_error(scratch):
    course = _workspace(scratch, "unreachable")
    with pytest.raises(AutograderError, match="cannot reach the Dask scheduler"):
        cohort.grade(course, limits=LIMITS, cluster="tcp://127.0.0.1:9", out=io.StringIO())


@pytest.mark.skipif(os.environ.get("GATES_MUTANTS") not in ("rest", "all"),
                    reason="every hostile case on a cluster worker: make test-mutants")
def test_every_hostile_case_scores_on_a_worker_what_it_scores_locally(scratch, cluster):
    """Issue 44, item 8: every hostile case the gates grade on the pilot (tests/gates.py
    `ALL_CASES`: floods, hangs, the OS, in-process attacks, the red team's), graded by a cluster
    worker with the limits the gates give it, gets the score and the status the gates check it gets
    locally; the solved notebook graded beside them keeps its 9 points."""
    groups: dict[Limits, dict] = {}
    for name, case in gates.ALL_CASES.items():
        if gates.SANDBOX == "bwrap" or not case[1].os_level:
            groups.setdefault(gates.limits_of(case[1]), {})[name.replace("_", "-")] = case
    wrong = {}
    for i, (limits, cases) in enumerate(groups.items()):
        course = Course(root=scratch).with_workspace(scratch / f"every-hostile-{i}")
        for student, (make, _) in cases.items():
            variants.save(make(course, CHAPTER), course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb")
        variants.save(COHORT["ada"](course), course.submitted / "ada" / CHAPTER / f"{CHAPTER}.ipynb")
        out = io.StringIO()
        records = {r["student"]: r for r in cohort.grade(course, limits=limits, cluster=cluster.address, out=out)}
        assert records["ada"]["score"] == 9.0, out.getvalue()
        for student, (_, expect) in cases.items():
            record, exercises = records[student], records[student]["exercises"]
            first = next(iter(exercises))
            want = {e: (v["max"] if expect.score == "full" or (expect.score == "first_zero" and e != first) else 0.0)
                    for e, v in exercises.items()}
            got = {e: v["score"] for e, v in exercises.items()}
            if got != want or record["status"] != expect.status:
                wrong[student] = (record["status"], got, expect)
    assert not wrong, f"scored otherwise on a worker than the gates check locally: {wrong}"
