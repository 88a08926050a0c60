"""`collect`: place submissions from a folder or an LMS zip into submitted/<student>/<chapter>/.

Accepted layouts (inside the folder or zip, under any one wrapping folder):
    <student>/<chapter>/<anything>.ipynb     (nbgrader's own layout)
    <student>/<chapter>.ipynb
    <student>_<chapter>.ipynb                (a flat download)
    and the names Canvas, Moodle and Blackboard give their downloads (LMS below; README).
Only regular files are read: a symlink (to a file or a folder), a hard link, a device, fifo or
socket, and in a zip a symlink entry, an absolute path or `..`, is refused and listed, and the rest
is collected. Files are opened without following links and checked again once open, so nothing
swapped in between the check and the read is taken.

Nothing blocks the class (issue 46): a notebook that cannot be placed, read or that is another
chapter's is listed with the reason and the rest is collected. What happened to each student's
chapter (collected, unreadable, wrong chapter, ...) and the ids an LMS download gave are kept in
`work/collected.json` (autograder/pipeline/collected.py), so that `export` gives every student a row with
the reason, and `export --lms` the ids the LMS knows.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path, PurePosixPath

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.pipeline import collected
from autograder.pipeline.lms_names import STUDENT_ID, lms_ids, lms_place, student_of
from autograder.sandbox.safe_files import (
    MAX_NOTEBOOK_BYTES,
    MAX_ZIP_BYTES,
    extract,
    read_regular,
    walk,
)

__all__ = ["MAX_NOTEBOOK_BYTES", "MAX_ZIP_BYTES", "collect", "lms_place", "read_regular", "run", "walk"]


def _place(rel: PurePosixPath, chapters: set[str], given: str | None = None):
    """(student, chapter, note) for a notebook's relative path, or why it cannot be placed."""
    parts = rel.parts
    try:
        lms = lms_place(rel, chapters, given)
    except ValueError as e:
        return str(e)
    if lms:
        student, chapter, note = lms
    elif len(parts) == 3 and parts[1] in chapters:
        student, chapter, note = parts[0], parts[1], ""
    elif len(parts) == 2 and rel.stem in chapters:
        student, chapter, note = parts[0], rel.stem, ""
    elif len(parts) == 1:
        match = [c for c in chapters if rel.stem.endswith("_" + c)]
        if not match:
            return ("a flat file must be named <student>_<chapter>.ipynb with a known chapter, "
                    "or as Canvas or Blackboard name their downloads")
        chapter = max(match, key=len)
        student, note = rel.stem[: -len(chapter) - 1], ""
    else:
        return ("expected <student>/<chapter>/<notebook>.ipynb, <student>/<chapter>.ipynb, "
                "<student>_<chapter>.ipynb or an LMS download's names, with a known chapter")
    if not STUDENT_ID.match(student):
        return f"{student!r} is not a usable student id (letters, digits, . _ -)"
    return student, chapter, note


class Plan:
    """Where each notebook goes ((student, chapter) -> (relative path, note)), the problems (each
    listed; none stops the rest), the entries refused, the notebooks left out on purpose (older
    Blackboard attempts), the (student, chapter) with two notebooks (neither is collected), and per
    student what could not be placed."""

    def __init__(self):
        self.placed: dict[tuple[str, str], tuple[PurePosixPath, str]] = {}
        self.problems: list[str] = []
        self.refused: list[str] = []
        self.older: list[str] = []
        self.twice: dict[tuple[str, str], list[PurePosixPath]] = {}
        self.unplaced: dict[str, list[str]] = {}
        self.top: PurePosixPath | None = None  # the wrapping folder the paths are in, if any

    def under(self, top: PurePosixPath) -> Plan:
        """The same plan with every path inside the wrapping folder `top`."""
        moved = Plan()
        moved.placed = {k: (top / rel, note) for k, (rel, note) in self.placed.items()}
        moved.problems, moved.older = [f"{top}/{p}" for p in self.problems], [f"{top}/{p}" for p in self.older]
        moved.twice = {k: [top / rel for rel in rels] for k, rels in self.twice.items()}
        moved.unplaced = {s: [f"{top}/{p}" for p in items] for s, items in self.unplaced.items()}
        moved.top = top
        return moved


def plan(source: Path, chapters: list[str], chapter: str | None = None) -> Plan:
    """What to collect from the folder `source` (see Plan)."""
    found, refused = walk(source)
    result = _plan(found, chapters, chapter)
    tops = {rel.parts[0] for rel in found}
    if result.problems and len(tops) == 1 and all(len(rel.parts) > 1 for rel in found):  # a wrapping folder
        top = PurePosixPath(tops.pop())
        inner = _plan([PurePosixPath(*rel.parts[1:]) for rel in found], chapters, chapter)
        if len(inner.problems) < len(result.problems):
            result = inner.under(top)
    result.refused = refused
    return result


def _plan(found: list[PurePosixPath], chapters: list[str], chapter: str | None) -> Plan:
    result, placed = Plan(), {}
    for rel in found:
        where = _place(rel, set(chapters), chapter)
        if isinstance(where, str):
            result.problems.append(f"{rel}: {where}")
            if student := student_of(rel, set(chapters)):
                result.unplaced.setdefault(student, []).append(f"{rel.name}: {where}")
            continue
        key, note = where[:2], where[2]
        if key in placed and note.startswith("Blackboard") and placed[key][1].startswith("Blackboard"):
            (old_rel, _), placed[key] = sorted([placed[key], (rel, note)], key=lambda x: x[1])
            result.older.append(f"{old_rel}: an older Blackboard attempt of {key[0]} / {key[1]} "
                                f"(the latest, {placed[key][0]}, is collected)")
        elif key in placed or key in result.twice:
            result.twice.setdefault(key, [placed.pop(key)[0]] if key in placed else []).append(rel)
        else:
            placed[key] = (rel, note)
    for (student, chapter_id), rels in result.twice.items():
        result.problems.append(f"{student} / {chapter_id}: {len(rels)} notebooks ({', '.join(map(str, rels))}); "
                               "neither is collected: keep one")
    result.placed = placed
    return result


def _belongs(nb, chapter: str, course: Course, cache: dict[str, set[str]]) -> str:
    """'' when the notebook is one of `chapter`'s, else why not: none of its graded cells (nbgrader
    grade ids) is the chapter's, and which chapter it is when its cells say so. A notebook without
    any graded cell is left to the grader."""
    def ids(c: str) -> set[str]:
        if c not in cache:
            source = course.solution_ipynb(c)
            cache[c] = {notebooks.nbmeta(x).get("grade_id") for x in notebooks.read(source).cells} - {None} \
                if source.is_file() else set()
        return cache[c]
    mine = {notebooks.nbmeta(cell).get("grade_id") for cell in nb.cells if isinstance(cell, dict)} - {None}
    if not mine or not ids(chapter) or mine & ids(chapter):
        return ""
    best = max(course.chapters(), key=lambda c: len(mine & ids(c)))
    if mine & ids(best):
        return f"it is the notebook of chapter {best}, not of {chapter}"
    return f"none of its graded cells is one of chapter {chapter}'s (it was not made from the released notebook)"


def run(course: Course, source: Path, chapter: str | None = None):
    """Copy every notebook that can be placed and read into submitted/; return the lines to print,
    how many were copied, and the findings for collected.note: (outcomes, unplaced, ids)."""
    source = Path(source)
    if not source.exists():
        raise AutograderError(f"no such folder or zip: {source}")
    chapters = course.chapters()
    if not chapters:
        raise AutograderError(f"the course has no chapters in {course.source}")
    if chapter is not None:
        course.check_chapter(chapter)
    outcomes: dict[tuple[str, str], dict] = {}
    ids: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        staged, refused = Path(tmp) / "staged", []
        if source.is_file():
            if source.suffix.lower() != ".zip":
                raise AutograderError(f"{source} is neither a folder nor a .zip")
            (Path(tmp) / "zip").mkdir()
            refused = extract(source, Path(tmp) / "zip")
            folder = Path(tmp) / "zip"
        else:
            folder = source.resolve()
        found = plan(folder, chapters, chapter)
        refused += found.refused
        if not found.placed and not found.problems and not refused:
            raise AutograderError(f"no notebooks found in {source}")
        for key, rels in found.twice.items():
            outcomes[key] = {"status": "duplicate", "reason": f"{len(rels)} notebooks for one chapter: "
                                                              + ", ".join(r.name for r in rels)}
        copies, problems, belongs_cache = {}, list(found.problems), {}
        for key, (rel, note) in sorted(found.placed.items()):
            lms = lms_ids(rel.relative_to(found.top) if found.top else rel)
            extra = lms[2] if lms else {}
            if lms:
                ids[key[0]] = lms[1]
            try:  # read once, safely; every later step uses this copy
                data = read_regular(folder, rel)
            except ValueError as e:
                refused.append(f"{rel}: refused, {e}")
                outcomes[key] = {"status": "refused", "reason": str(e), "from": str(rel)} | extra
                continue
            staged_path = staged / key[0] / key[1] / f"{key[1]}.ipynb"
            staged_path.parent.mkdir(parents=True, exist_ok=True)
            staged_path.write_bytes(data)
            try:
                why = _belongs(notebooks.read(staged_path), key[1], course, belongs_cache)
            except AutograderError as e:
                why = str(e).replace(str(staged_path), "file")
                problems.append(f"{rel}: {why}")
                outcomes[key] = {"status": "unreadable", "reason": why.removeprefix("file is "), "from": str(rel)} | extra
                continue
            if why:
                problems.append(f"{rel}: wrong chapter: {why}")
                outcomes[key] = {"status": "wrong_chapter", "reason": why, "from": str(rel)} | extra
                continue
            copies[key] = (rel, note, staged_path)
            outcomes[key] = {"status": "collected", "from": str(rel)} | extra
        lines = []
        for (student, chapter_id), (rel, note, staged_path) in copies.items():
            dest = course.submitted / student / chapter_id / f"{chapter_id}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staged_path, dest)  # only the notebook: stray files never reach the grader
            lines.append(f"{student:20} {chapter_id:24} <- {rel}" + (f"  ({note})" if note else ""))
    lines += ([f"skipped: {p}" for p in problems] + [f"not collected: {o}" for o in found.older]
              + [f"refused: {r}" for r in refused])
    students = len({s for s, _ in copies})
    lines.append(f"collected {len(copies)} notebook(s) of {students} student(s) into {course.submitted}"
                 + (f"; {len(problems)} skipped" if problems else "")
                 + (f"; {len(refused)} entr(ies) refused" if refused else "")
                 + (" (listed above)" if problems or refused else ""))
    return lines, len(copies), (outcomes, found.unplaced, ids)


def collect(course: Course, source: Path, skip_bad: bool = True, chapter: str | None = None) -> list[str]:
    """Copy every notebook that can be placed and read into submitted/, list the rest with the
    reason, and note what happened to each student's chapter; return the lines to print. Refuses
    only when nothing at all can be collected. (`skip_bad` is what collect always does now; it is
    kept for old callers.)"""
    lines, copied, (outcomes, unplaced, ids) = run(course, source, chapter)
    collected.note(course, outcomes, unplaced, ids)
    if not copied:
        raise AutograderError(f"nothing to collect in {source}:\n  " + "\n  ".join(lines[:-1]))
    return lines
