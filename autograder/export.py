"""`export` (grades.csv) and `report` (a summary table per chapter and exercise)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from autograder import results
from autograder.course import AutograderError, Course


def rows(course: Course, problems: list[str] | None = None) -> tuple[list[str], list[dict]]:
    """CSV columns and one row per student x chapter (missing chapters included)."""
    records = results.load_all(course, problems)
    if not records:
        raise AutograderError(f"no grading results in {course.results}: run `grade` first")
    chapters = sorted({r["chapter"] for r in records})
    students = sorted({r["student"] for r in records})
    by_key = {(r["student"], r["chapter"]): r for r in records}
    exercise_cols: list[str] = []
    for chapter in chapters:
        sample = next(r for r in records if r["chapter"] == chapter)
        exercise_cols += [e for e in sample["exercises"] if e not in exercise_cols]
    columns = ["student", "chapter", "status", "score", "max_score", *exercise_cols, "notes"]
    out = []
    for student in students:
        for chapter in chapters:
            r = by_key.get((student, chapter))
            if r is None:
                sample = next(x for x in records if x["chapter"] == chapter)
                out.append({"student": student, "chapter": chapter, "status": "missing", "score": 0,
                            "max_score": _g(sample["max_score"]), "notes": "no submission"}
                           | {e: 0 for e in sample["exercises"]})
                continue
            row = {"student": student, "chapter": chapter, "status": r["status"],
                   "score": _g(r["score"]), "max_score": _g(r["max_score"]), "notes": notes(r)}
            row |= {e: _g(v["score"]) for e, v in r["exercises"].items()}
            out.append(row)
    return columns, out


def _g(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 2)


def notes(record: dict) -> str:
    """What an instructor should know about a row, in one line."""
    parts = [record["message"].splitlines()[0]] if record.get("message") else []
    for e in record.get("events", []):
        if e["kind"] in ("timeout", "unresponsive", "dead_kernel", "notebook_timeout"):
            parts.append(f"{e['kind'].replace('_', ' ')} at {e.get('grade_id') or 'cell ' + str(e['cell'])}")
    if record.get("sandbox") == "none":
        parts.append("sandbox=none")
    return "; ".join(parts)


def export(course: Course, path: Path | None = None) -> list[str]:
    """Write grades.csv; return the lines to print."""
    problems: list[str] = []
    columns, data = rows(course, problems)
    path = Path(path or course.grades_csv)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(data)
    results.write_text(path, text.getvalue())
    return problems + [f"export: {len(data)} row(s) x {len(columns)} column(s) -> {path}"]


COLUMNS = f"{'chapter / exercise':34} {'n':>3} {'mean':>11} {'failed':>6} {'timeout':>7} {'dead':>4} {'error':>5}"


def _hit(record: dict, exercise: str, kinds: tuple[str, ...]) -> bool:
    """Did one of `kinds` of event happen in a test cell of `exercise`?"""
    return any(e["kind"] in kinds and results.exercise_of(e.get("grade_id") or "") == exercise
               for e in record["events"])


def _chapter_lines(chapter: str, rs: list[dict]) -> list[str]:
    statuses = [r["status"] for r in rs]
    mean = sum(r["score"] for r in rs) / len(rs)
    failed = sum(r["score"] < r["max_score"] for r in rs)
    lines = [f"{chapter:34} {len(rs):>3} {mean:>5.1f} / {_g(rs[0]['max_score']):<3} {failed:>6} "
             f"{statuses.count('timeout'):>7} {statuses.count('dead_kernel'):>4} {statuses.count('error'):>5}"]
    for exercise, spec in rs[0]["exercises"].items():
        scores = [r["exercises"].get(exercise, {"score": 0.0})["score"] for r in rs]
        lost = [r for r, s in zip(rs, scores, strict=True) if s < spec["max"]]
        timeouts = sum(_hit(r, exercise, ("timeout", "unresponsive")) for r in rs)
        dead = sum(r["status"] == "dead_kernel" for r in lost)  # lost points to a dead kernel
        lines.append(f"  {exercise:32} {len(rs):>3} {sum(scores) / len(rs):>5.1f} / {_g(spec['max']):<3} "
                     f"{len(lost):>6} {timeouts:>7} {dead:>4}")
    return lines


def report(course: Course) -> list[str]:
    """A table per chapter and exercise: submissions, mean, failures, timeouts, dead kernels."""
    records = results.load_all(course)
    if not records:
        raise AutograderError(f"no grading results in {course.results}: run `grade` first")
    lines = [COLUMNS, "-" * len(COLUMNS)]
    for chapter in sorted({r["chapter"] for r in records}):
        lines += _chapter_lines(chapter, [r for r in records if r["chapter"] == chapter])
    errors = sorted({f"{r['student']}/{r['chapter']}" for r in records if r["status"] == "error"})
    if errors:
        lines.append(f"not graded because of errors (see grades.csv notes): {', '.join(errors)}")
    return lines
