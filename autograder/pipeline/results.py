"""One grading result per student x chapter: scores per test and exercise, status, what happened."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from autograder import notebooks
from autograder.course import Course

TEST_ID = re.compile(r"^(?P<exercise>.+?)_(hidden_)?tests(_\d+)?$")


def exercise_of(grade_id: str) -> str:
    """`parse_reply_tests` and `parse_reply_hidden_tests` belong to exercise `parse_reply`."""
    m = TEST_ID.match(grade_id)
    return m.group("exercise") if m else grade_id


def chapter_tests(nb) -> list[dict]:
    """The graded test cells of a notebook in order: grade_id, points, exercise."""
    tests = []
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if notebooks.is_test(cell):
            tests.append({"grade_id": meta["grade_id"], "points": float(meta.get("points", 0)),
                          "exercise": exercise_of(meta["grade_id"])})
    return tests


def first_error(cell) -> str | None:
    """'AssertionError: message' for the first error output of a cell, or None."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            text = notebooks.ANSI.sub("", f"{notebooks.safe_ename(output.get('ename'))}: "
                                            f"{output.get('evalue')}").strip()
            return shortened(text)
    return None


def shortened(text: str, limit: int = 300) -> str:
    """`text` in at most `limit` characters, its end kept when it is a hint (after the last " — "):
    the middle, a quoted value most often, is what goes (make check cut the hint off, issue 45)."""
    if len(text) <= limit:
        return text
    head, sep, hint = text.rpartition(" — ")
    if sep and len(hint) <= limit // 2:
        return head[: limit - len(hint) - len(sep) - 3] + "..." + sep + hint
    return text[: limit - 3] + "..."


def build(course: Course, student: str, chapter: str, scores: dict[str, float], seconds: float,
          message: str = "", sandbox: str = "") -> dict:
    """The result record, from the autograded notebook and the scores nbgrader saved."""
    tests = chapter_tests(notebooks.read(course.solution_ipynb(chapter)))
    path = course.autograded / student / chapter / f"{chapter}.ipynb"
    graded = notebooks.read(path) if path.is_file() else None
    meta = graded.metadata.get("autograder", {}) if graded else {}
    errors = {}
    if graded:
        for cell in graded.cells:
            grade_id = notebooks.nbmeta(cell).get("grade_id")
            if grade_id:
                errors[grade_id] = first_error(cell)
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


def clear(path: Path, within: Path | None = None) -> Path:
    """Remove `path` and anything in the way of its folders inside `within` (a symlink or a file
    where a folder goes), never following a link out of `within`. Returns the absolute path."""
    path, root = Path(path).absolute(), Path(within).absolute() if within else None
    for parent in reversed([path.parent, *path.parent.parents]):
        if root is not None and parent.is_relative_to(root) and parent != root and (
                parent.is_symlink() or (parent.exists() and not parent.is_dir())):
            parent.unlink()
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    return path


def write_text(path: Path, text: str, within: Path | None = None) -> None:
    """Write `path` whatever was put in its way inside `within` (a folder, a symlink, a file where
    a folder goes): the grader's own files are never blocked by what a submission left there."""
    path = clear(path, within)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if tmp.is_dir() and not tmp.is_symlink():
        shutil.rmtree(tmp)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def save(course: Course, record: dict) -> None:
    write_text(path_for(course, record["student"], record["chapter"]),
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
