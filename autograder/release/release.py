"""`release`: build solution notebooks from their .py sources, then chapters/ with nbgrader."""

from __future__ import annotations

import ast
import copy
import filecmp
import re
import shutil
import tempfile
from pathlib import Path

from ipykernel.ipkernel import IPythonKernel
from nbgrader.utils import compute_checksum

from autograder import notebooks
from autograder.course import CHAPTER_ID, Course
from autograder.i18n import i18n_release
from autograder.release import reading

# nbgrader leaves a hidden-test cell with its docstring as the last expression, which IPython
# echoes as Out[n]; the released cell ends with a statement instead (the grader puts its own back).
HIDDEN_STUB = "# The hidden tests are put here when the notebook is graded.\npass\n"
# nbgrader's stub raises a bare NotImplementedError; the released one says what to do, wherever it
# is seen (a test cell, Validate, Run All, make check). It is still an error: no test passes on it.
STUB = re.compile(r"^([ \t]*)raise NotImplementedError\(\)[ \t]*$", re.M)
STUB_MESSAGE = "not answered yet: your answer to {} goes here"  # fits nbgrader validate's 87 columns

README = """\
# chapters/ — generated, do not edit

Every notebook here is made by `make release` (nbgrader `generate_assignment`) from
`solutions/NN_name/NN_name.py`: the solutions are replaced by stubs and the hidden tests are
removed. Edit the source in `solutions/` and run `make release`; a test fails when this folder
is out of date.

Students: open these notebooks (`make lab`), fill in the exercises, run the test cells, and
check a whole notebook with `make check NB=chapters/NN_name/NN_name.ipynb`.
"""


# JupyterLab writes the kernel's language_info into a notebook when the kernel starts; a
# notebook released with anything else opens marked unsaved. So release writes what the python3
# kernel reports (its version is the interpreter's: the course's venv).
LANGUAGE_INFO = copy.deepcopy(IPythonKernel.language_info)


def build_sources(course: Course, chapters: list[str]) -> list[Path]:
    """Write solutions/NN/NN.ipynb from NN.py (or normalise it in place); return changed files."""
    changed = []
    for chapter in chapters:
        py, ipynb = course.solution_py(chapter), course.solution_ipynb(chapter)
        nb = notebooks.from_py(py) if py.is_file() else notebooks.normalise(notebooks.read(ipynb))
        if notebooks.write_if_changed(ipynb, notebooks.dumps(nb)):
            changed.append(ipynb)
    return changed


def generate(course: Course, chapters: list[str], out: Path, db: Path) -> None:
    """Run nbgrader generate_assignment for `chapters` into `out`, recording them in `db`."""
    from nbgrader.converters import GenerateAssignment

    from autograder import nbgrader_run
    from autograder.settings import nbgrader_config

    config = nbgrader_config(course, db=f"sqlite:///{db}")
    config.CourseDirectory.release_directory = str(out)
    for chapter in chapters:
        nbgrader_run.run(GenerateAssignment, config, chapter, student=".")
        released = out / chapter / f"{chapter}.ipynb"
        nb = notebooks.read(released)
        source = notebooks.read(course.solution_ipynb(chapter))
        quiet_hidden_cells(source, nb)
        name_stubs(nb)
        reading.append(course, chapter, nb)  # the chapter's row of docs/READING.md, its last cell
        notebooks.cell_ids(nb)
        nb.metadata = notebooks.normalise(nb.copy()).metadata
        nb.metadata["language_info"] = copy.deepcopy(LANGUAGE_INFO)  # as JupyterLab saves it: opens clean
        # for the lab's loop (workbook/loopback.py), from the course, never the learner's cells: the
        # names a test may reach, and which code cells are the course's (another process runs no other)
        nb.metadata["workbook"] = {"exercises": notebooks.exercise_names(source),
                                   "cells": [c.id for c in nb.cells if c.cell_type == "code"]}
        released.write_text(notebooks.dumps(nb), encoding="utf-8")


def ends_with_expression(source: str) -> bool:
    """Does the cell's code end with a bare expression (which IPython would display)?"""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return bool(body) and isinstance(body[-1], ast.Expr)


def quiet_hidden_cells(source_nb, released_nb) -> None:
    """End every released cell that lost hidden tests with HIDDEN_STUB (its checksum updated)."""
    hidden = {notebooks.nbmeta(c).get("grade_id") for c in source_nb.cells
              if c.cell_type == "code" and "### BEGIN HIDDEN TESTS" in c.source}
    for cell in released_nb.cells:
        meta = notebooks.nbmeta(cell)
        if meta.get("grade_id") in hidden and ends_with_expression(cell.source):
            cell.source = cell.source.rstrip("\n") + "\n" + HIDDEN_STUB.rstrip("\n")
            meta["checksum"] = compute_checksum(cell)


def name_stubs(nb) -> None:
    """Give every answer cell's `raise NotImplementedError()` the STUB_MESSAGE (checksum updated)."""
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if cell.cell_type == "code" and meta.get("solution") and STUB.search(cell.source):
            message = STUB_MESSAGE.format(meta.get("grade_id", "")).replace('"', "'").replace("\\", "")
            cell.source = STUB.sub(rf'\g<1>raise NotImplementedError("{message}")', cell.source)
            meta["checksum"] = compute_checksum(cell)


def _sync(src: Path, dst: Path) -> list[str]:
    """Make folder `dst` equal to `src`; return what changed."""
    changes = []
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif not target.is_file() or not filecmp.cmp(path, target, shallow=False):
            changes.append(f"{'updated' if target.exists() else 'new':8} {target}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    for path in sorted(dst.rglob("*"), reverse=True):
        if not (src / path.relative_to(dst)).exists() and ".ipynb_checkpoints" not in path.parts:
            changes.append(f"{'removed':8} {path}")
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return changes


def build_release(course: Course, out: Path, chapters: list[str] | None = None) -> list[str]:
    """Build what `release` would write to chapters/ (every chapter, or `chapters`) into the
    empty folder `out`."""
    chapters = course.chapters() if chapters is None else chapters
    with tempfile.TemporaryDirectory(prefix="release-db-") as tmp:
        generate(course, chapters, out, Path(tmp) / "gradebook.db")
    (out / "README.md").write_text(README, encoding="utf-8")
    return chapters


def release(course: Course | None = None, only: list[str] | None = None) -> list[str]:
    """Regenerate solutions/*.ipynb and chapters/; idempotent. Returns the lines it printed.
    `only` names the chapters to release (several authors at work side by side); the others and
    chapters/README.md are left as they are."""
    course = course or Course()
    chapters = course.chapters()
    if only:
        unknown = sorted(set(only) - set(chapters))
        if unknown:
            raise SystemExit(f"release: no chapter {', '.join(unknown)} in {course.source} "
                             f"(chapters: {', '.join(chapters)})")
        chapters = [c for c in chapters if c in only]
    lines = [f"{'built':8} {p}" for p in build_sources(course, chapters)]
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        out = Path(tmp) / "chapters"
        out.mkdir()
        build_release(course, out, chapters)
        course.release.mkdir(parents=True, exist_ok=True)
        for stale in sorted(course.release.iterdir()) if not only else []:
            if stale.is_dir() and CHAPTER_ID.match(stale.name) and stale.name not in chapters:
                shutil.rmtree(stale)
                lines.append(f"{'removed':8} {stale}")
        for chapter in chapters:
            lines += _sync(out / chapter, course.release / chapter)
        lines += i18n_release.release_editions(course, chapters, out, _sync, whole=not only)  # chapters/<lang>/
        readme = course.release / "README.md"
        existed = readme.exists()
        if notebooks.write_if_changed(readme, README):
            lines.append(f"{'updated' if existed else 'new':8} {readme}")
    summary = f"release: {len(chapters)} chapter(s) in {course.release}, {len(lines)} file(s) changed"
    return lines + [summary]
