"""`collect`: place submissions from a folder or an LMS zip into submitted/<student>/<chapter>/.

Accepted layouts (inside the folder or zip, under any one wrapping folder):
    <student>/<chapter>/<anything>.ipynb     (nbgrader's own layout)
    <student>/<chapter>.ipynb
    <student>_<chapter>.ipynb                (a flat LMS download)
Every notebook is checked before anything is written; a file that cannot be placed is an error.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from autograder import notebooks
from autograder.course import AutograderError, Course

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SKIP = ("__MACOSX", ".ipynb_checkpoints")
MAX_ZIP_BYTES = 500 * 1024 * 1024  # uncompressed; a zip bomb stops here


def _place(rel: PurePosixPath, chapters: set[str]) -> tuple[str, str] | str:
    """(student, chapter) for a notebook's relative path, or why it cannot be placed."""
    parts = rel.parts
    if len(parts) == 3 and parts[1] in chapters:
        student, chapter = parts[0], parts[1]
    elif len(parts) == 2 and rel.stem in chapters:
        student, chapter = parts[0], rel.stem
    elif len(parts) == 1:
        match = [c for c in chapters if rel.stem.endswith("_" + c)]
        if not match:
            return "a flat file must be named <student>_<chapter>.ipynb with a known chapter"
        chapter = max(match, key=len)
        student = rel.stem[: -len(chapter) - 1]
    else:
        return ("expected <student>/<chapter>/<notebook>.ipynb, <student>/<chapter>.ipynb "
                "or <student>_<chapter>.ipynb, with a known chapter")
    if not STUDENT_ID.match(student):
        return f"{student!r} is not a usable student id (letters, digits, . _ -)"
    return student, chapter


def plan(source: Path, chapters: list[str]) -> tuple[dict[tuple[str, str], Path], list[str]]:
    """Where each notebook under `source` goes, and the problems that stop the collection."""
    placed, problems = _plan(source, chapters)
    entries = [p for p in source.iterdir() if p.name not in SKIP and not p.name.startswith(".")]
    if problems and len(entries) == 1 and entries[0].is_dir():  # a wrapping folder, as zips often have
        inner = _plan(entries[0], chapters)
        if len(inner[1]) < len(problems):
            return inner
    return placed, problems


def _plan(root: Path, chapters: list[str]) -> tuple[dict[tuple[str, str], Path], list[str]]:
    placed: dict[tuple[str, str], Path] = {}
    problems = []
    for path in sorted(root.rglob("*.ipynb")):
        rel = PurePosixPath(path.relative_to(root).as_posix())
        if any(part in SKIP or part.startswith(".") for part in rel.parts):
            continue
        where = _place(rel, set(chapters))
        if isinstance(where, str):
            problems.append(f"{rel}: {where}")
            continue
        try:
            notebooks.read(path)
        except AutograderError as e:
            problems.append(f"{rel}: {str(e).replace(str(path), 'file')}")
            continue
        if where in placed:
            problems.append(f"{rel}: a second notebook for {where[0]} / {where[1]} "
                            f"(first: {placed[where].relative_to(root)})")
            continue
        placed[where] = path
    if not placed and not problems:
        problems.append(f"no notebooks found under {root}")
    return placed, problems


def _extract(zip_path: Path, into: Path) -> None:
    """Unzip safely: no absolute paths or `..`, and a cap on the uncompressed size."""
    try:
        with zipfile.ZipFile(zip_path) as zf:
            if sum(i.file_size for i in zf.infolist()) > MAX_ZIP_BYTES:
                raise AutograderError(f"{zip_path} unpacks to more than {MAX_ZIP_BYTES >> 20} MB")
            for info in zf.infolist():
                name = PurePosixPath(info.filename)
                if name.is_absolute() or ".." in name.parts:
                    raise AutograderError(f"{zip_path}: unsafe path in the zip: {info.filename}")
            zf.extractall(into)
    except zipfile.BadZipFile as e:
        raise AutograderError(f"{zip_path} is not a zip file ({e})") from None


def collect(course: Course, source: Path, skip_bad: bool = False) -> list[str]:
    """Copy every placeable notebook into submitted/; return the lines to print."""
    source = Path(source)
    if not source.exists():
        raise AutograderError(f"no such folder or zip: {source}")
    chapters = course.chapters()
    if not chapters:
        raise AutograderError(f"the course has no chapters in {course.source}")
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        if source.is_file():
            if source.suffix.lower() != ".zip":
                raise AutograderError(f"{source} is neither a folder nor a .zip")
            _extract(source, Path(tmp))
            folder = Path(tmp)
        else:
            folder = source
        placed, problems = plan(folder, chapters)
        if problems and not skip_bad:
            raise AutograderError(f"cannot collect {source}; nothing was copied:\n  " + "\n  ".join(problems)
                                  + "\n(fix or remove these files, or pass --skip-bad to collect the rest)")
        lines = []
        for (student, chapter), path in sorted(placed.items()):
            dest = course.submitted / student / chapter / f"{chapter}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)  # only the notebook: stray files never reach the grader
            lines.append(f"{student:20} {chapter:24} <- {path.relative_to(folder)}")
    lines += [f"skipped: {p}" for p in problems]
    students = len({s for s, _ in placed})
    lines.append(f"collected {len(placed)} notebook(s) of {students} student(s) into {course.submitted}")
    return lines
