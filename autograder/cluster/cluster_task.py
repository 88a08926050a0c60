"""One grading task of a cluster run: everything it needs travels with it, everything it made comes back.

The client packs a `Task` (the submission's files, the chapter's source folder, the limits); a Dask
worker on any machine runs `run(task, template)`: it builds a private course in a temporary folder,
grades there with the same code as a local run (inside bubblewrap unless the instructor chose
`--sandbox none`), and returns the result record, the autograded folder, the log and the
submission's gradebook rows. No file system is shared; the worker keeps nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import socket
import tempfile
import threading
from pathlib import Path, PurePosixPath

from autograder.course import Course
from autograder.pipeline import gradebook, grading, results
from autograder.sandbox import sandbox
from autograder.settings import IGNORE, Limits

MAX_FILES, MAX_BYTES = 200, 64 * 1024 * 1024  # what one submission may carry over the network
_one_at_a_time = threading.Lock()  # nbgrader converters are not meant to run side by side in a process


@dataclasses.dataclass(frozen=True)
class Task:
    student: str
    chapter: str
    submission: dict[str, bytes]  # relative path -> bytes, from submitted/<student>/<chapter>/
    source: dict[str, bytes]  # relative path -> bytes, from the chapter's source folder
    limits: dict
    key: str  # what the grade depends on: a re-run skips a submission whose key is unchanged


def _files(folder: Path, skip=()) -> dict[str, bytes]:
    found, total = {}, 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(folder).as_posix()
        if any(PurePosixPath(part).match(pattern) for part in rel.split("/") for pattern in skip):
            continue
        data = path.read_bytes()
        total += len(data)
        if len(found) >= MAX_FILES or total > MAX_BYTES:
            raise ValueError(f"{folder} holds more than {MAX_FILES} files or {MAX_BYTES >> 20} MB")
        found[rel] = data
    return found


def pack(course: Course, student: str, chapter: str, limits: Limits) -> Task:
    """The task for one submission, read from the client's course."""
    submission = _files(course.submitted / student / chapter)
    source = _files(course.source / chapter, skip=IGNORE)
    digest = hashlib.sha256()
    for label, files in (("submission", submission), ("source", source)):
        for rel, data in sorted(files.items()):
            digest.update(f"{label}\0{rel}\0{len(data)}\0".encode() + data)
    digest.update(repr(sorted(dataclasses.asdict(limits).items())).encode())
    return Task(student, chapter, submission, source, dataclasses.asdict(limits), digest.hexdigest())


def hold(blob: bytes) -> bytes:
    """The master gradebook's template as a task result every grading task depends on."""
    return blob


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    """Write relative path -> bytes under `folder`; a name that would leave it is refused."""
    for rel, data in files.items():
        parts = PurePosixPath(rel).parts
        if PurePosixPath(rel).is_absolute() or ".." in parts or not parts:
            raise ValueError(f"refusing the file name {rel!r}")
        path = folder.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def run(task: Task, template: bytes) -> dict:
    """Grade `task` in a private temporary course; return what the client needs to record it."""
    limits = Limits(**task.limits)
    where = socket.gethostname()
    problem = sandbox.bwrap_problem() if limits.sandbox == "bwrap" else None
    with _one_at_a_time, tempfile.TemporaryDirectory(prefix="grade-task-") as tmp:
        course = Course(root=Path(tmp))
        if problem:  # this worker cannot sandbox: a row that says so, never an unsandboxed run
            record = results.failed(course, task.student, task.chapter,
                                    f"worker {where} cannot grade in a sandbox: {problem}", limits.sandbox)
            return {"record": record, "autograded": {}, "log": "", "rows": {}, "worker": where}
        write_files(course.source / task.chapter, task.source)
        write_files(course.submitted / task.student / task.chapter, task.submission)
        db = course.work / "worker0" / "gradebook.db"
        db.parent.mkdir(parents=True)
        db.write_bytes(template)
        grading.quiet()
        _, (record,) = grading.grade_student(course, task.student, [task.chapter], limits, slot=0)
        record["key"] = task.key
        log_path = course.work / "logs" / task.student / f"{task.chapter}.log"
        folder = course.autograded / task.student / task.chapter
        return {"record": record,
                "autograded": _files(folder) if folder.is_dir() else {},
                "log": log_path.read_text(errors="replace") if log_path.is_file() else "",
                "rows": gradebook.submission_rows(db, task.student, task.chapter),
                "worker": where}
