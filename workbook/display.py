"""When a notebook can show ipywidgets: one rule for the quiz and the trajectory viewer."""

from __future__ import annotations

import os
import warnings


def widgets_ok() -> bool:
    """True when a notebook kernel can show ipywidgets and plain mode is not forced."""
    if os.environ.get("WORKBOOK_PLAIN", "").strip() not in ("", "0"):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stay silent: stderr in a cell costs nbgrader points
            import ipywidgets  # noqa: F401
            from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None
