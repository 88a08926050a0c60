"""Grading with a Python whose packages come through a .pth (issue 46 item 6): the hub's accounts'
Python (the students' copy: a .pth adds the copy's root) or a venv layered on the course's (a .pth
adds the course venv's site-packages). The kernel's Python reads the same .pth files inside the
sandbox, so the sandbox binds what they add (sandbox.pth_folders), never the repository; before,
every submission graded error 0/N ("Kernel died", then "the kernel did not take the test")."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import Course
from autograder.sandbox import sandbox

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
CHAPTER = "00_pilot"
SITE = next(Path(p) for p in sys.path if Path(p).name == "site-packages" and Path(p).is_relative_to(sys.prefix))


@pytest.fixture(scope="module")
def layered(tmp_path_factory) -> Path:
    """A venv of this venv's base Python whose only packages are this venv's, through a .pth."""
    env = tmp_path_factory.mktemp("layered") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    site = env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    (site / "course_venv.pth").write_text(f"{SITE}\n")
    (site / "the_repository.pth").write_text(f"{ROOT}\n{ROOT.parent}\n")  # never bound: solutions
    return env / "bin" / "python"


def test_the_sandbox_binds_what_a_pth_adds_but_never_the_repository(layered):
    code = "from autograder.sandbox import sandbox; print(sorted(map(str, sandbox.pth_folders())))"
    done = subprocess.run([str(layered), "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.replace("'", '"')) == [str(SITE.resolve())]


@pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=f"bubblewrap: {sandbox.bwrap_problem()}")
def test_a_layered_venv_grades_the_solution_in_the_sandbox(layered, tmp_path):
    course = tmp_path / "course"
    for part in ("solutions", "chapters"):
        shutil.copytree(PILOT / part, course / part)
    (tmp_path / "in" / "ada" / CHAPTER).mkdir(parents=True)
    shutil.copy(PILOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb", tmp_path / "in" / "ada" / CHAPTER)
    for step in (["collect", str(tmp_path / "in")], ["grade", "--workers", "1", "--sandbox", "bwrap"]):
        done = subprocess.run([str(layered), "-m", "autograder", "--root", str(course), *step], cwd=ROOT,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((Course(course).results / "ada" / f"{CHAPTER}.json").read_text())
    assert (record["status"], record["score"]) == ("ok", record["max_score"]), record["tests"]
