"""nbgrader settings for the student's lab (`make lab`): Validate needs none.

This file exists so that Validate does not warn "No nbgrader_config.py file found".
The instructor's settings are in autograder/nbgrader_config.py.
"""

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
