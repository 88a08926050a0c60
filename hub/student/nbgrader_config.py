"""nbgrader for a student's server on the hub: the course and its exchange (hub/jupyterhub_config.py
sets HUB_COURSE_ID and HUB_EXCHANGE). Fetched chapters land in the student's home."""

import os

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.CourseDirectory.course_id = os.environ["HUB_COURSE_ID"]
c.Exchange.root = os.environ["HUB_EXCHANGE"]
