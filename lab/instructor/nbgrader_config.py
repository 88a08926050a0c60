"""nbgrader settings for the instructor's lab (`make lab-instructor`, lab/README.md).

The lab's root is the repository, so the Formgrader finds the course where the autograder keeps
it: solutions/ as the source of every chapter, chapters/ as the release, and the gradebook and
submissions of a workspace. Which workspace: AUTOGRADER_WORKSPACE if set (`make lab-instructor
WORKSPACE=...`); else autograder/ once it has a gradebook (a cohort was graded); else the sample
cohort's, autograder/work/demo/, once `make grade` has made it. AUTOGRADER_ROOT names another
course laid out the same way (`python -m autograder --root`), inside the lab's root.

The Formgrader's Autograde and Collect buttons (and `nbgrader autograde` / `collect` in the lab's
terminal) grade and collect nothing here: they name the course's commands
(autograder/pipeline/nbgrader_buttons.py). nbgrader's autograde would run the tests in the student's kernel.
"""

import os
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
ROOT = Path(os.environ.get("AUTOGRADER_ROOT", "").strip() or REPO).resolve()

from autograder.course import Course  # noqa: E402
from autograder.settings import nbgrader_config  # noqa: E402


def workspace(course: Course) -> Path:
    """The workspace the Formgrader shows (see the module's docstring)."""
    chosen = os.environ.get("AUTOGRADER_WORKSPACE", "").strip()
    if chosen:
        return Path(chosen) if Path(chosen).is_absolute() else ROOT / chosen
    if not course.gradebook.is_file() and course.with_workspace(course.demo_workspace).gradebook.is_file():
        return course.demo_workspace
    return course.workspace


course = Course(ROOT)
course = course.with_workspace(workspace(course))
c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.merge(nbgrader_config(course))
# The Assignments and Course List tabs read an exchange; a lab on one machine keeps its own in the
# workspace (git-ignored), so nbgrader finds one and does not warn. A hub has a shared one (hub/).
exchange = course.work / "exchange"
exchange.mkdir(parents=True, exist_ok=True)
c.Exchange.root = str(exchange)
where = "" if course.root == REPO else f" --root {shlex.quote(str(course.root))}"
if course.workspace != Course(ROOT).workspace:
    where += f" --workspace {shlex.quote(str(course.workspace))}"
c.Autograde.exporter_class = "autograder.pipeline.nbgrader_buttons.GradeElsewhere"
c.GradeElsewhere.command = f"{shlex.quote(sys.executable)} -m autograder{where} grade"
c.ExchangeFactory.collect = "autograder.pipeline.nbgrader_buttons.CourseCollect"
c.CourseCollect.command = f"{shlex.quote(sys.executable)} -m autograder{where} collect FOLDER_OR_ZIP"
