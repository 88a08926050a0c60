"""nbgrader's exchange as a source for `collect` and a place for `release-feedback` (docs/HUB.md).

On a JupyterHub, students submit through the Assignments tab: nbgrader's exchange copies the
notebook to `<exchange>/<course>/inbound/<student>+<chapter>+<timestamp>+<random>/`, with
`timestamp.txt` and `submission_secret.txt` beside it. `collect_exchange` takes each student's
latest submission of each chapter (as `nbgrader collect` does), reads its notebook as `collect`
reads any file and hands the lot to `collect.run` (the same checks as a folder or an LMS zip). The
timestamp and the secret are kept in `work/exchange.json`, never next to the notebook graded.

The folder's name says who and when, and any account may write it (inbound is writable by all),
so the name alone proves nothing (issue 46). A submission counts only when the student it names is
on the course's roster (`--roster`, else the hub's list in the hub.json beside the exchange), the
folder and every file in it belong to that student's account (the uid of that user), and its time
is no later than now plus CLOCK_SKEW. Any other folder is listed with the reason and skipped before
the latest is chosen, so it never blocks the class, nor hides or replaces another student's work.

`release_feedback` puts each feedback page where nbgrader's Fetch Feedback looks for it:
`<exchange>/<course>/feedback/<md5(secret + notebook)>.html`, in a folder students may enter but
not list: each finds only their own page. A submission without a page gets one that says why.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath

from nbgrader.utils import notebook_hash, parse_utc

from autograder.course import COURSE_ID, AutograderError, Course, json_object
from autograder.pipeline import collect, collected, results
from workbook.i18n import ENGLISH, tr

FEEDBACK_DIR_MODE = 0o711  # nbgrader's: students enter it, only the instructor lists it
PAGE_MODE = 0o644
CLOCK_SKEW = timedelta(minutes=2)  # a student's server's clock may run this far ahead of ours
HUB_SETTINGS = "hub.json"  # hub/setup_hub.py writes it beside the exchange, with the students' list

UidOf = Callable[[str], int | None]


def _record_path(course: Course) -> Path:
    return course.work / "exchange.json"


def inbound(exchange: Path, course_id: str) -> Path:
    folder = Path(exchange) / course_id / "inbound"
    if not folder.is_dir():
        raise AutograderError(f"no inbound folder for course {course_id!r} in the exchange {exchange} "
                              f"(nothing submitted yet, or another --course-id)")
    return folder


def uid_of(student: str) -> int | None:
    """The uid of the account named `student` on this machine, None when there is none."""
    try:
        return pwd.getpwnam(student).pw_uid
    except KeyError:
        return None


def _account(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def roster(exchange: Path, given: str | Iterable[str] | None = None) -> tuple[frozenset[str], str]:
    """The course's students and where the list comes from: `given` (names, a comma-separated
    string of them, or a file of them, one a line), else the hub's list of students in the
    hub.json that hub/setup_hub.py wrote beside the exchange (root's, closed to students). Not
    nbgrader's gradebook: grading adds every student it grades to it, so it lists whoever was
    collected."""
    if given is not None:
        if isinstance(given, str) and "/" in given and not Path(given).is_file():
            raise AutograderError(f"--roster {given}: no such file")
        if isinstance(given, str) and Path(given).is_file():
            names, source = Path(given).read_text(encoding="utf-8").split(), f"the roster {given}"
        else:
            names = given.split(",") if isinstance(given, str) else list(given)
            source = "--roster"
        names = [n.strip() for n in names if n.strip()]
        if not names:
            raise AutograderError(f"{source} names no student")
        return frozenset(names), source
    path = Path(exchange).parent / HUB_SETTINGS
    how = ("pass --roster FILE (one account a line) or --roster NAME,NAME; on a hub that hub/setup_hub.py "
           "set up, run collect as root so that it reads the hub's list")
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        raise AutograderError(f"no roster of the course's students: {path} does not exist; {how}") from None
    if not stat.S_ISREG(st.st_mode) or st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022:
        raise AutograderError(f"{path} is not a settings file only root writes, so its students' list cannot "
                              f"be trusted; {how}")
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AutograderError(f"cannot read the hub's list of students in {path} ({e.strerror}); {how}") from None
    except ValueError as e:
        raise AutograderError(f"{path} is not JSON ({e}); {how}") from None
    if not isinstance(settings, dict) or Path(str(settings.get("exchange", ""))).resolve() != Path(exchange).resolve():
        raise AutograderError(f"{path} is not the settings of the exchange {exchange}; {how}")
    students = settings.get("students")
    if not isinstance(students, list) or not students or not all(isinstance(n, str) for n in students):
        raise AutograderError(f"{path} lists no students; {how}")
    return frozenset(students), f"the hub's students ({path})"


def _foreign(folder: Path, uid: int) -> str | None:
    """The first thing in `folder` (itself included, links not followed) another account owns."""
    for here, dirs, files in os.walk(folder):
        for name in [".", *dirs, *files]:
            path = Path(here) / name
            owner = os.lstat(path).st_uid
            if owner != uid:
                return f"{path.relative_to(folder.parent)} belongs to {_account(owner)}"
    return None


def latest(exchange: Path, course_id: str, chapters: list[str], students: Iterable[str] = (),
           who: UidOf = uid_of, now: datetime | None = None) -> tuple[dict, list[str], int]:
    """(student, chapter) -> (folder name, timestamp, uid) of each student's latest submission
    that counts; the folders that do not count, each with the reason (names nbgrader never writes,
    unknown chapters, unreadable timestamps, a student not on the roster `students`, a folder or
    file another account owns, a time in the future); and how many earlier submissions count but
    are not the latest. `who` gives a student's uid (tests stand in for the accounts)."""
    found: dict[tuple[str, str], list[tuple[datetime, str, str, int]]] = {}
    problems = []
    enrolled = set(students)
    latest_allowed = (now or datetime.now(UTC).replace(tzinfo=None)) + CLOCK_SKEW
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
        if student not in enrolled:
            problems.append(f"{name}: {student!r} is not on the course's roster")
            continue
        uid = who(student)
        if uid is None:
            problems.append(f"{name}: there is no account {student!r} here, so who made it cannot be checked")
            continue
        st = os.lstat(folder / name)
        if not stat.S_ISDIR(st.st_mode):
            problems.append(f"{name}: not a folder (a link or a file)")
            continue
        if st.st_uid != uid:
            problems.append(f"{name}: made by {_account(st.st_uid)}, not by {student}'s account (uid {uid})")
            continue
        if foreign := _foreign(folder / name, uid):
            problems.append(f"{name}: {foreign}, not to {student}'s account (uid {uid})")
            continue
        if when > latest_allowed:
            problems.append(f"{name}: dated {when:%Y-%m-%d %H:%M:%S} UTC, later than now: "
                            "a submission cannot come from the future")
            continue
        found.setdefault((student, chapter), []).append((when, name, stamp, uid))
    picked = {key: max(subs) for key, subs in found.items()}
    older = sum(len(subs) for subs in found.values()) - len(picked)
    return {k: (name, stamp, uid) for k, (_, name, stamp, uid) in picked.items()}, problems, older


def _secret(folder: Path, name: str, uid: int | None = None) -> str:
    try:
        data = collect.read_regular(folder, PurePosixPath(name) / "submission_secret.txt", owner=uid)
    except ValueError:
        return ""  # an nbgrader older than 0.9 writes none: feedback then cannot be released
    return data.decode("ascii", "replace").strip()[:256]


def collect_exchange(course: Course, exchange: Path, course_id: str = COURSE_ID, skip_bad: bool = True,
                     students: str | Iterable[str] | None = None, who: UidOf = uid_of,
                     now: datetime | None = None) -> list[str]:
    """Collect every student's latest submission of each chapter from the exchange. `students`
    is the roster (see `roster`; default: the hub's list). A folder that does not count, a notebook
    that cannot be read or is another chapter's, is listed and never stops the rest; what happened
    to each is noted for `export` and `release-feedback` (`skip_bad` is kept for old callers)."""
    chapters = course.chapters()
    folder = inbound(Path(exchange), course_id)
    enrolled, source = roster(Path(exchange), students)
    picked, problems, older = latest(Path(exchange), course_id, chapters, enrolled, who, now)
    if not picked:
        raise AutograderError(f"nothing to collect in {folder} (roster: {source})"
                              + "".join(f"\n  skipped: {p}" for p in problems))
    records, refused, outcomes = {}, [], {}
    with tempfile.TemporaryDirectory(prefix="exchange-") as tmp:
        for (student, chapter), (name, stamp, uid) in sorted(picked.items()):
            records[f"{student}/{chapter}"] = {"submission": name, "timestamp": stamp,
                                               "secret": _secret(folder, name, uid)}
            rel = PurePosixPath(name) / f"{chapter}.ipynb"
            try:
                data = collect.read_regular(folder, rel, owner=uid)
            except ValueError as e:
                refused.append(f"{rel}: refused, {e}")
                outcomes[(student, chapter)] = {"status": "refused", "reason": str(e)}
                continue
            staged = Path(tmp) / student / chapter / f"{chapter}.ipynb"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(data)
        lines, _, (found, _, _) = collect.run(course, Path(tmp)) if len(outcomes) < len(picked) else \
            ([f"collected 0 notebook(s) of 0 student(s) into {course.submitted}"], 0, ({}, {}, {}))
        outcomes.update(found)
    for (student, chapter), found in outcomes.items():
        record = records[f"{student}/{chapter}"]
        found["from"] = f"inbound/{record['submission']}"
        if found["status"] != "collected":
            record["problem"] = collected.why_not(found)
        lines = [line.replace(f"{student}/{chapter}/{chapter}.ipynb", found["from"]) for line in lines]
    outbound = Path(exchange) / course_id / "outbound"  # what was released: nbgrader's release_assignment
    collected.note(course, outcomes, roster=sorted(enrolled),
                   released=sorted(set(os.listdir(outbound)) & set(chapters)) if outbound.is_dir() else None)
    kept = _load(course)
    kept.update(records)
    _record_path(course).write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
    lines[-1:-1] = ([f"skipped: {p}" for p in problems] + [f"refused: {r}" for r in refused]
                    + ([f"not collected: {older} earlier submission(s) (the latest of each is)"] if older else []))
    lines[-1] += f" from the exchange {folder} (roster: {source})"
    return lines


def _load(course: Course) -> dict:
    return json_object(_record_path(course), "collect from the exchange again")


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
        if not record.get("secret"):
            lines.append(f"cannot release: {student} / {chapter} was submitted without a secret (nbgrader < 0.9)")
            continue
        name = notebook_hash(secret=record["secret"], notebook_id=chapter) + ".html"
        tmp = dest / f".{name}.tmp"
        if page.is_file() and not record.get("problem"):
            shutil.copyfile(page, tmp)
            lines.append(f"{student:20} {chapter:24} -> feedback/{name}")
        else:
            why, todo = _no_page(course, student, chapter, record)
            lang = collected.student_language(exchange, student)
            said = why if lang == ENGLISH else _no_page(course, student, chapter, record, lang)[0]
            tmp.write_text(collected.why_page(chapter, said, record.get("timestamp", ""), lang), encoding="utf-8")
            lines.append(f"{student:20} {chapter:24} -> feedback/{name}: no feedback page ({why}; {todo}); "
                         "released a page that says so")
        os.chmod(tmp, PAGE_MODE)
        _own(tmp, owner)
        os.replace(tmp, dest / name)  # a student fetching now gets the old page or the new, whole
        released += 1
    lines.append(f"released {released} feedback page(s) to {dest}")
    return lines


def _no_page(course: Course, student: str, chapter: str, record: dict, lang: str = ENGLISH) -> tuple[str, str]:
    """Why a submission has no feedback page (for the student, in `lang`), and what the instructor can do."""
    result = results.load(course, student, chapter)
    if record.get("problem"):  # the problem's own words (collect's) stay as they are
        return tr(lang, "it was not graded: {problem}", problem=record["problem"]), "the student can submit again"
    if result is None:
        return tr(lang, "it has not been graded yet"), "run grade, then feedback and release-feedback again"
    if result["status"] == "error":  # the grader's message stays with the instructor (grades.csv notes)
        return tr(lang, "the grader could not grade it; your instructor has the details"), "see grades.csv's notes"
    return tr(lang, "its feedback page has not been made yet"), "run feedback, then release-feedback again"
