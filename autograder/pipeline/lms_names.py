"""What the names in an LMS's "download all submissions" zip say: the student, the chapter, and the
ids the LMS knows them by (sources and dates in docs/SOURCES.md, "LMS exports"; docs/LMS.md).

`lms_place` maps a download name to (student, chapter, note) for `collect`; `lms_ids` gives the ids
`export --lms` needs to hand grades back: Canvas's user id and LATE flag, Moodle's participant id
(one per assignment) and the student's full name, Blackboard's username and attempt.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CANVAS = re.compile(r"^(?P<name>[a-z0-9]*)_(?P<late>LATE_)?(?P<uid>\d+)_(?P<file_id>\d+)_(?P<orig>.+)$")
MOODLE = re.compile(r"^(?P<name>[^/]+)_(?P<pid>\d+)_assignsubmission_file_?$")
# The first `_<user>_attempt_<date>` is Blackboard's: what follows it is the uploader's own file name,
# which may spell another one (red team 5: `x_bob_attempt_2099-..._01.ipynb` read as bob's attempt).
BLACKBOARD = re.compile(r"^(?P<assignment>.+?)_(?P<user>[^_]+)_attempt_"
                        r"(?P<when>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<orig>.+))?$")


def slug(name: str) -> str:
    """A Moodle full name as a student id: `Jane Doe` -> `jane-doe`."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


def chapter_in(name: str, chapters: set[str], given: str | None) -> str:
    """The chapter a file name names (the longest known id in it), else `given`, else why not."""
    found = [c for c in chapters if c in name]
    if found:
        chapter = max(found, key=len)
        if given and chapter != given:
            raise ValueError(f"the name says chapter {chapter} but --chapter is {given}")
        return chapter
    if given:
        return given
    raise ValueError(f"the original file name {name!r} names no known chapter: pass --chapter")


def lms_ids(rel: PurePosixPath) -> tuple[str, dict, dict] | None:
    """(student, the student's ids, this submission's ids) for an LMS download name, or None.
    The student's ids hold `lms` and what that LMS knows them by; the submission's hold what
    belongs to this one file (Canvas's LATE flag, Moodle's participant id for this assignment)."""
    parts = rel.parts
    if len(parts) >= 2 and (m := MOODLE.match(parts[0])):
        name, pid = m["name"], m["pid"]
        if name == "Participant":  # blind marking: the id stands for the student in this assignment only
            return f"participant-{pid}", {"lms": "moodle"}, {"participant": pid}
        return slug(name), {"lms": "moodle", "full_name": name}, {"participant": pid}
    if len(parts) == 1 and (m := CANVAS.match(rel.name)):
        student = f"{m['name']}_{m['uid']}" if m["name"] else m["uid"]
        return student, {"lms": "canvas", "id": m["uid"], "name": m["name"]}, {"late": bool(m["late"])}
    if len(parts) == 1 and (m := BLACKBOARD.match(rel.stem)):
        return m["user"], {"lms": "blackboard", "username": m["user"]}, {"attempt": m["when"]}
    return None


def lms_place(rel: PurePosixPath, chapters: set[str], given: str | None = None):
    """(student, chapter, note) for an LMS download name, None if it is none, or ValueError."""
    parts = rel.parts
    if len(parts) >= 2 and (m := MOODLE.match(parts[0])):
        name, pid = m["name"], m["pid"]
        student = f"participant-{pid}" if name == "Participant" else slug(name)  # blind marking
        return student, chapter_in(rel.name, chapters, given), f"Moodle participant {pid}"
    if len(parts) == 1 and (m := CANVAS.match(rel.name)):
        note = "Canvas, LATE" if m["late"] else "Canvas"
        return f"{m['name']}_{m['uid']}" if m["name"] else m["uid"], chapter_in(m["orig"], chapters, given), note
    if len(parts) == 1 and (m := BLACKBOARD.match(rel.stem)):
        named = m["orig"] if any(c in (m["orig"] or "") for c in chapters) else m["assignment"]
        chapter = chapter_in(named, chapters, given)
        return m["user"], chapter, f"Blackboard attempt {m['when']}"
    return None


def student_of(rel: PurePosixPath, chapters: set[str]) -> str | None:
    """Whose a notebook that cannot be placed is, when its name says (an LMS name, a student's
    folder, `<student>_<chapter>`), so that their rows can say what was not collected."""
    found = lms_ids(rel)
    if found:
        student = found[0]
    elif len(rel.parts) >= 2:
        student = rel.parts[0]
    else:
        student = next((rel.stem[: -len(c) - 1] for c in sorted(chapters, key=len, reverse=True)
                        if rel.stem.endswith("_" + c)), "")
    return student if STUDENT_ID.match(student) else None
