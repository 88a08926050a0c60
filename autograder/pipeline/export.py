"""`export` (grades.csv) and `report` (a summary table per chapter and exercise)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.pipeline import collected, files, lms_export, results


def rows(course: Course, problems: list[str] | None = None) -> tuple[list[str], list[dict]]:
    """CSV columns and one row per student x chapter: every student of the roster and every one
    collected or graded, every released, collected or graded chapter (issue 46). A row without a
    grade says why: `missing`, `not_graded`, or what collect found (`unreadable`, `wrong_chapter`,
    `refused`, `duplicate`; autograder/pipeline/collected.py)."""
    records = results.load_all(course, problems)
    seen = collected.load(course)
    keys = [k.split("/", 1) for k in seen["outcomes"]]
    known = set(course.chapters())
    chapters = sorted(({r["chapter"] for r in records} | set(seen.get("released", [])) | {c for _, c in keys})
                      & (known | {r["chapter"] for r in records}))
    students = sorted({r["student"] for r in records} | set(seen.get("roster", [])) | {s for s, _ in keys}
                      | set(seen["unplaced"]))
    if not records and not chapters:
        raise AutograderError(f"no grading results in {course.results} and nothing collected: "
                              "run `collect` and `grade` first")
    by_key = {(r["student"], r["chapter"]): r for r in records}
    specs = {c: _spec(course, c, records) for c in chapters}
    exercise_cols: list[str] = []
    for chapter in chapters:
        exercise_cols += [e for e in specs[chapter][1] if e not in exercise_cols]
    columns = ["student", "chapter", "status", "score", "max_score", *exercise_cols, "notes"]
    out = []
    for student in students:
        for chapter in chapters:
            r, found = by_key.get((student, chapter)), collected.outcome(seen, student, chapter)
            late = ["handed in late (Canvas: LATE)"] if found and found.get("late") else []
            if r is not None:
                stale = ([f"graded an earlier notebook; the latest was not collected ({collected.why_not(found)})"]
                         if found and found["status"] in collected.PROBLEMS else [])
                row = {"student": student, "chapter": chapter, "status": r["status"], "score": _g(r["score"]),
                       "max_score": _g(r["max_score"]), "notes": "; ".join(filter(None, [notes(r), *stale, *late]))}
                out.append(row | {e: _g(v["score"]) for e, v in r["exercises"].items()})
                continue
            if found and found["status"] == "collected":
                status, why = "not_graded", ["collected, not graded yet: run grade"]
            elif found:
                status, why = found["status"], [collected.why_not(found)]
            else:
                status, why = "missing", ["no submission", *(f"not collected: {u}" for u in seen["unplaced"].get(student, []))]
            out.append({"student": student, "chapter": chapter, "status": status, "score": 0,
                        "max_score": _g(specs[chapter][0]), "notes": "; ".join(why + late)}
                       | {e: 0 for e in specs[chapter][1]})
    return columns, out


def _spec(course: Course, chapter: str, records: list[dict]) -> tuple[float, list[str]]:
    """A chapter's maximum score and exercises: from a graded record, else from its source."""
    sample = next((r for r in records if r["chapter"] == chapter), None)
    if sample is not None:
        return sample["max_score"], list(sample["exercises"])
    try:
        tests = notebooks.chapter_tests(notebooks.read(course.solution_ipynb(chapter)))
    except AutograderError:
        return 0.0, []
    return sum(t["points"] for t in tests), list(dict.fromkeys(t["exercise"] for t in tests))


def _g(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 2)


def one_line(message: str, cap: int = 300) -> str:
    """A message in one line: its first line, and its last when the first only introduces it
    ("nbgrader ... failed for ...:" then a traceback ending in the reason)."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    if not lines:
        return ""
    text = lines[0] if len(lines) == 1 or not lines[0].endswith(":") else f"{lines[0]} {lines[-1]}"
    return text if len(text) <= cap else text[:cap - 1] + "…"


def notes(record: dict) -> str:
    """What an instructor should know about a row, in one line."""
    parts = [one_line(record["message"])] if record.get("message") else []
    for e in record.get("events", []):
        if e["kind"] in ("timeout", "unresponsive", "dead_kernel", "notebook_timeout"):
            parts.append(f"{e['kind'].replace('_', ' ')} at {e.get('grade_id') or 'cell ' + str(e['cell'])}")
    if record.get("sandbox") == "none":
        parts.append("sandbox=none")
    return "; ".join(parts)


def export(course: Course, path: Path | None = None, lms: str | None = None) -> list[str]:
    """Write grades.csv, or with `lms` ("canvas", "moodle") a file that LMS's grade import takes
    (autograder/pipeline/lms_export.py, docs/LMS.md); return the lines to print."""
    problems: list[str] = []
    columns, data = rows(course, problems)
    if lms is not None:
        return problems + lms_export.write(course, lms, data, collected.load(course), path)
    path = Path(path or course.grades_csv)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(data)
    files.write_text(path, text.getvalue())
    return problems + [f"export: {len(data)} row(s) x {len(columns)} column(s) -> {path}"]


COLUMNS = f"{'chapter / exercise':34} {'n':>3} {'mean':>11} {'failed':>6} {'timeout':>7} {'dead':>4} {'error':>5}"


def _hit(record: dict, exercise: str, kinds: tuple[str, ...]) -> bool:
    """Did one of `kinds` of event happen in a test cell of `exercise`?"""
    return any(e["kind"] in kinds and notebooks.exercise_of(e.get("grade_id") or "") == exercise
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
