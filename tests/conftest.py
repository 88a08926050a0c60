"""Shared fixtures: the library tests' path, and the gates' one graded batch (session-wide)."""

import io
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # so `tests.reference_loop` imports without installing tests/
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """student -> result record, for every gate submission; also the gate course and timing.

    Results are cached across runs (autograder/work/gate-cache/, GATES_CACHE=0 to ignore it),
    keyed by the submission, its chapter, the workbook, the grader and the package versions.
    Submissions whose notebooks or side effects a test reads afterwards are graded on every run.
    """
    from autograder import cohort
    from tests import gates

    plan = gates.plan()
    workers = int(os.environ.get("GATES_WORKERS", "2"))
    always = {s.student for _, s in plan if s.kind == "stub" or s.name in gates.ALWAYS_GRADED}
    gate = gates.gate_course(tmp_path_factory.mktemp("gates") / "course")
    limits_for = gates.build(gate, plan)
    env = gates.environment_key()
    keys = {s.student: gates.cache_key(env, gate, s, limits_for[s.student]) for _, s in plan}
    reuse = {} if os.environ.get("GATES_CACHE") == "0" else gates.cached(keys)
    todo = sorted(s for s in keys if s not in reuse or s in always)
    started, log, records = time.monotonic(), io.StringIO(), []
    if todo:
        records = cohort.grade(gate, workers=workers, limits=gates.GATE_LIMITS, limits_for=limits_for,
                               students=todo, out=log)
        gates.remember(keys, records)
    seconds = time.monotonic() - started
    print(f"\ngates: graded {len(records)} notebooks in {seconds:.0f} s with {workers} workers "
          f"(sandbox: {gates.SANDBOX}), {len(keys) - len(records)} results from the cache")
    by_student = reuse | {r["student"]: r for r in records}
    return {"course": gate, "records": by_student, "seconds": seconds, "log": log, "graded": len(records)}
