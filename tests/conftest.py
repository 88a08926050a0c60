"""Shared fixtures for the library tests."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # so `tests.reference_loop` imports without installing tests/
    sys.path.insert(0, str(ROOT))
