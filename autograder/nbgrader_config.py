"""For plain `nbgrader ...` commands run from this folder (e.g. `cd autograder && nbgrader formgrader`).

The autograder itself builds the same configuration in code (settings.nbgrader_config).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.settings import nbgrader_config  # noqa: E402

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file
c.merge(nbgrader_config())
