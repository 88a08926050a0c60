"""One grading result per student x chapter: scores per test and exercise, status, what happened."""

from __future__ import annotations

import json
import re
from pathlib import Path

from autograder import notebooks
from autograder.course import Course

TEST_ID = re.compile(r"^(?P<exercise>.+?)_(hidden_)?tests(_\d+)?$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Worst first: a row's status is the worst thing that happened to it.
STATUSES = ("error", "dead_kernel", "timeout", "missing", "not_graded", "ok")


def exercise_of(grade_id: str) -> str:
    """`parse_reply_tests` and `parse_reply_hidden_tests` belong to exercise `parse_reply`."""
    m = TEST_ID.match(grade_id)
    return m.group("exercise") if m else grade_id


def chapter_tests(nb) -> list[dict]:
    """The graded test cells of a notebook in order: grade_id, points, exercise."""
    tests = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            tests.append({"grade_id": meta["grade_id"], "points": float(meta.get("points", 0)),
                          "exercise": exercise_of(meta["grade_id"])})
    return tests


def exercises(tests: list[dict]) -> dict[str, float]:
    """Exercise name -> max points, in notebook order."""
    out: dict[str, float] = {}
    for t in tests:
        out[t["exercise"]] = out.get(t["exercise"], 0.0) + t["points"]
    return out


def first_error(cell) -> str | None:
    """'AssertionError: message' for the first error output of a cell, or None."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            text = ANSI.sub("", f"{output.get('ename')}: {output.get('evalue')}").strip()
            return text if len(text) <= 300 else text[:297] + "..."
    return None


def build(course: Course, student: str, chapter: str, scores: dict[str, float], seconds: float,
          message: str = "") -> dict:
    """The result record, from the autograded notebook and the scores nbgrader saved."""
    tests = chapter_tests(notebooks.read(course.solution_ipynb(chapter)))
    path = course.autograded / student / chapter / f"{chapter}.ipynb"
    graded = notebooks.read(path) if path.is_file() else None
    meta = graded.metadata.get("autograder", {}) if graded else {}
    errors = {}
    if graded:
        for cell in graded.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id:
                errors[grade_id] = first_error(cell)
    status = meta.get("status", "ok") if graded else "error"
    if not graded and not message:
        message = "nbgrader wrote no autograded notebook"
    record = {"student": student, "chapter": chapter, "status": status, "message": message,
              "score": 0.0, "max_score": 0.0, "tests": {}, "exercises": {},
              "events": meta.get("events", []), "tamper": meta.get("tamper", []),
              "seconds": round(seconds, 2)}
    for t in tests:
        score = float(scores.get(t["grade_id"]) or 0.0) if graded else 0.0
        record["tests"][t["grade_id"]] = {"score": score, "max": t["points"],
                                          "exercise": t["exercise"], "error": errors.get(t["grade_id"])}
        ex = record["exercises"].setdefault(t["exercise"], {"score": 0.0, "max": 0.0})
        ex["score"] += score
        ex["max"] += t["points"]
        record["score"] += score
        record["max_score"] += t["points"]
    return record


def path_for(course: Course, student: str, chapter: str) -> Path:
    return course.results / student / f"{chapter}.json"


def save(course: Course, record: dict) -> None:
    path = path_for(course, record["student"], record["chapter"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load_all(course: Course) -> list[dict]:
    """Every saved result, sorted by student then chapter."""
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(course.results.glob("*/*.json"))]
    return sorted(records, key=lambda r: (r["student"], r["chapter"]))
