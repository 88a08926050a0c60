"""For plain `nbgrader ...` commands run from this folder (e.g. `cd autograder && nbgrader formgrader`).

The autograder itself builds the same configuration in code (settings.nbgrader_config). nbgrader's
own autograde and collect grade and collect nothing here: they name the course's commands
(nbgrader_buttons.py; autograde would run the tests in the student's kernel).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.settings import nbgrader_config  # noqa: E402

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.merge(nbgrader_config())
c.Autograde.exporter_class = "autograder.pipeline.nbgrader_buttons.GradeElsewhere"
c.ExchangeFactory.collect = "autograder.pipeline.nbgrader_buttons.CourseCollect"
