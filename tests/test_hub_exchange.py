"""`collect --exchange` and `release-feedback` against nbgrader's own exchange (issue 31), in one
process: nbgrader's release, fetch, submit and fetch-feedback classes write and read the exchange
exactly as the Assignments tab does. The real hub, with each student's own account, is
tests/browser/test_hub.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import (
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeReleaseAssignment,
    ExchangeSubmit,
)
from traitlets.config import Config

from autograder import exchange
from autograder.__main__ import main
from autograder.course import AutograderError, Course

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
CHAPTER, COURSE_ID = "00_pilot", "hub-test"


def _run(cls, tmp: Path, student: str | None = None, **extra) -> None:
    config = Config()
    config.CourseDirectory.root = str(tmp / "course")
    config.CourseDirectory.release_directory = "chapters"
    config.CourseDirectory.course_id = COURSE_ID
    config.CourseDirectory.assignment_id = CHAPTER
    config.Exchange.root = str(tmp / "exchange")
    if student:
        config.CourseDirectory.student_id = student
        config.Exchange.cache = str(tmp / f"{student}-cache")  # each student's own, as in their home
        config.Exchange.assignment_dir = str(tmp / student)
    for key, value in extra.items():
        setattr(config[cls.__name__], key, value)
    coursedir = CourseDirectory(config=config)
    cls(coursedir=coursedir, authenticator=Authenticator(config=config), config=config).start()


def _answer(path: Path, text: str) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = text
    nbformat.write(nb, path)


@pytest.fixture
def hub(tmp_path):
    (tmp_path / "exchange").mkdir(mode=0o777)
    for part in ("solutions", "chapters"):
        shutil.copytree(PILOT / part, tmp_path / "course" / part)
    _run(ExchangeReleaseAssignment, tmp_path)
    for student in ("ann", "bob"):
        (tmp_path / student).mkdir()
        _run(ExchangeFetchAssignment, tmp_path, student)
    return tmp_path


def _submit(tmp: Path, student: str, text: str) -> None:
    _answer(tmp / student / CHAPTER / f"{CHAPTER}.ipynb", text)
    _run(ExchangeSubmit, tmp, student)


def test_the_latest_submission_of_each_student_is_collected_and_feedback_reaches_only_its_owner(hub):
    _submit(hub, "ann", "# first try\n")
    _submit(hub, "bob", "# bob's wrong answer\n")
    _submit(hub, "ann", "# second try\n")
    course = Course(hub / "course")
    lines = exchange.collect_exchange(course, hub / "exchange", COURSE_ID)
    assert any(line.startswith("ann ") and "<- inbound/ann+00_pilot+" in line for line in lines), lines
    assert "not collected: 1 earlier submission(s) (the latest of each is)" in lines
    assert lines[-1].startswith("collected 2 notebook(s) of 2 student(s)")
    for student, text in (("ann", "# second try\n"), ("bob", "# bob's wrong answer\n")):
        nb = nbformat.read(course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
        assert text in [c.source for c in nb.cells]
        assert os.listdir(course.submitted / student / CHAPTER) == [f"{CHAPTER}.ipynb"]  # no secret beside it

    for student in ("ann", "bob"):  # what `feedback` writes, one page per student
        page = course.feedback / student / CHAPTER / f"{CHAPTER}.html"
        page.parent.mkdir(parents=True)
        page.write_text(f"<p>feedback for {student}</p>", encoding="utf-8")
    lines = main(["--root", str(course.root), "release-feedback", "--exchange", str(hub / "exchange"),
                  "--course-id", COURSE_ID]) or []
    released = hub / "exchange" / COURSE_ID / "feedback"
    assert (released.stat().st_mode & 0o777) == exchange.FEEDBACK_DIR_MODE
    assert len(list(released.iterdir())) == 2

    for student in ("ann", "bob"):
        _run(ExchangeFetchFeedback, hub, student)
        got = list((hub / student / CHAPTER / "feedback").rglob("*.html"))
        # ann submitted twice: her first submission's secret names no page, her latest's does
        assert [p.read_text(encoding="utf-8") for p in got] == [f"<p>feedback for {student}</p>"], got


def test_a_link_or_a_stranger_in_the_inbound_folder_is_refused_or_reported(hub):
    _submit(hub, "ann", "# ann\n")
    _submit(hub, "bob", "# bob\n")
    inbound = hub / "exchange" / COURSE_ID / "inbound"
    bob = next(p for p in inbound.iterdir() if p.name.startswith("bob+"))
    ann = next(p for p in inbound.iterdir() if p.name.startswith("ann+"))
    (bob / f"{CHAPTER}.ipynb").unlink()
    (bob / f"{CHAPTER}.ipynb").symlink_to(ann / f"{CHAPTER}.ipynb")  # bob hands in ann's notebook
    (inbound / "not-a-submission").mkdir()
    course = Course(hub / "course")
    with pytest.raises(AutograderError, match="not-a-submission: not a submission folder's name"):
        exchange.collect_exchange(course, hub / "exchange", COURSE_ID)
    assert not course.submitted.exists(), "nothing is copied when a folder cannot be placed"
    lines = exchange.collect_exchange(course, hub / "exchange", COURSE_ID, skip_bad=True)
    assert any(f"{bob.name}/{CHAPTER}.ipynb: refused, cannot be opened without following a link" in line
               for line in lines), lines
    assert sorted(os.listdir(course.submitted)) == ["ann"]


def test_collect_says_what_it_needs():
    with pytest.raises(AutograderError, match="a folder, a .zip or --exchange"):
        main(["collect"])
    with pytest.raises(AutograderError, match="not both"):
        main(["collect", "x.zip", "--exchange", "/nowhere"])
    with pytest.raises(AutograderError, match="no inbound folder for course 'agent-loop-by-hand'"):
        main(["collect", "--exchange", "/nowhere"])
