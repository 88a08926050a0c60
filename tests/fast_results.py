"""The fast runner's side in the test process: run every chapter's job (`grade`, one chapter
process per chapter, forked by tests/fast_template.py, `workers` at a time) and turn what each variant
reported into the result record the gates read (`record`, results.build's shape)."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import tempfile
import time
from pathlib import Path

from autograder.judge.process import Zygote
from autograder.pipeline import results
from tests.fast_template import Template


def fill_skipped(outcome: dict, base_steps: list[dict]) -> dict:
    """A variant's skipped cells (cell_deps) take the solution's steps for the same cells; with no
    solution's step (its run died) a skipped cell stays not run."""
    if not any(s.get("skipped") for s in outcome.get("steps", [])):
        return outcome
    by_index = {s["index"]: s for s in base_steps}
    steps = [by_index.get(s["index"], s) if s.get("skipped") else s for s in outcome["steps"]]
    return {**outcome, "steps": [s for s in steps if not s.get("skipped")]}


def record(student: str, chapter: str, tests: list[dict], cells: list[dict], outcome: dict, seconds: float) -> dict:
    """The result record the gates read (results.build's shape), from a variant's steps."""
    steps = {s["index"]: s for s in outcome.get("steps", [])}
    by_index = {c["index"]: c for c in cells}
    events, stopped = [], ""
    for index, s in sorted(steps.items()):
        grade_id = by_index[index]["grade_id"] if by_index[index]["graded"] else None
        if s["timeout"]:
            events.append({"kind": "timeout", "cell": index, "grade_id": grade_id, "detail": s["error"]})
        if s["stderr"]:
            events.append({"kind": "stderr", "cell": index, "grade_id": grade_id, "detail": s["stderr"]})
    ending = outcome["ending"]
    if ending in ("dead", "hung") or (ending == "ok" and len(steps) < len(cells)):
        kind = {"dead": "dead_kernel", "hung": "unresponsive"}.get(ending, "notebook_timeout")
        stopped = {"dead_kernel": "the process died", "unresponsive": "a cell stopped answering",
                   "notebook_timeout": "the notebook ran over its CPU time limit"}[kind]
        after = max(steps, default=-1)
        events.append({"kind": kind, "cell": after, "grade_id": None, "detail": stopped})
    kinds = {e["kind"] for e in events}
    status = ("error" if ending == "error" else "dead_kernel" if "dead_kernel" in kinds else
              "timeout" if kinds & {"timeout", "unresponsive", "notebook_timeout"} else "ok")
    rec = {"student": student, "chapter": chapter, "status": status, "message": outcome.get("message", ""),
           "score": 0.0, "max_score": 0.0, "tests": {}, "exercises": {}, "events": events,
           "sandbox": "fast",  # its own cells' wall time (`seconds`, since the batch began: a fallback)
           "seconds": round(sum(s.get("wall", 0.0) for s in outcome.get("steps", [])) or seconds, 2),
           "cpu": round(sum(s["cpu"] for s in outcome.get("steps", [])), 2)}
    where = {c["grade_id"]: c["index"] for c in cells if c["grade_id"]}
    for t in tests:
        s = steps.get(where.get(t["grade_id"]))
        ok = s is not None and s["ended"] and not s["error"] and status != "error"
        error = s["error"] if s else f"CellNotRun: not run: {stopped or 'the cell is missing'}"
        results.add_test(rec, t, t["points"] if ok else 0.0, error)
    return rec


def grade(jobs: dict[str, dict], workers: int = 2, deadline: float = 1800) -> dict[str, list[dict]]:
    """chapter -> job (base, variants, base_limit): run `workers` chapter processes at a time;
    return chapter -> outcome lines. A chapter process past `deadline` is killed."""
    folder = Path(tempfile.mkdtemp(prefix="fast-jobs-"))
    # longest first (variants x cells, a fair guess of its CPU), so no long chapter starts last
    pending = sorted(jobs, key=lambda c: (-len(jobs[c]["variants"]) * len(jobs[c]["base"]), c))
    running, found = {}, {}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(folder)}
    template = Template(env, folder / "template.log")  # forks every chapter's process (fast_template.py)
    try:
        while pending or running:
            while pending and len(running) < workers:
                chapter = pending.pop(0)
                (folder / f"{chapter}.json").write_text(json.dumps(jobs[chapter]), encoding="utf-8")
                control = Zygote.branch()  # the chapter's judges are forked from the warm zygote's state
                if control is None:
                    raise RuntimeError("the judge's zygote could not branch one for the fast runner")
                with control:
                    proc = template.fork(folder / f"{chapter}.json", folder / f"{chapter}.out", control,
                                         folder / f"{chapter}.log")
                running[chapter] = (proc, time.monotonic())
            # until a chapter ends (its pidfd is readable), or 1 s: a deadline is checked that often
            ready = select.select([p.pidfd for p, _ in running.values()], [], [], 1.0)[0]
            for chapter, (proc, started) in list(running.items()):
                if proc.pidfd not in ready and time.monotonic() - started < deadline:
                    continue
                ended = not proc.running()
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # past its deadline, or what the chapter left running
                except OSError:
                    pass
                if not ended:
                    proc.running(None)
                out = folder / f"{chapter}.out"
                lines = out.read_text(encoding="utf-8").splitlines() if out.is_file() else []
                found[chapter] = [json.loads(line) for line in lines]
                if len(found[chapter]) < len(jobs[chapter]["variants"]):
                    log = (folder / f"{chapter}.log").read_text(encoding="utf-8", errors="replace")[-1500:]
                    found[chapter].append({"log": log, "killed": not ended})
                del running[chapter]
    finally:
        template.close()
    shutil.rmtree(folder, ignore_errors=True)
    return found
