"""nbgrader's own grading commands on this course: the Formgrader's Collect and Autograde buttons,
and `nbgrader collect` / `nbgrader autograde` in a terminal (docs/HUB.md, "The Formgrader's buttons").

The instructor's nbgrader settings (hub/instructor/, lab/instructor/, autograder/nbgrader_config.py)
put these two classes where nbgrader looks for them, so every path to a grade is the course's:

- **Autograde** (`c.Autograde.exporter_class = GradeElsewhere`): nbgrader's autograde runs every test
  cell in the student's kernel, where a submission can patch what the tests use and pass them. The
  course grades in the judge (`python -m autograder grade`), never in the kernel. nbgrader makes its
  exporter before it touches a submission, so the button and the command stop there, say so and
  name the command that grades; nothing is deleted, run or written (nbgrader's own autograde with
  `--force` deletes the graded notebook first).
- **Collect** (`c.ExchangeFactory.collect = CourseCollect`): the course's `collect --exchange`
  (autograder/pipeline/exchange.py): a submission counts only when the account it names owns it and is on
  the roster, and its notebook is read without following a link, so a student's symlink never
  makes the instructor copy what it points to. Without a roster (a lab on one machine) it says
  which command collects instead.

Kept small on purpose: a button that ran the whole grader would hold the instructor's server for
minutes (nbgrader's handlers are synchronous) and needs the sandbox's privileges; the command does
both where they belong.
"""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

from nbconvert.exporters import Exporter
from nbgrader.converters.base import NbGraderException
from nbgrader.exchange.default.collect import ExchangeCollect
from traitlets import Unicode

from autograder.course import AutograderError, Course
from autograder.pipeline.exchange import collect_exchange

NOT_THE_GRADER = ("nbgrader's autograde is not this course's grader: it would run the tests in the student's "
                  "kernel, where a submission can make them pass. Nothing was graded, deleted or changed.")


class GradeElsewhere(Exporter):
    """nbgrader's Autograde exporter, made before any submission is touched: it refuses, and names
    the command that grades (`command`, set by the settings that install it)."""

    command = Unicode("python -m autograder grade",
                      help="The course's grading command, as the instructor types it").tag(config=True)
    docs = Unicode("autograder/README.md", help="Where the instructor reads how grading runs").tag(config=True)

    def __init__(self, config=None, **kw):
        super().__init__(config=config, **kw)
        raise_refusal(self.command, self.docs, getattr(self.parent, "coursedir", None), self.log)


def grade_command(command: str, coursedir) -> str:
    """`command`, narrowed to the chapter and the student nbgrader was asked for (none: all), as
    lines to type: one a shell command (`cd X && Y` is two), a long one continued with `\\`."""
    narrow = []
    for option, value in (("--chapter", getattr(coursedir, "assignment_id", "")),
                          ("--student", getattr(coursedir, "student_id", ""))):
        if value and value not in ("*", ".") and "*" not in value:
            narrow += [option, value]
    *first, last = command.split(" && ")
    return "\n".join([*first, _continued(shlex.split(last) + narrow)])


def _continued(words: list[str], width: int = 56) -> str:
    """One shell command on lines of about `width` characters, each but the last ending in `\\`."""
    lines = [""]
    for word in map(shlex.quote, words):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    return " \\\n    ".join(lines)


def raise_refusal(command: str, docs: str, coursedir, log) -> None:
    """Refuse with a message the Formgrader's error dialog shows whole: short lines (its box does
    not wrap), the command to type last."""
    said = textwrap.fill(NOT_THE_GRADER, 72)
    typed = textwrap.indent(grade_command(command, coursedir), "    ")
    message = f"{said}\nGrade in a terminal, with the course's grader ({docs}):\n{typed}"
    log.error(message)
    raise NbGraderException(message)


class CourseCollect(ExchangeCollect):
    """nbgrader's Collect as the course's `collect --exchange`: every chapter's latest submission of
    each student on `roster`, checked as autograder/pipeline/exchange.py checks it."""

    course_root = Unicode("", help="The course's root (solutions/, chapters/)").tag(config=True)
    workspace = Unicode("", help="The course's workspace (default: its autograder/)").tag(config=True)
    roster = Unicode("", help="A file of the course's students, one account a line; empty: "
                              "the exchange has no roster here, collect another way").tag(config=True)
    command = Unicode("python -m autograder collect FOLDER_OR_ZIP",
                      help="What collects on a course without a roster").tag(config=True)

    def start(self):
        if not self.roster or not self.course_root:
            self.fail(f"this course collects with its own command, which checks who submitted: {self.command}")
        course = Course(Path(self.course_root))
        if self.workspace:
            course = course.with_workspace(Path(self.workspace))
        try:
            lines = collect_exchange(course, Path(self.root), self.coursedir.course_id, students=self.roster)
        except (AutograderError, OSError) as e:
            self.fail(f"the course's collect --exchange: {e}")
        for line in lines:  # short lines: the Formgrader's dialog does not wrap them
            self.log.info(textwrap.fill(line, 72, break_long_words=False, break_on_hyphens=False))
