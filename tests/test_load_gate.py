"""Load never changes a correct grade (issue 24): every judged chapter's solution, graded with
`grade --workers 2` while busy loops hold the load at 8 per core, scores full marks, RUNS times in
a row; a notebook that really loops forever still ends at its limit.

It takes a long time (every chapter, several times, on a machine kept busy on purpose), so it runs
only when asked: GATES_LOAD=1 (GATES_LOAD_CHAPTERS=01_one_step,15_why_the_bill_grows for a subset,
GATES_LOAD_RUNS for the number of runs, default 3).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from autograder.gates import variants
from autograder.pipeline import cohort
from autograder.settings import Limits
from tests import gates

pytestmark = pytest.mark.skipif(os.environ.get("GATES_LOAD") != "1", reason="slow: set GATES_LOAD=1")
LOOP = "while True:\n    pass\n"


@pytest.fixture
def busy():
    """8 busy processes per core, at the grader's own priority, for the length of the test."""
    procs = [subprocess.Popen([sys.executable, "-c", LOOP]) for _ in range(8 * (os.cpu_count() or 1))]
    yield len(procs)
    for p in procs:
        p.kill()
        p.wait()


def test_a_busy_machine_grades_every_solution_in_full(busy, tmp_path):
    wanted = [c for c in os.environ.get("GATES_LOAD_CHAPTERS", "").split(",") if c]
    chapters = [(course, ch) for course, ch in gates.chapters()
                if not wanted or ch in wanted]
    gate = gates.gate_course(tmp_path / "course")
    for _, chapter in chapters:
        variants.save(variants.solved(gate, chapter), gate.submitted / "solved" / chapter / f"{chapter}.ipynb")
    first = chapters[0][1]
    looping = variants.with_answer(variants.stub(gate, first), variants.answer_ids(variants.stub(gate, first))[0], LOOP)
    variants.save(looping, gate.submitted / "looping" / first / f"{first}.ipynb")
    students = ["solved", "looping"]
    limits = Limits(sandbox=gates.SANDBOX)
    for run in range(int(os.environ.get("GATES_LOAD_RUNS", "3"))):
        records = cohort.grade(gate, workers=2, limits=limits, students=students, out=io.StringIO(), force=True)
        load = os.getloadavg()[0]
        for r in records:
            if r["student"] == "solved":
                assert r["status"] == "ok" and r["score"] == r["max_score"], (
                    f"run {run + 1}, load {load:.1f}: {r['chapter']} scored {r['score']}/{r['max_score']} "
                    f"({r['status']}): {r['events']}")
            else:
                assert r["status"] == "timeout" and r["score"] == 0, (
                    f"run {run + 1}: the looping notebook: {r['status']} {r['score']} {r['events']}")
        print(f"run {run + 1}: {len(records)} notebooks, load average {load:.1f} with {busy} busy loops")
