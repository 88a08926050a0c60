"""The workbook's support library: the fake LLM, scenarios, checks, quizzes, trajectories.

`workbook.env_check()` prints whether this environment is ready (chapter 00's first cell).
In a kernel whose notebook is a translated edition, importing the package puts the test messages
in the notebook's language (`workbook.i18n.kernel`). In any kernel, it makes test cells run as the
grader runs them, through the judge's link (`workbook.test_cells`, `workbook.loopback`).
"""

from workbook import test_cells as _test_cells
from workbook.env import env_check
from workbook.i18n import kernel as _translations

_translations.install()
_test_cells.install()

__all__ = ["env_check"]
