"""The record of a grade, one per student x chapter: scores per test and exercise, status, what
happened. Built here (`build`, `failed`, `add_test`), saved, and read back by every later stage."""

from __future__ import annotations

import json
from pathlib import Path

from autograder import notebooks
from autograder.course import Course
from autograder.pipeline import files


def build(course: Course, student: str, chapter: str, scores: dict[str, float], seconds: float,
          message: str = "", sandbox: str = "") -> dict:
    """The result record, from the autograded notebook and the scores nbgrader saved."""
    tests = notebooks.chapter_tests(notebooks.read(course.solution_ipynb(chapter)))
    path = course.autograded / student / chapter / f"{chapter}.ipynb"
    graded = notebooks.read(path) if path.is_file() else None
    meta = graded.metadata.get("autograder", {}) if graded else {}
    errors = {}
    if graded:
        for cell in graded.cells:
            grade_id = notebooks.nbmeta(cell).get("grade_id")
            if grade_id:
                errors[grade_id] = notebooks.first_error(cell)
    status = meta.get("status", "ok") if graded else "error"
    if not graded and not message:
        message = "nbgrader wrote no autograded notebook"
    record = {"student": student, "chapter": chapter, "status": status, "message": message,
              "score": 0.0, "max_score": 0.0, "tests": {}, "exercises": {},
              "events": meta.get("events", []),
              "sandbox": meta.get("sandbox") or sandbox, "seconds": round(seconds, 2)}
    for t in tests:
        score = float(scores.get(t["grade_id"]) or 0.0) if graded else 0.0
        add_test(record, t, score, errors.get(t["grade_id"]))
    return record


def add_test(record: dict, test: dict, score: float, error: str | None) -> None:
    """Count one test's score into a record: its row, its exercise's and the notebook's totals."""
    record["tests"][test["grade_id"]] = {"score": score, "max": test["points"], "exercise": test["exercise"],
                                         "error": error}
    ex = record["exercises"].setdefault(test["exercise"], {"score": 0.0, "max": 0.0})
    ex["score"] += score
    ex["max"] += test["points"]
    record["score"] += score
    record["max_score"] += test["points"]


def failed(course: Course, student: str, chapter: str, message: str, sandbox: str = "") -> dict:
    """The record of a submission the grader could not grade: status error, 0 points."""
    try:
        record = build(course, student, chapter, {}, 0.0, message[:500], sandbox=sandbox)
    except Exception:  # even the notebook could not be read: a bare record
        record = {"student": student, "chapter": chapter, "message": message[:500], "score": 0.0,
                  "max_score": 0.0, "tests": {}, "exercises": {}, "events": [],
                  "sandbox": sandbox, "seconds": 0.0}
    record["status"] = "error"
    return record


def path_for(course: Course, student: str, chapter: str) -> Path:
    return course.results / student / f"{chapter}.json"


def save(course: Course, record: dict) -> None:
    files.write_text(path_for(course, record["student"], record["chapter"]),
               json.dumps(record, indent=1, sort_keys=True) + "\n", within=course.workspace)


REQUIRED = {"student": str, "chapter": str, "status": str, "score": (int, float),
            "max_score": (int, float), "exercises": dict, "tests": dict}


def _read(path: Path) -> dict:
    """A saved result, or ValueError/OSError when the file is not one."""
    record = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(record, dict) or any(not isinstance(record.get(k), t) for k, t in REQUIRED.items()) \
            or any(not isinstance(v, dict) or not isinstance(v.get("score"), (int, float))
                   for v in [*record["exercises"].values(), *record["tests"].values()]):
        raise ValueError("not a grading result")
    return record


def load(course: Course, student: str, chapter: str) -> dict | None:
    """The saved result of one submission, or None when there is none or it cannot be read."""
    try:
        return _read(path_for(course, student, chapter))
    except (OSError, ValueError):
        return None


def load_all(course: Course, problems: list[str] | None = None) -> list[dict]:
    """Every readable saved result, sorted by student then chapter. An entry that cannot be read
    (not a file, not JSON, not a result) is skipped and described in `problems`."""
    records = []
    for path in sorted(course.results.glob("*/*.json")):
        try:
            record = _read(path)
        except (OSError, ValueError) as e:
            if problems is not None:
                problems.append(f"skipped {path}: {type(e).__name__}: {e}"[:300])
            continue
        records.append(record)
    return sorted(records, key=lambda r: (r["student"], r["chapter"]))
