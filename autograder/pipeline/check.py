"""`check NB`: run a student's notebook top to bottom and say which test cells fail, and why.

Unlike `nbgrader validate` it exits non-zero when a test fails, ignores stderr noise the grader
ignores too, survives infinite loops and crashes, and warns about edited test cells.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from pathlib import Path

from nbgrader.utils import compute_checksum, is_locked

from autograder import notebooks
from autograder.course import AutograderError
from workbook.i18n import language, tr, translate_error


def _only_docstring(source: str) -> bool:
    """A released hidden-test cell: a docstring, then `pass` or nothing (the grader puts the tests back)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    if body and isinstance(body[-1], ast.Pass):
        body = body[:-1]
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def _edited(nb) -> list[str]:
    """Locked cells whose content no longer matches the checksum nbgrader gave them."""
    out = []
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if meta.get("checksum") and is_locked(cell) and compute_checksum(cell) != meta["checksum"]:
            out.append(meta.get("grade_id", "?"))
    return out


def run(path: Path, timeout: int = 30):
    """Execute the notebook with the grader's protections; return the executed notebook."""
    from autograder.pipeline.execute import SafeExecute

    nb = notebooks.read(path)
    if not notebooks.chapter_tests(nb):
        raise AutograderError(f"{path} has no test cells: is it a chapter notebook?")
    executor = SafeExecute(timeout=timeout, notebook_timeout=max(300, 10 * timeout),
                           private_paths=[], memory_mb=0, judge=False)  # in the kernel, as Run All
    executor.preprocess(nb, {"metadata": {"path": str(Path(path).resolve().parent)}})
    return nb


def summarise(path: Path, nb, edited: list[str]) -> tuple[int, list[str]]:
    """(exit code, lines): 0 when every test cell that ran passed. Said in the notebook's language
    (a translated edition's metadata; else AGENT_LOOP_LANG or the locale), its tests' messages too."""
    lang = language(nb)
    lines = [tr(lang, "Checking {path}", path=path)]
    failed = passed = 0
    ended = set(nb.metadata.get("autograder", {}).get("ended", []))
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        grade_id = meta.get("grade_id", "")
        error = notebooks.first_error(cell)
        if notebooks.is_test(cell):
            if _only_docstring(cell.source):
                lines.append("  ----  " + tr(lang, "{test}: hidden tests, run when your notebook is graded", test=grade_id))
            elif error is None and grade_id in ended:
                passed += 1
                lines.append(f"  PASS  {grade_id}")
            elif error is None:
                failed += 1
                lines.append("  FAIL  " + tr(lang, "{test}: the test cell did not run to its end (skipped or "
                                                   "rewritten by code in the notebook)", test=grade_id))
            else:
                failed += 1
                if error.startswith("NotImplementedError"):
                    lines.append("  TODO  " + tr(lang, "{test}: not answered yet (the stub raises NotImplementedError)",
                                                 test=grade_id))
                else:
                    lines.append(f"  FAIL  {grade_id}: {translate_error(lang, error)}")
        elif meta.get("solution") and error:
            lines.append("  note  " + tr(lang, "your cell {cell} raised {error}", cell=repr(grade_id),
                                         error=translate_error(lang, error)))
    for grade_id in edited:
        lines.append("  note  " + tr(lang, "you edited the locked cell {cell}; the grader uses its own copy",
                                     cell=repr(grade_id)))
    events = nb.metadata.get("autograder", {}).get("events", [])
    for e in events:
        if e["kind"] in ("timeout", "unresponsive", "dead_kernel", "notebook_timeout"):
            lines.append(f"  note  {e['detail']} (cell {e['cell']})")
    total = passed + failed
    lines.append(tr(lang, "{passed} of {total} test cell(s) passed.", passed=passed, total=total) if failed else
                 tr(lang, "All {total} test cell(s) passed.", total=total))
    return (1 if failed else 0), lines


def suggest(path: Path, chapters: Path) -> str | None:
    """The chapter notebook `path` most likely meant, as a path to type (relative to the current
    folder when it is inside it), or None. A chapter's folder, its name or number, or a name a
    few letters off: `chapters/01_one_step`, `01_one_step.ipynb`, `chapters/1`, `01_one_stp`."""
    notebooks_ = {nb.stem: nb for nb in sorted(chapters.glob("*/*.ipynb")) if nb.parent.name == nb.stem}
    name = path.stem if path.suffix == ".ipynb" else path.name
    number = re.match(r"(?:chapter[ _-]?)?(\d{1,2})(?:$|_)", name, re.I)
    found: Path | None
    if name in notebooks_:
        found = notebooks_[name]
    elif number:
        found = next((nb for stem, nb in notebooks_.items() if stem[:2] == number.group(1).zfill(2)), None)
    else:
        close = difflib.get_close_matches(name, list(notebooks_), n=1, cutoff=0.6)
        found = notebooks_[close[0]] if close else None
    return None if found is None else _typed(found)


def _typed(path: Path) -> str:
    """`path` as a student would type it here: relative when it is inside the current folder."""
    here, full = Path.cwd().resolve(), path.resolve()
    return os.path.relpath(full, here) if full.is_relative_to(here) else str(path)


def _not_a_notebook(path: Path, chapters: Path | None) -> AutograderError:
    """What `check` says of a path that is no notebook: what is wrong, then the path it likely meant."""
    what = (f"{path} is a folder, not a notebook" if path.is_dir() else
            f"{path} is not a notebook (.ipynb)" if path.exists() else f"no such notebook: {path}")
    meant = suggest(path, chapters) if chapters is not None else None
    if meant is not None:
        return AutograderError(f"{what}; did you mean {meant}?")
    where = f" ({_typed(chapters)}/NN_name/NN_name.ipynb)" if chapters is not None else ""
    return AutograderError(f"{what}; give a chapter's notebook{where}")


def check(path: Path | str, timeout: int = 30, chapters: Path | None = None) -> tuple[int, list[str]]:
    """Run the notebook's tests; return (exit code, lines to print). A path that is no notebook is
    an AutograderError that suggests one of `chapters` (the released chapters' folder)."""
    path = Path(path)
    if path.suffix != ".ipynb" or not path.is_file():
        raise _not_a_notebook(path, chapters)
    edited = _edited(notebooks.read(path))
    return summarise(path, run(path, timeout), edited)
