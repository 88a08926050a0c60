"""A student's server on the hub: Validate's success says what it knows (lab/student/custom/custom.css)."""

import os

REPO = os.environ["HUB_REPO"]
c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.ServerApp.tornado_settings = {"static_custom_path": [os.path.join(REPO, "lab", "student", "custom")]}
c.LabApp.custom_css = True
