"""`collect`: place submissions from a folder or an LMS zip into submitted/<student>/<chapter>/.

Accepted layouts (inside the folder or zip, under any one wrapping folder):
    <student>/<chapter>/<anything>.ipynb     (nbgrader's own layout)
    <student>/<chapter>.ipynb
    <student>_<chapter>.ipynb                (a flat download)
    and the names Canvas, Moodle and Blackboard give their downloads (LMS below; README).
Only regular files are read: a symlink (to a file or a folder), a hard link, a device, fifo or
socket, and in a zip a symlink entry, an absolute path or `..`, is refused and listed, and the rest
is collected. Files are opened without following links and checked again once open, so nothing
swapped in between the check and the read is taken. Every notebook is checked before anything is
written; one that cannot be placed stops the collection (unless skip_bad).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath

from autograder import notebooks
from autograder.course import AutograderError, Course

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SKIP = ("__MACOSX", ".ipynb_checkpoints")
MAX_ZIP_BYTES = 500 * 1024 * 1024  # uncompressed; a zip bomb stops here
MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024  # one submitted notebook; a larger file is refused

# LMS download names (sources and dates in docs/SOURCES.md, "LMS exports").
CANVAS = re.compile(r"^(?P<name>[a-z0-9]*)_(?P<late>LATE_)?(?P<uid>\d+)_(?P<file_id>\d+)_(?P<orig>.+)$")
MOODLE = re.compile(r"^(?P<name>[^/]+)_(?P<pid>\d+)_assignsubmission_file_?$")
BLACKBOARD = re.compile(r"^(?P<assignment>.+)_(?P<user>[^_]+)_attempt_"
                        r"(?P<when>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<orig>.+))?$")


def _skipped(name: str) -> bool:
    return name in SKIP or name.startswith(".")


def _slug(name: str) -> str:
    """A Moodle full name as a student id: `Jane Doe` -> `jane-doe`."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


def _chapter_in(name: str, chapters: set[str], given: str | None) -> str:
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


def lms_place(rel: PurePosixPath, chapters: set[str], given: str | None = None):
    """(student, chapter, note) for an LMS download name, None if it is none, or ValueError."""
    parts = rel.parts
    if len(parts) >= 2 and (m := MOODLE.match(parts[0])):
        name, pid = m["name"], m["pid"]
        student = f"participant-{pid}" if name == "Participant" else _slug(name)  # blind marking
        return student, _chapter_in(rel.name, chapters, given), f"Moodle participant {pid}"
    if len(parts) == 1 and (m := CANVAS.match(rel.name)):
        note = "Canvas, LATE" if m["late"] else "Canvas"
        return f"{m['name']}_{m['uid']}" if m["name"] else m["uid"], _chapter_in(m["orig"], chapters, given), note
    if len(parts) == 1 and (m := BLACKBOARD.match(rel.stem)):
        named = m["orig"] if any(c in (m["orig"] or "") for c in chapters) else m["assignment"]
        chapter = _chapter_in(named, chapters, given)
        return m["user"], chapter, f"Blackboard attempt {m['when']}"
    return None


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


def walk(root: Path) -> tuple[list[PurePosixPath], list[str]]:
    """The notebooks under `root` that are regular files with one name, and every entry refused
    (a symlink, hard link, device, fifo or socket), without following any link."""
    found, refused, folders = [], [], [PurePosixPath()]
    while folders:
        folder = folders.pop()
        try:
            fd = _open_folder(root, folder)
        except OSError as e:
            refused.append(f"{folder}/: cannot be read safely ({e.strerror})")
            continue
        try:
            names = sorted(os.listdir(fd))
            for name in names:
                if _skipped(name):
                    continue
                rel, st = folder / name, os.stat(name, dir_fd=fd, follow_symlinks=False)
                why = _why_not(st)
                if stat.S_ISDIR(st.st_mode):
                    folders.append(rel)
                elif why and (name.endswith(".ipynb") or not stat.S_ISREG(st.st_mode)):
                    refused.append(f"{rel}: refused, {why}")  # a hard-linked stray file is just ignored
                elif not why and name.endswith(".ipynb"):
                    found.append(rel)
        finally:
            os.close(fd)
    return sorted(found), sorted(refused)


def _why_not(st: os.stat_result) -> str:
    """Why an entry is not collected ('' for a regular file with one name or a folder)."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link (links are never followed)"
    if stat.S_ISDIR(st.st_mode):
        return ""
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a device, fifo or socket)"
    if st.st_nlink > 1:
        return f"a hard link ({st.st_nlink} names for one file)"
    return ""


def _open_folder(root: Path, rel: PurePosixPath) -> int:
    """A descriptor for root/rel, opening each folder on the way without following a link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for part in rel.parts:
        try:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        fd = inner
    return fd


def read_regular(root: Path, rel: PurePosixPath, owner: int | None = None) -> bytes:
    """The bytes of root/rel, opened without following links and checked once open: a regular
    file with one name, at most MAX_NOTEBOOK_BYTES, and owned by the uid `owner` when one is given
    (nbgrader's exchange: the submitting account's). Raises ValueError saying why not."""
    try:
        folder = _open_folder(root, rel.parent)
    except OSError as e:
        raise ValueError(f"a folder on its path cannot be opened without following a link ({e.strerror})") from None
    try:
        fd = os.open(rel.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as e:
        raise ValueError(f"cannot be opened without following a link ({e.strerror})") from None
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        why = _why_not(st)
        if why:
            raise ValueError(why)
        if owner is not None and st.st_uid != owner:
            raise ValueError(f"owned by uid {st.st_uid}, not by the submitting account (uid {owner})")
        data = f.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES >> 20} MB")
    return data


def _extract(zip_path: Path, into: Path) -> list[str]:
    """Unpack the zip's notebooks as plain files; return the entries refused, with why."""
    refused = []
    try:
        with zipfile.ZipFile(zip_path) as zf:
            infos = zf.infolist()
            if sum(i.file_size for i in infos) > MAX_ZIP_BYTES:
                raise AutograderError(f"{zip_path} unpacks to more than {MAX_ZIP_BYTES >> 20} MB")
            for info in infos:
                name, mode = PurePosixPath(info.filename), info.external_attr >> 16
                if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
                    refused.append(f"{info.filename}: refused, an unsafe path in the zip (absolute or ..)")
                elif stat.S_ISLNK(mode):
                    refused.append(f"{info.filename}: refused, a symbolic link in the zip")
                elif mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    refused.append(f"{info.filename}: refused, not a regular file in the zip")
                elif not info.is_dir() and name.suffix == ".ipynb" and not any(map(_skipped, name.parts)):
                    target = into.joinpath(*name.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(target, "xb") as dst:
                        shutil.copyfileobj(src, dst)
    except zipfile.BadZipFile as e:
        raise AutograderError(f"{zip_path} is not a zip file ({e})") from None
    except FileExistsError as e:
        raise AutograderError(f"{zip_path}: two entries unpack to one name ({e.filename})") from None
    return refused


def plan(source: Path, chapters: list[str], chapter: str | None = None):
    """For the folder `source`: where each notebook goes ((student, chapter) -> (relative path,
    note)), the problems that stop the collection, the entries refused, the notebooks left out on
    purpose (older Blackboard attempts)."""
    found, refused = walk(source)
    placed, problems, older = _plan(found, chapters, chapter)
    tops = {rel.parts[0] for rel in found}
    if problems and len(tops) == 1 and all(len(rel.parts) > 1 for rel in found):  # a wrapping folder
        top = tops.pop()
        inner = _plan([PurePosixPath(*rel.parts[1:]) for rel in found], chapters, chapter)
        if len(inner[1]) < len(problems):
            placed = {k: (PurePosixPath(top) / rel, note) for k, (rel, note) in inner[0].items()}
            problems, older = [f"{top}/{p}" for p in inner[1]], [f"{top}/{p}" for p in inner[2]]
    return placed, problems, refused, older


def _plan(found: list[PurePosixPath], chapters: list[str], chapter: str | None):
    placed, problems, older = {}, [], []
    for rel in found:
        where = _place(rel, set(chapters), chapter)
        if isinstance(where, str):
            problems.append(f"{rel}: {where}")
            continue
        key, note = where[:2], where[2]
        if key in placed and note.startswith("Blackboard") and placed[key][1].startswith("Blackboard"):
            (old_rel, _), placed[key] = sorted([placed[key], (rel, note)], key=lambda x: x[1])
            older.append(f"{old_rel}: an older Blackboard attempt of {key[0]} / {key[1]} "
                         f"(the latest, {placed[key][0]}, is collected)")
        elif key in placed:
            problems.append(f"{rel}: a second notebook for {key[0]} / {key[1]} (first: {placed[key][0]})")
        else:
            placed[key] = (rel, note)
    return placed, problems, older


def collect(course: Course, source: Path, skip_bad: bool = False, chapter: str | None = None) -> list[str]:
    """Copy every placeable notebook into submitted/; return the lines to print."""
    source = Path(source)
    if not source.exists():
        raise AutograderError(f"no such folder or zip: {source}")
    chapters = course.chapters()
    if not chapters:
        raise AutograderError(f"the course has no chapters in {course.source}")
    if chapter is not None:
        course.check_chapter(chapter)
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        staged, refused = Path(tmp) / "staged", []
        if source.is_file():
            if source.suffix.lower() != ".zip":
                raise AutograderError(f"{source} is neither a folder nor a .zip")
            (Path(tmp) / "zip").mkdir()
            refused = _extract(source, Path(tmp) / "zip")
            folder = Path(tmp) / "zip"
        else:
            folder = source.resolve()
        placed, problems, walk_refused, older = plan(folder, chapters, chapter)
        refused += walk_refused
        if not placed and not problems and not refused:
            raise AutograderError(f"no notebooks found in {source}")
        copies = {}
        for key, (rel, note) in sorted(placed.items()):
            try:  # read once, safely; every later step uses this copy
                data = read_regular(folder, rel)
            except ValueError as e:
                refused.append(f"{rel}: refused, {e}")
                continue
            staged_path = staged / key[0] / key[1] / f"{key[1]}.ipynb"
            staged_path.parent.mkdir(parents=True, exist_ok=True)
            staged_path.write_bytes(data)
            try:
                notebooks.read(staged_path)
            except AutograderError as e:
                problems.append(f"{rel}: {str(e).replace(str(staged_path), 'file')}")
                continue
            copies[key] = (rel, note, staged_path)
        if problems and not skip_bad:
            raise AutograderError(f"cannot collect {source}; nothing was copied:\n  "
                                  + "\n  ".join(problems + refused)
                                  + "\n(fix or remove these files, or pass --skip-bad to collect the rest)")
        if not copies and refused:
            raise AutograderError(f"nothing to collect in {source}:\n  " + "\n  ".join(refused))
        lines = []
        for (student, chapter_id), (rel, note, staged_path) in copies.items():
            dest = course.submitted / student / chapter_id / f"{chapter_id}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staged_path, dest)  # only the notebook: stray files never reach the grader
            lines.append(f"{student:20} {chapter_id:24} <- {rel}" + (f"  ({note})" if note else ""))
    lines += ([f"skipped: {p}" for p in problems] + [f"not collected: {o}" for o in older]
              + [f"refused: {r}" for r in refused])
    students = len({s for s, _ in copies})
    lines.append(f"collected {len(copies)} notebook(s) of {students} student(s) into {course.submitted}"
                 + (f"; {len(refused)} entr(ies) refused (listed above)" if refused else ""))
    return lines
