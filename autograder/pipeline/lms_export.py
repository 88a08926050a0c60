"""`export --lms canvas|moodle`: grades as Canvas's and Moodle's grade imports read them (formats and
their sources in docs/LMS.md and docs/SOURCES.md, "LMS grade imports").

Canvas (Grades > Import): one CSV, one row a student, one column a chapter. Its header starts
`Student, ID, SIS User ID, SIS Login ID, Section`; a `Points Possible` row gives each chapter's
maximum. Canvas finds the student by ID (its user id, which a Canvas download's file names carry),
else by SIS User ID or SIS Login ID, else by name; a chapter column by its title (or `Title (id)`),
and a title it does not know becomes a new assignment.

Moodle: the course gradebook's CSV import (Grades > Import > CSV file) maps an identifier column
to a user field (username, email, ID number, user id) and each other column to a grade item, so
`moodle.csv` has `Username` and one column a chapter. A student Moodle's assignment download named
(folder `Full Name_<participant id>_assignsubmission_file_`) has no username here, only a
participant id, which is the assignment's own: their grades go into one grading worksheet per
chapter, `moodle-<chapter>.csv` (Identifier `Participant <id>`, Grade, Last modified (grade)), to
upload in that assignment (View all submissions > Upload grading worksheet).

A row without a grade (missing, not graded, unreadable, another chapter's notebook, a grader
error) gets an empty cell and is listed, so the LMS is never told a zero the student did not earn.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

from autograder.course import AutograderError, Course
from autograder.pipeline import collected, files

LMS = ("canvas", "moodle")
NO_GRADE = {"missing", "not_graded", "error", *collected.PROBLEMS}


def _csv(rows: list[list]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue()


def _cell(row: dict) -> str:
    return "" if row["status"] in NO_GRADE else str(row["score"])


def _table(data: list[dict]) -> tuple[list[str], list[str], dict]:
    students = list(dict.fromkeys(r["student"] for r in data))
    chapters = list(dict.fromkeys(r["chapter"] for r in data))
    return students, chapters, {(r["student"], r["chapter"]): r for r in data}


def _blanks(data: list[dict]) -> list[str]:
    return [f"left empty: {r['student']} / {r['chapter']}: {r['status']} ({r['notes']})"
            for r in data if r["status"] in NO_GRADE and r["status"] != "missing"] + \
           [f"left empty: {n} missing chapter(s) (no submission)" for n in
            [sum(r["status"] == "missing" for r in data)] if n]


def canvas(data: list[dict], seen: dict) -> tuple[str, list[str]]:
    students, chapters, by = _table(data)
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *chapters],
            ["    Points Possible", "", "", "", "", *(by[(students[0], c)]["max_score"] for c in chapters)]]
    lines = []
    for student in students:
        ids = seen["ids"].get(student, {})
        canvas_id = ids.get("id", "") if ids.get("lms") == "canvas" else ""
        login = "" if canvas_id else ids.get("username", student)
        name = ids.get("full_name") or ids.get("name") or student
        rows.append([name, canvas_id, "", login, "", *(_cell(by[(student, c)]) for c in chapters)])
        if not canvas_id:
            lines.append(student)
    if lines:  # Canvas looks them up by SIS Login ID (their student id here), else by name
        lines = [f"no Canvas user id (not collected from a Canvas download), matched by SIS Login ID or name: "
                 f"{', '.join(lines)}"]
    lines += [f"late: {s} / {c} (Canvas's LATE; the score is not changed)" for s in students for c in chapters
              if (collected.outcome(seen, s, c) or {}).get("late")]
    return _csv(rows), lines


def moodle(data: list[dict], seen: dict, now: datetime) -> tuple[str, dict[str, str], list[str]]:
    students, chapters, by = _table(data)
    named = [s for s in students if seen["ids"].get(s, {}).get("lms") != "moodle"]
    rows = [["Username", *chapters]] + [[s, *(_cell(by[(s, c)]) for c in chapters)] for s in named]
    sheets, lines = {}, []
    stamp = now.strftime("%Y-%m-%d %H:%M:%S UTC")
    for chapter in chapters:
        sheet = [["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"]]
        for student in students:
            found = collected.outcome(seen, student, chapter) or {}
            row = by[(student, chapter)]
            if found.get("participant") and _cell(row):
                full = seen["ids"].get(student, {}).get("full_name", student)
                sheet.append([f"Participant {found['participant']}", full, _cell(row), row["max_score"], stamp])
        if len(sheet) > 1:
            sheets[chapter] = _csv(sheet)
    only_moodle = [s for s in students if s not in named]
    if only_moodle:
        lines.append(f"not in the gradebook file (no username, only Moodle participant ids): {', '.join(only_moodle)}")
    return _csv(rows), sheets, lines


def write(course: Course, lms: str, data: list[dict], seen: dict, path: Path | None = None,
          now: datetime | None = None) -> list[str]:
    """Write the file(s) for `lms`; return the lines to print."""
    if lms not in LMS:
        raise AutograderError(f"--lms {lms}: unknown; choose {' or '.join(LMS)}")
    if not data:
        raise AutograderError("no grades to export")
    path = Path(path or course.workspace / f"{lms}.csv")
    if lms == "canvas":
        text, lines = canvas(data, seen)
        files.write_text(path, text)
        lines.append(f"export: Canvas gradebook import, {text.count(chr(10)) - 2} student(s) -> {path} "
                     "(Grades > Import)")
        return _blanks(data) + lines
    text, sheets, lines = moodle(data, seen, now or datetime.now(UTC))
    files.write_text(path, text)
    lines.append(f"export: Moodle gradebook import, {text.count(chr(10)) - 1} student(s) -> {path} "
                 "(Grades > Import > CSV file; map Username to username)")
    for chapter, sheet in sheets.items():
        sheet_path = path.with_name(f"{path.stem}-{chapter}.csv")
        files.write_text(sheet_path, sheet)
        lines.append(f"export: Moodle grading worksheet of {chapter}, {sheet.count(chr(10)) - 1} participant(s) "
                     f"-> {sheet_path} (in the assignment: Upload grading worksheet)")
    return _blanks(data) + lines
