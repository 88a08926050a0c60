"""nbgrader's exchange as a source for `collect` and a place for `release-feedback` (docs/HUB.md).

On a JupyterHub, students submit through the Assignments tab: nbgrader's exchange copies the
notebook to `<exchange>/<course>/inbound/<student>+<chapter>+<timestamp>+<random>/`, with
`timestamp.txt` and `submission_secret.txt` beside it. `collect_exchange` takes each student's
latest submission of each chapter (as `nbgrader collect` does), reads its notebook as `collect`
reads any file (no link followed, one name, a size cap) and hands the lot to `collect.collect`,
so an exchange passes the same checks as a folder or an LMS zip. What feedback needs later (the
timestamp and the secret) is kept in the workspace, `work/exchange.json`, never next to the
notebook the grader runs.

`release_feedback` puts each feedback page where nbgrader's Fetch Feedback looks for it:
`<exchange>/<course>/feedback/<md5(secret + notebook)>.html`, in a folder students may enter but
not list. Only a student's own submission holds the secret, so each finds only their own page.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from nbgrader.utils import notebook_hash, parse_utc

from autograder import collect
from autograder.course import COURSE_ID, AutograderError, Course

FEEDBACK_DIR_MODE = 0o711  # nbgrader's: students enter it, only the instructor lists it
PAGE_MODE = 0o644


def _record_path(course: Course) -> Path:
    return course.work / "exchange.json"


def inbound(exchange: Path, course_id: str) -> Path:
    folder = Path(exchange) / course_id / "inbound"
    if not folder.is_dir():
        raise AutograderError(f"no inbound folder for course {course_id!r} in the exchange {exchange} "
                              f"(nothing submitted yet, or another --course-id)")
    return folder


def latest(exchange: Path, course_id: str, chapters: list[str]) -> tuple[dict, list[str]]:
    """(student, chapter) -> (folder name, timestamp) of the latest submission; and the problems
    (names nbgrader never writes, unknown chapters, unreadable timestamps)."""
    found: dict[tuple[str, str], tuple[str, object, str]] = {}
    problems = []
    folder = inbound(exchange, course_id)
    for name in sorted(os.listdir(folder)):
        parts = name.split("+")
        if len(parts) not in (3, 4):
            problems.append(f"{name}: not a submission folder's name (<student>+<chapter>+<timestamp>[+random])")
            continue
        student, chapter, stamp = parts[:3]
        if chapter not in chapters:
            problems.append(f"{name}: {chapter!r} is not a chapter of this course")
            continue
        try:
            when = parse_utc(stamp)
        except (ValueError, OverflowError) as e:
            problems.append(f"{name}: unreadable timestamp ({e})")
            continue
        key = (student, chapter)
        if key not in found or when > found[key][1]:
            found[key] = (name, when, stamp)
    return {k: (name, stamp) for k, (name, _, stamp) in found.items()}, problems


def _secret(folder: Path, name: str) -> str:
    try:
        data = collect.read_regular(folder, PurePosixPath(name) / "submission_secret.txt")
    except ValueError:
        return ""  # an nbgrader older than 0.9 writes none: feedback then cannot be released
    return data.decode("ascii", "replace").strip()[:256]


def collect_exchange(course: Course, exchange: Path, course_id: str = COURSE_ID,
                     skip_bad: bool = False) -> list[str]:
    """Collect every student's latest submission of each chapter from the exchange."""
    chapters = course.chapters()
    picked, problems = latest(Path(exchange), course_id, chapters)
    folder = inbound(Path(exchange), course_id)
    records, refused = {}, []
    with tempfile.TemporaryDirectory(prefix="exchange-") as tmp:
        for (student, chapter), (name, stamp) in sorted(picked.items()):
            rel = PurePosixPath(name) / f"{chapter}.ipynb"
            try:
                data = collect.read_regular(folder, rel)
            except ValueError as e:
                refused.append(f"{rel}: refused, {e}")
                continue
            staged = Path(tmp) / student / chapter / f"{chapter}.ipynb"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(data)
            records[f"{student}/{chapter}"] = {"submission": name, "timestamp": stamp,
                                               "secret": _secret(folder, name)}
        if problems and not skip_bad:
            raise AutograderError(f"cannot collect from {folder}; nothing was copied:\n  " + "\n  ".join(problems)
                                  + "\n(remove these folders, or pass --skip-bad to collect the rest)")
        if not records:
            raise AutograderError(f"nothing to collect in {folder}" + "".join(f"\n  {r}" for r in refused))
        lines = collect.collect(course, Path(tmp), skip_bad=skip_bad)
    course.work.mkdir(parents=True, exist_ok=True)
    kept = _load(course)
    kept.update(records)
    _record_path(course).write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
    older = len(os.listdir(folder)) - len(picked) - len(problems)
    for key, record in records.items():  # say which submission folder each notebook came from
        lines = [line.replace(f"<- {key}/{key.split('/')[1]}.ipynb", f"<- inbound/{record['submission']}")
                 for line in lines]
    lines[-1:-1] = ([f"skipped: {p}" for p in problems] + [f"refused: {r}" for r in refused]
                    + ([f"not collected: {older} earlier submission(s) (the latest of each is)"] if older else []))
    lines[-1] += f" from the exchange {folder}"
    return lines


def _load(course: Course) -> dict:
    path = _record_path(course)
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise AutograderError(f"{path} is not JSON ({e}): collect from the exchange again") from None


def _own(path: Path, owner: os.stat_result) -> None:
    """Give what root made in the exchange to the course folder's owner."""
    if os.geteuid() == 0 and (os.stat(path).st_uid, os.stat(path).st_gid) != (owner.st_uid, owner.st_gid):
        os.chown(path, owner.st_uid, owner.st_gid)


def release_feedback(course: Course, exchange: Path, course_id: str = COURSE_ID) -> list[str]:
    """Copy each collected submission's feedback page to the exchange, named as nbgrader's Fetch
    Feedback looks for it; return the lines to print."""
    records = _load(course)
    if not records:
        raise AutograderError(f"no submissions collected from an exchange in {course.workspace} "
                              "(collect --exchange first)")
    dest = Path(exchange) / course_id / "feedback"
    dest.mkdir(mode=FEEDBACK_DIR_MODE, exist_ok=True)
    os.chmod(dest, FEEDBACK_DIR_MODE)
    owner = os.stat(dest.parent)  # the instructor's, who released the chapter: root keeps nothing
    _own(dest, owner)
    lines, released = [], 0
    for key, record in sorted(records.items()):
        student, chapter = key.split("/")
        page = course.feedback / student / chapter / f"{chapter}.html"
        if not page.is_file():
            lines.append(f"no feedback yet: {student} / {chapter} (run feedback first)")
            continue
        if not record.get("secret"):
            lines.append(f"cannot release: {student} / {chapter} was submitted without a secret (nbgrader < 0.9)")
            continue
        name = notebook_hash(secret=record["secret"], notebook_id=chapter) + ".html"
        tmp = dest / f".{name}.tmp"
        shutil.copyfile(page, tmp)
        os.chmod(tmp, PAGE_MODE)
        _own(tmp, owner)
        os.replace(tmp, dest / name)  # a student fetching now gets the old page or the new, whole
        released += 1
        lines.append(f"{student:20} {chapter:24} -> feedback/{name}")
    lines.append(f"released {released} feedback page(s) to {dest}")
    return lines
