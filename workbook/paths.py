"""Where things are: the repository root and the only folder the agent's file tools may touch."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# AGENT_FILES may be moved (e.g. a grader's sandbox) with the WORKBOOK_AGENT_FILES variable.
AGENT_FILES = Path(os.environ.get("WORKBOOK_AGENT_FILES", ROOT / "agent_files")).resolve()
KB = AGENT_FILES / "kb"
