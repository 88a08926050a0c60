"""What `collect` saw, kept in the workspace (`work/collected.json`) for `export` and
`release-feedback`: so that every student gets a row for every chapter, and a row says why it has
no grade (issue 46).

    outcomes   "<student>/<chapter>" -> the latest collect of that chapter for that student:
               {"status": "collected" | "unreadable" | "wrong_chapter" | "refused" | "duplicate",
                "reason": why not (not for collected), "from": the file, "late": bool,
                "participant": Moodle's participant id in that assignment}
    unplaced   student -> ["<file>: <why it could not be placed>"] (a name without a chapter, ...)
    ids        student -> the ids an LMS knows them by (autograder/pipeline/lms_names.py)
    roster     the course's students (from `collect --exchange`), or absent
    released   the chapters released to students (the exchange's outbound folder), or absent

Each collect updates the entries it saw and leaves the others.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from autograder.course import Course, json_object
from autograder.pipeline import files
from workbook.i18n import ENGLISH, known, tr

PROBLEMS = ("unreadable", "wrong_chapter", "refused", "duplicate")
LANGUAGES = "languages"  # beside a hub's exchange: root's `NAME LANG` lines, each student's language (docs/HUB.md)


def path(course: Course) -> Path:
    return course.work / "collected.json"


def load(course: Course) -> dict:
    """The record ({} pieces when nothing was collected yet)."""
    return {"outcomes": {}, "unplaced": {}, "ids": {}, **json_object(path(course), "collect again")}


def note(course: Course, outcomes: dict[tuple[str, str], dict], unplaced: dict[str, list[str]] | None = None,
         ids: dict[str, dict] | None = None, roster: list[str] | None = None,
         released: list[str] | None = None) -> None:
    """Merge one collect's findings into the record."""
    record = load(course)
    for (student, chapter), outcome in outcomes.items():
        record["outcomes"][f"{student}/{chapter}"] = outcome
    touched = {s for s, _ in outcomes} | set(unplaced or {})
    for student in touched:  # what a student's last collect could not place replaces the older list
        record["unplaced"].pop(student, None)
    for student, items in (unplaced or {}).items():
        record["unplaced"][student] = sorted(set(items))
    for student, found in (ids or {}).items():
        record["ids"].setdefault(student, {}).update(found)
    if roster is not None:
        record["roster"] = sorted(roster)
    if released is not None:
        record["released"] = sorted(released)
    files.write_text(path(course), json.dumps(record, indent=1, sort_keys=True) + "\n", within=course.workspace)


def outcome(record: dict, student: str, chapter: str) -> dict | None:
    return record["outcomes"].get(f"{student}/{chapter}")


def why_not(found: dict) -> str:
    """`unreadable: <reason>`, `wrong chapter: <reason>`, ...: one line for a row or a page."""
    return f"{found['status'].replace('_', ' ')}: {found.get('reason', '')}".rstrip(": ")


def why_page(chapter: str, why: str, submitted: str, lang: str = ENGLISH) -> str:
    """The page a student fetches when their submission has no feedback: what was received, and why
    (`why` already in `lang`, the student's language on the hub: student_language)."""
    chapter, why, submitted = html.escape(chapter), html.escape(why), html.escape(submitted)
    received = (tr(lang, "Your submission of {submitted} was received, but there is no feedback for it: {why}.",
                   submitted=submitted, why=why) if submitted else
                tr(lang, "Your submission was received, but there is no feedback for it: {why}.", why=why))
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{tr(lang, '{chapter}: no feedback', chapter=chapter)}"
            f"</title></head>\n<body><h1>{tr(lang, '{chapter}: no feedback for this submission', chapter=chapter)}</h1>\n"
            f"<p>{received}</p>\n<p>{tr(lang, 'Ask your instructor if this is not what you expected.')}</p></body></html>\n")


def student_language(exchange: Path, student: str) -> str:
    """The language the hub gives `student`'s server (DIR/languages beside the exchange, `NAME LANG`
    lines, root's; hub/setup_hub.py, student_language), so the page they fetch speaks it too;
    English when the file names none the course has."""
    try:
        lines = (Path(exchange).parent / LANGUAGES).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ENGLISH
    named = [words for words in (line.split("#")[0].split() for line in lines) if len(words) == 2]
    return next((known(lang) or ENGLISH for name, lang in named if name == student), ENGLISH)
