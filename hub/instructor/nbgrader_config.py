"""nbgrader for the instructor's server on the hub: the autograder's settings for the course in
HUB_COURSE_ROOT (inside the instructor's home, so the Formgrader can show it), the hub's exchange.

Every grading button is the course's grader (autograder/pipeline/nbgrader_buttons.py): the Formgrader's
Collect (and `nbgrader collect`) is the course's `collect --exchange`, with the hub's roster
(HUB_ROSTER); its Autograde (and `nbgrader autograde`) grades nothing and names the command that does.
"""

import os
import shlex
import sys
from pathlib import Path

sys.path.insert(0, os.environ["HUB_REPO"])

from autograder.course import Course  # noqa: E402
from autograder.settings import nbgrader_config  # noqa: E402

REPO, COURSE = os.environ["HUB_REPO"], os.environ["HUB_COURSE_ROOT"]
c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.merge(nbgrader_config(Course(Path(COURSE))))
c.CourseDirectory.course_id = os.environ["HUB_COURSE_ID"]
c.Exchange.root = os.environ["HUB_EXCHANGE"]
c.Autograde.exporter_class = "autograder.pipeline.nbgrader_buttons.GradeElsewhere"
# as docs/HUB.md grades: in her terminal, without root (`python` is the accounts' Python)
c.GradeElsewhere.command = (f"cd {shlex.quote(REPO)} && python -m autograder --root {shlex.quote(COURSE)} "
                            "grade --workers 2")
c.GradeElsewhere.docs = "docs/HUB.md, Run the course"
c.ExchangeFactory.collect = "autograder.pipeline.nbgrader_buttons.CourseCollect"
c.CourseCollect.course_root = COURSE
c.CourseCollect.roster = os.environ.get("HUB_ROSTER", "")
