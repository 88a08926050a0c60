"""nbgrader for the instructor's server on the hub: the autograder's settings for the course in
HUB_COURSE_ROOT (inside the instructor's home, so the Formgrader can show it), the hub's exchange."""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ["HUB_REPO"])

from autograder.course import Course  # noqa: E402
from autograder.settings import nbgrader_config  # noqa: E402

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.merge(nbgrader_config(Course(Path(os.environ["HUB_COURSE_ROOT"]))))
c.CourseDirectory.course_id = os.environ["HUB_COURSE_ID"]
c.Exchange.root = os.environ["HUB_EXCHANGE"]
