"""Every grading button is the course's grader (issue 46): the Formgrader's Autograde and Collect
buttons, and `nbgrader autograde` / `nbgrader collect` in the instructor's terminal, with the
instructor's settings of the hub (hub/instructor/) and of the lab (lab/instructor/).

The buttons are driven through nbgrader's own NbGraderAPI, which is what the Formgrader's handlers
call; `nbgrader autograde` runs as the instructor types it. In Chromium: tests/browser/test_formgrader.py.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest
from nbgrader.apps.api import NbGraderAPI
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeCollect
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import Course

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
CHAPTER, COURSE_ID = "00_pilot", "hub-test"
ME = getpass.getuser()  # the student: a submission counts only when its owner's account is the student
REFUSAL = "nbgrader's autograde is not this course's grader"


@pytest.fixture
def course(tmp_path):
    """The pilot course with ME's submission collected and an earlier grade's notebook beside it."""
    root = tmp_path / "course"
    for part in ("solutions", "chapters"):
        shutil.copytree(PILOT / part, root / part)
    c = Course(root)
    for folder in (c.submitted, c.autograded):
        (folder / ME / CHAPTER).mkdir(parents=True)
        shutil.copy(root / "chapters" / CHAPTER / f"{CHAPTER}.ipynb", folder / ME / CHAPTER / f"{CHAPTER}.ipynb")
    (tmp_path / "exchange" / COURSE_ID / "inbound").mkdir(parents=True)
    (tmp_path / "roster").write_text(f"{ME}\n")
    return c


def hub_env(course: Course) -> dict[str, str]:
    """What hub/setup_hub.py's account_env gives the instructor's server (the parts nbgrader reads)."""
    base = course.root.parent
    return {"HUB_REPO": str(ROOT), "HUB_COURSE_ROOT": str(course.root), "HUB_COURSE_ID": COURSE_ID,
            "HUB_EXCHANGE": str(base / "exchange"), "HUB_ROSTER": str(base / "roster")}


def api(config_dir: Path, env: dict[str, str], monkeypatch) -> NbGraderAPI:
    """The NbGraderAPI the Formgrader builds from the instructor's settings."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(config_dir)).load_config()
    coursedir = CourseDirectory(config=config)
    return NbGraderAPI(coursedir, Authenticator(config=config), config=config)


def _graded(course: Course) -> bytes:
    return (course.autograded / ME / CHAPTER / f"{CHAPTER}.ipynb").read_bytes()


@pytest.mark.parametrize("settings", ["hub", "lab"])
def test_the_autograde_button_grades_nothing_and_names_the_course_grader(course, settings, monkeypatch):
    before = _graded(course)
    if settings == "hub":
        button = api(ROOT / "hub" / "instructor", hub_env(course), monkeypatch)
        command = f"cd {ROOT}\npython -m autograder --root {course.root} grade --workers 2"
    else:
        button = api(ROOT / "lab" / "instructor", {"AUTOGRADER_ROOT": str(course.root), "AUTOGRADER_WORKSPACE": ""},
                     monkeypatch)
        command = f"{sys.executable} -m autograder --root {course.root} grade"
    result = button.autograde(CHAPTER, ME)  # what the button's handler calls, force=True
    assert not result["success"]
    # short lines, the command last (the Formgrader's dialog does not wrap: the walk of HUB.md saw it cut)
    said = result["log"]
    typed = " ".join(said.replace("\\\n", " ").split())  # the command, its continued lines joined
    assert REFUSAL in said and " ".join(f"{command} --chapter {CHAPTER} --student {ME}".split()) in typed, said
    assert max(len(line) for line in said.split("Grade in a terminal")[0].splitlines()) <= 80, said
    assert _graded(course) == before, "the earlier grade was deleted or rewritten"
    assert not course.gradebook.exists()  # nbgrader stopped before its gradebook


def test_plain_nbgrader_autograde_in_the_instructors_terminal_says_it_is_not_the_grader(course):
    env = {**os.environ, **hub_env(course), "JUPYTER_CONFIG_PATH": str(ROOT / "hub" / "instructor"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    before = _graded(course)
    done = subprocess.run(["nbgrader", "autograde", CHAPTER, "--force"], cwd=course.root, env=env,
                          capture_output=True, text=True, timeout=300)
    said = done.stdout + done.stderr
    assert done.returncode == 1 and REFUSAL in said and "Traceback" not in said, said
    assert f"grade --workers 2 --chapter {CHAPTER}" in " ".join(said.replace("\\\n", " ").split())
    assert "Executing" not in said
    assert _graded(course) == before and not course.gradebook.exists()


def _submission(course: Course, notebook: Path | None) -> Path:
    """ME's folder in the exchange's inbound, as nbgrader's Submit makes it; its notebook a copy of
    `notebook`, or a symlink to the solution (what a student can put there from a terminal)."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    folder = course.root.parent / "exchange" / COURSE_ID / "inbound" / f"{ME}+{CHAPTER}+{stamp}+x"
    folder.mkdir()
    (folder / "timestamp.txt").write_text(stamp)
    solution = course.root / "solutions" / CHAPTER / f"{CHAPTER}.ipynb"
    if notebook is None:
        (folder / f"{CHAPTER}.ipynb").symlink_to(solution)
    else:
        shutil.copy(notebook, folder / f"{CHAPTER}.ipynb")
    return folder


def _collected(course: Course) -> str:
    return (course.submitted / ME / CHAPTER / f"{CHAPTER}.ipynb").read_text(encoding="utf-8")


def test_the_collect_button_is_the_course_collect_and_follows_no_symlink(course, monkeypatch):
    shutil.rmtree(course.submitted)
    shutil.rmtree(course.autograded)
    _submission(course, None)
    button = api(ROOT / "hub" / "instructor", hub_env(course), monkeypatch)
    result = button.collect(CHAPTER)
    said = " ".join(result["log"].split())  # the dialog's lines, wrapped to fit it
    assert "refused, cannot be opened without following a link" in said, result
    long = [line for line in result["log"].splitlines() if len(line) > 80 and len(line.split()) > 1]
    assert not long, long  # only a path longer than the dialog's width stays whole
    assert not (course.submitted / ME).exists(), "the solution the link points to was collected"

    mine = course.root / "mine.ipynb"
    nb = nbformat.read(course.root / "chapters" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    nb.cells[0].source += "\n<!-- ME's own work -->"
    nbformat.write(nb, mine)
    _submission(course, mine)  # a later, regular submission counts
    result = button.collect(CHAPTER)
    assert result["success"], result
    assert "collected 1 notebook(s) of 1 student(s)" in result["log"] and "roster" in result["log"], result
    assert "ME's own work" in _collected(course)


def test_nbgraders_own_collect_would_copy_what_the_link_points_to(course, monkeypatch):
    """The check of the check: nbgrader's default Collect follows the link (issue 46's finding)."""
    shutil.rmtree(course.submitted)
    _submission(course, None)
    button = api(ROOT / "hub" / "instructor", hub_env(course), monkeypatch)
    button.exchange.collect = ExchangeCollect
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")  # alembic
    result = button.collect(CHAPTER)
    assert result["success"], result
    assert "BEGIN SOLUTION" in _collected(course)


def test_the_collect_button_without_a_roster_names_the_command(course, monkeypatch):
    button = api(ROOT / "lab" / "instructor", {"AUTOGRADER_ROOT": str(course.root), "AUTOGRADER_WORKSPACE": ""},
                 monkeypatch)
    result = button.collect(CHAPTER)
    assert not result["success"]
    assert f"-m autograder --root {course.root} collect FOLDER_OR_ZIP" in result["log"], result
