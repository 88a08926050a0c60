"""`collect --exchange` and `release-feedback` against nbgrader's own exchange (issue 31), in one
process: nbgrader's release, fetch, submit and fetch-feedback classes write and read the exchange
exactly as the Assignments tab does. The real hub, with each student's own account, is
tests/browser/test_hub.py.

A submission counts only when its folder and files belong to the account of the student it names,
that student is on the roster, and its time is not in the future (issue 46). Run as root (as CI
does), each student's submissions are given to a throw-away uid of their own (chown), as their
server would have made them; the accounts' names are looked up in `UIDS`, which stands in for the
machine's accounts. Without root every student is this process's uid, and the tests that need two
owners skip."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath

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

from autograder.__main__ import main
from autograder.course import AutograderError, Course
from autograder.pipeline import collect, exchange

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
CHAPTER, COURSE_ID = "00_pilot", "hub-test"
ROOT_USER = os.geteuid() == 0
# throw-away uids no account on this machine has (as root); else everyone is this process
UIDS = {"ann": 61001, "bob": 61002, "zed": 61003} if ROOT_USER else dict.fromkeys(("ann", "bob", "zed"), os.getuid())
ROSTER = "ann,bob"
needs_root = pytest.mark.skipif(not ROOT_USER, reason="two owners need chown, so root")


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


def _inbound(tmp: Path) -> Path:
    return tmp / "exchange" / COURSE_ID / "inbound"


def _own(path: Path, uid: int) -> None:
    """`path` and all in it as if the account `uid` had made it (what its server does)."""
    if ROOT_USER:
        for p in [path, *path.rglob("*")]:
            os.chown(p, uid, uid, follow_symlinks=False)


def _submit(tmp: Path, student: str, text: str) -> Path:
    """Submit as nbgrader's Assignments tab does; the new folder is the student's account's."""
    before = set(os.listdir(_inbound(tmp))) if _inbound(tmp).is_dir() else set()
    _answer(tmp / student / CHAPTER / f"{CHAPTER}.ipynb", text)
    _run(ExchangeSubmit, tmp, student)
    (made,) = set(os.listdir(_inbound(tmp))) - before
    _own(_inbound(tmp) / made, UIDS[student])
    return _inbound(tmp) / made


def _collect(tmp: Path, **kw) -> list[str]:
    kw.setdefault("students", ROSTER)
    kw.setdefault("who", UIDS.get)
    return exchange.collect_exchange(Course(tmp / "course"), tmp / "exchange", COURSE_ID, **kw)


def _forge(tmp: Path, name: str, text: str, owner: int) -> Path:
    """A folder made by the account `owner` in inbound (writable by all), named `name`, holding a
    notebook with `text` and nbgrader's timestamp.txt, as a student can make one from a terminal."""
    folder = _inbound(tmp) / name
    folder.mkdir()
    nb = tmp / "forged.ipynb"
    shutil.copy(tmp / "course" / "chapters" / CHAPTER / f"{CHAPTER}.ipynb", nb)
    _answer(nb, text)
    shutil.copy(nb, folder / f"{CHAPTER}.ipynb")
    (folder / "timestamp.txt").write_text(name.split("+")[2])
    _own(folder, owner)
    return folder


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _collected(tmp: Path, student: str) -> list[str]:
    nb = nbformat.read(Course(tmp / "course").submitted / student / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    return [c.source for c in nb.cells]


def test_the_latest_submission_of_each_student_is_collected_and_feedback_reaches_only_its_owner(hub):
    _submit(hub, "ann", "# first try\n")
    _submit(hub, "bob", "# bob's wrong answer\n")
    _submit(hub, "ann", "# second try\n")
    course = Course(hub / "course")
    lines = _collect(hub)
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
    """A stray folder any student can make in inbound is listed; it no longer stops the class."""
    _submit(hub, "ann", "# ann\n")
    bob = _submit(hub, "bob", "# bob\n")
    inbound = _inbound(hub)
    ann = next(p for p in inbound.iterdir() if p.name.startswith("ann+"))
    (bob / f"{CHAPTER}.ipynb").unlink()
    (bob / f"{CHAPTER}.ipynb").symlink_to(ann / f"{CHAPTER}.ipynb")  # bob hands in ann's notebook
    _own(bob, UIDS["bob"])
    (inbound / "not-a-submission").mkdir()
    course = Course(hub / "course")
    lines = _collect(hub)
    assert "skipped: not-a-submission: not a submission folder's name (<student>+<chapter>+<timestamp>[+random])" \
        in lines
    assert any(f"{bob.name}/{CHAPTER}.ipynb: refused, cannot be opened without following a link" in line
               for line in lines), lines
    assert sorted(os.listdir(course.submitted)) == ["ann"]


@needs_root
def test_a_folder_another_account_made_never_counts_for_the_student_it_names(hub):
    """Issue 46: as ann, a folder named for bob, dated 2099, was bob's latest forever. Now it is
    skipped (ann's account made it), and bob's own submission is collected as his."""
    _submit(hub, "ann", "# ann's own\n")
    _submit(hub, "bob", "# bob's own\n")
    future = _forge(hub, "bob+00_pilot+2099-01-01 00:00:00.000000 UTC+x", "# ann as bob\n", UIDS["ann"])
    now = _forge(hub, f"bob+00_pilot+{_stamp(datetime.now(UTC))}+y", "# ann as bob, today\n", UIDS["ann"])
    lines = _collect(hub)
    for forged in (future, now):
        assert f"skipped: {forged.name}: made by uid {UIDS['ann']}, not by bob's account (uid {UIDS['bob']})" \
            in lines, lines
    assert "# bob's own\n" in _collected(hub, "bob") and "# ann's own\n" in _collected(hub, "ann")
    assert lines[-1].startswith("collected 2 notebook(s) of 2 student(s)")
    # the check of the check: the same folder made by bob's account would have been his latest
    _own(now, UIDS["bob"])
    _collect(hub)
    assert "# ann as bob, today\n" in _collected(hub, "bob")


@needs_root
def test_a_file_another_account_owns_spoils_the_folder_it_is_in(hub):
    """The folder is bob's, the notebook in it is not: skipped, and read_regular checks the owner
    of what it opened too (a file swapped in after the walk is refused)."""
    bob = _submit(hub, "bob", "# bob's own\n")
    os.chown(bob / f"{CHAPTER}.ipynb", UIDS["ann"], UIDS["ann"])
    with pytest.raises(AutograderError, match="nothing to collect") as e:
        _collect(hub)
    assert f"skipped: {bob.name}: {bob.name}/{CHAPTER}.ipynb belongs to uid {UIDS['ann']}, not to bob's account" \
        in str(e.value)
    with pytest.raises(ValueError, match=f"owned by uid {UIDS['ann']}, not by the submitting account"):
        collect.read_regular(_inbound(hub), PurePosixPath(bob.name) / f"{CHAPTER}.ipynb", owner=UIDS["bob"])
    assert collect.read_regular(_inbound(hub), PurePosixPath(bob.name) / f"{CHAPTER}.ipynb", owner=UIDS["ann"])


def test_a_time_later_than_now_never_counts_but_a_small_clock_skew_does(hub):
    _submit(hub, "ann", "# ann's own\n")
    now = datetime.now(UTC).replace(tzinfo=None)
    late = _forge(hub, f"ann+00_pilot+{_stamp(now + exchange.CLOCK_SKEW + timedelta(minutes=1))}+a",
                  "# ann from the future\n", UIDS["ann"])
    lines = _collect(hub, now=now)
    assert any(line.startswith(f"skipped: {late.name}: dated ") and "later than now" in line for line in lines), lines
    assert "# ann's own\n" in _collected(hub, "ann")
    skewed = _forge(hub, f"ann+00_pilot+{_stamp(now + timedelta(minutes=1))}+b", "# ann, clock ahead\n", UIDS["ann"])
    lines = _collect(hub, now=now)
    assert f"ann                  00_pilot                 <- inbound/{skewed.name}" in lines, lines


def test_only_students_on_the_roster_with_an_account_count(hub):
    _submit(hub, "ann", "# ann\n")
    zed = _forge(hub, f"zed+00_pilot+{_stamp(datetime.now(UTC))}+z", "# zed\n", UIDS["zed"])
    lines = _collect(hub)
    assert f"skipped: {zed.name}: 'zed' is not on the course's roster" in lines
    lines = _collect(hub, students="ann,bob,zed", who={"ann": UIDS["ann"]}.get)  # zed: no account here
    assert f"skipped: {zed.name}: there is no account 'zed' here, so who made it cannot be checked" in lines
    assert sorted(os.listdir(Course(hub / "course").submitted)) == ["ann"]


def _hub_json(hub: Path, **changes) -> Path:
    settings = {"exchange": str(hub / "exchange"), "students": ["ann", "bob"], "password": "x", **changes}
    path = hub / "hub.json"  # beside the exchange, as hub/setup_hub.py writes it
    path.write_text(json.dumps(settings))
    path.chmod(0o600)
    return path


def test_the_roster_is_the_hubs_list_of_students_unless_given(hub):
    _submit(hub, "ann", "# ann\n")
    with pytest.raises(AutograderError, match="no roster of the course's students: .*hub.json does not exist; "
                                              "pass --roster FILE"):
        _collect(hub, students=None)
    path = _hub_json(hub, students=["bob"])
    with pytest.raises(AutograderError, match="nothing to collect .*roster: the hub's students") as e:
        _collect(hub, students=None)
    assert "'ann' is not on the course's roster" in str(e.value)
    _hub_json(hub)
    lines = _collect(hub, students=None)
    assert lines[-1].endswith(f"(roster: the hub's students ({path}))"), lines[-1]
    path.chmod(0o622)  # a file others may write is no roster
    with pytest.raises(AutograderError, match="not a settings file only root writes"):
        _collect(hub, students=None)
    _hub_json(hub, exchange="/srv/another/exchange")
    with pytest.raises(AutograderError, match="is not the settings of the exchange"):
        _collect(hub, students=None)
    listed = hub / "roster.txt"
    listed.write_text("ann\nbob\n")
    assert _collect(hub, students=str(listed))[-1].endswith(f"(roster: the roster {listed})")
    with pytest.raises(AutograderError, match="no such file"):
        _collect(hub, students=str(hub / "nowhere.txt"))


def test_collect_says_what_it_needs():
    with pytest.raises(AutograderError, match="a folder, a .zip or --exchange"):
        main(["collect"])
    with pytest.raises(AutograderError, match="not both"):
        main(["collect", "x.zip", "--exchange", "/nowhere"])
    with pytest.raises(AutograderError, match="no inbound folder for course 'agent-loop-by-hand'"):
        main(["collect", "--exchange", "/nowhere"])
    with pytest.raises(AutograderError, match="--roster is for --exchange"):
        main(["collect", "x.zip", "--roster", "ann"])
