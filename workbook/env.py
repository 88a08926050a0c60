"""Is this environment ready for the workbook? One line per requirement, ✓ or ✗ with what to do.

    import workbook
    workbook.env_check()     # chapter 00's first cell

Only the standard library, `workbook.paths` and `workbook.i18n` (standard library only) are
imported here, so the check runs (and says what is missing) even when a package the workbook needs
is not installed. It speaks the notebook's language (`workbook.i18n.current()`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
import warnings

from workbook.i18n import ENGLISH, current, tr
from workbook.paths import AGENT_FILES, ROOT

# (package, import it?) — nbgrader is slow to import and only needs to be there
PACKAGES = (("openai", True), ("httpx2", True), ("ipywidgets", True), ("nbgrader", False))
FIX = ("Run `make lab` from the repository root: it installs everything into .venv; then pick the "
       "kernel from .venv and run this cell again.")


def _package(name: str, load: bool, lang: str = ENGLISH) -> tuple[bool, str, str]:
    missing = (False, name, tr(lang, "{name} is not installed", name=name))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = importlib.import_module(name) if load else importlib.util.find_spec(name)
        return (True, f"{name} {importlib.metadata.version(name)}", "") if found is not None else missing
    except Exception as e:  # a broken install must show as a line, not a traceback
        if isinstance(e, ModuleNotFoundError) and e.name == name:
            return missing
        return False, name, tr(lang, "cannot import it ({error})", error=f"{type(e).__name__}: {e}")


def requirements(lang: str = ENGLISH) -> list[tuple[bool, str, str]]:
    """(met, what, what to do when it is not) for every requirement, in the order they print."""
    rows = [(sys.version_info >= (3, 11), f"Python {sys.version.split()[0]}",
             tr(lang, "the workbook needs Python 3.11 or newer; `make lab` builds .venv with one"))]
    rows += [_package(name, load, lang) for name, load in PACKAGES]
    rows.append((True, tr(lang, "workbook package"), ""))
    rows.append((AGENT_FILES.is_dir(), tr(lang, "agent_files at {path}", path=AGENT_FILES),
                 tr(lang, "the folder is missing: run the notebook from a clone of the repository ({root})", root=ROOT)))
    return rows


def env_check(rows: list[tuple[bool, str, str]] | None = None, lang: str | None = None) -> None:
    """Print one line per requirement, then "All set." or what to do (returns None: a notebook
    cell ending with this call shows the lines only)."""
    lang = current() if lang is None else lang
    rows = requirements(lang) if rows is None else rows
    for ok, what, fix in rows:
        print(f"{'✓' if ok else '✗'} {what}" + ("" if ok else f"  — {fix}"))
    missing = sum(not ok for ok, _, _ in rows)
    print("\n" + tr(lang, "All set.") if not missing else "\n" + tr(lang, "{missing} problem(s). {fix}", missing=missing, fix=tr(lang, FIX)))
