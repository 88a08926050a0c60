"""A student's server on the hub: Validate's success says what it knows (lab/student/custom/custom.css).

The CSS is found beside this folder (../../lab/student/custom): in the students' copy of the course
(hub/student_course.py) on the hub, in the repository elsewhere; no path to the repository is needed.
"""

import os

COURSE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
CUSTOM = [os.path.join(COURSE, "lab", "student", "custom")]
LANGUAGE = os.path.join(COURSE, "i18n", os.environ.get("AGENT_LOOP_LANG", "-"), "lab")  # a student's language
if os.environ.get("AGENT_LOOP_LANG", "").isalpha() and os.path.isfile(os.path.join(LANGUAGE, "custom.css")):
    CUSTOM.insert(0, LANGUAGE)
c.ServerApp.tornado_settings = {"static_custom_path": CUSTOM}
c.LabApp.custom_css = True
