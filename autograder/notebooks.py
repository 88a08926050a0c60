"""Read, build and normalise notebooks so that every generated file is byte-for-byte reproducible,
and read what grading needs from one: its test cells, the exercise a grade_id belongs to, a cell's
first error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
from nbformat.reader import NotJSONError

from autograder.course import AutograderError
from autograder.release import includes
from workbook.link.names import defined_names

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")  # everything else is editor noise
BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")


ANSI = re.compile(r"\x1b\[[0-9;]*m")  # terminal colours in tracebacks
ENAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,79}$")
TEST_ID = re.compile(r"^(?P<exercise>.+?)_(hidden_)?tests(_\d+)?$")  # a test cell's grade_id


def safe_ename(ename) -> str:
    """An exception's class name as shown to people: a name, or `Error` (a student can make a
    class whose name is any text, hidden test source included)."""
    ename = ANSI.sub("", str(ename))
    return ename if ENAME.match(ename) else "Error"


def is_test(cell) -> bool:
    """A graded test cell (not an answer cell)."""
    meta = nbmeta(cell)
    return bool(meta.get("grade")) and not meta.get("solution")


def exercise_of(grade_id: str) -> str:
    """`parse_reply_tests` and `parse_reply_hidden_tests` belong to exercise `parse_reply`."""
    m = TEST_ID.match(grade_id)
    return m.group("exercise") if m else grade_id


def chapter_tests(nb) -> list[dict]:
    """The graded test cells of a notebook in order: grade_id, points, exercise."""
    tests = []
    for cell in nb.cells:
        meta = nbmeta(cell)
        if is_test(cell):
            tests.append({"grade_id": meta["grade_id"], "points": float(meta.get("points", 0)),
                          "exercise": exercise_of(meta["grade_id"])})
    return tests


def first_error(cell) -> str | None:
    """'AssertionError: message' for the first error output of a cell, or None."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            text = ANSI.sub("", f"{safe_ename(output.get('ename'))}: {output.get('evalue')}").strip()
            return shortened(text)
    return None


def shortened(text: str, limit: int = 300) -> str:
    """`text` in at most `limit` characters, its end kept when it is a hint (after the last " — "):
    the middle, a quoted value most often, is what goes (make check cut the hint off, issue 45)."""
    if len(text) <= limit:
        return text
    head, sep, hint = text.rpartition(" — ")
    if sep and len(hint) <= limit // 2:
        return head[: limit - len(hint) - len(sep) - 3] + "..." + sep + hint
    return text[: limit - 3] + "..."


def exercise_names(nb) -> list[str]:
    """The names a chapter's answer cells define at top level (`def`, `class`, `name = ...`): the
    only names of the notebook a judged test may reach (workbook/link/names.py). Read from the
    course's own notebook (the source or the release), never from a submission."""
    cells = [c for c in nb.cells if c.get("cell_type") == "code" and nbmeta(c).get("solution")]
    return sorted(set().union(*(defined_names(c.source) for c in cells)))


def nbmeta(cell) -> dict:
    """A cell's nbgrader metadata ({} for a cell nbgrader does not know)."""
    return cell.get("metadata", {}).get("nbgrader", {})


def read(path: Path | str) -> nbformat.NotebookNode:
    """Read a notebook, or raise AutograderError saying what is wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise AutograderError(f"no such notebook: {path}")
    try:
        with open(path, encoding="utf-8") as f:
            nb = nbformat.read(f, as_version=4)
    except (json.JSONDecodeError, UnicodeDecodeError, NotJSONError):
        raise AutograderError(f"{path} is not a notebook (not valid JSON)") from None
    except Exception as e:  # nbformat raises several kinds for a file that is JSON but not a notebook
        raise AutograderError(f"{path} is not a readable notebook ({type(e).__name__}: {e})") from None
    if not isinstance(nb.get("cells"), list):
        raise AutograderError(f"{path} is not a notebook (it has no cells)")
    return nb


def dumps(nb) -> str:
    """The canonical text of a notebook (nbformat's own layout, sorted keys, final newline)."""
    return nbformat.writes(nb, version=4).rstrip("\n") + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` unless the file already holds it; return whether it changed."""
    path = Path(path)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def cell_ids(nb) -> None:
    """Deterministic cell ids: the grade_id where there is one, else the cell's position."""
    used = set()
    for index, cell in enumerate(nb.cells):
        grade_id = nbmeta(cell).get("grade_id")
        base = BAD_ID.sub("-", grade_id)[:60] if grade_id else f"cell-{index}"
        cid, n = base, 1
        while cid in used:
            n += 1
            cid = f"{base}-{n}"
        used.add(cid)
        cell["id"] = cid


def normalise(nb) -> nbformat.NotebookNode:
    """No outputs, no editor metadata, a fixed kernelspec and deterministic ids."""
    nb.nbformat, nb.nbformat_minor = 4, 5
    meta = {k: v for k, v in nb.metadata.items() if k not in ("jupytext", "widgets", "toc")}
    meta["kernelspec"] = dict(KERNELSPEC)
    meta["language_info"] = {"name": "python"}
    nb.metadata = nbformat.NotebookNode(meta)
    for cell in nb.cells:
        cell.metadata = nbformat.NotebookNode(
            {k: cell.metadata[k] for k in CELL_METADATA if k in cell.metadata})
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        if "attachments" in cell and not cell.attachments:
            del cell["attachments"]
    cell_ids(nb)
    return nb


def from_py(path: Path) -> nbformat.NotebookNode:
    """Build the notebook for a jupytext py:percent chapter source, its `#@include` lines
    expanded (autograder/release/includes.py)."""
    import jupytext

    text = includes.expand_file(path)  # a missing or ambiguous source stops here, saying which
    try:
        nb = jupytext.reads(text, fmt="py:percent")
    except Exception as e:
        raise AutograderError(f"cannot read {path} as a py:percent notebook: {e}") from None
    return normalise(nbformat.from_dict(json.loads(nbformat.writes(nb, version=4))))


def strip_ids(nb) -> dict:
    """The notebook as plain data without cell ids or the releasing Python's version, for
    comparisons that ignore them (release writes the version its own interpreter reports)."""
    data = json.loads(nbformat.writes(nb, version=4))
    data["metadata"].get("language_info", {}).pop("version", None)
    for cell in data["cells"]:
        cell.pop("id", None)
    return data
