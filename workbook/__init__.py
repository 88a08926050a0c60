"""The workbook's support library: the fake LLM, scenarios, checks, quizzes, trajectories.

`workbook.env_check()` prints whether this environment is ready (chapter 00's first cell).
"""

from workbook.env import env_check

__all__ = ["env_check"]
