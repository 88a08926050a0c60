"""A test cell reaches the notebook's files only through `notebook_folder()` (issue 44, class 4).

Graded, a test runs in the judge and the notebook's files are inside the kernel's sandbox: a folder
the test hands the notebook's code comes from `workbook.notebook_side.notebook_folder()`, and the
test reads and writes it with the methods of the path it gets (`read_text`, `iterdir`, `replace`...),
each a request the judge makes of the sandbox, by descriptor, capped (autograder/judge/files.py).
A temporary folder of the judge's own would not exist in the sandbox, and a file function that
takes a path as text (`open`, `os.path.exists`, `pathlib.Path(...)`) would look on the grader's disk:
a negative check (`not os.path.exists(...)`) would pass whatever the notebook did. This gate reads
every test cell.
"""

import ast
import re

import pytest

from autograder import notebooks
from tests import gates

CHAPTERS = gates.chapters()
IDS = [chapter for _, chapter in CHAPTERS]
# A folder of the judge's own, that the notebook's code never sees (its tools run in the judge).
JUDGES_OWN = {
    ("11_capstone", "run_task_hidden_tests"): "the notes of the judge's own stand-in tools",
    ("19_attack_your_own_agent", "taint_guard_hidden_tests"): "the memory file of the judge's own Memory",
}
OS_FILES = {"replace", "rename", "symlink", "link", "remove", "unlink", "listdir", "scandir", "walk", "stat",
            "lstat", "mkdir", "makedirs", "rmdir", "open", "readlink", "chmod", "truncate", "access"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def file_calls(source: str) -> list[str]:
    """The calls in a test cell that reach files by a path of the judge's disk."""
    found = []
    for node in sorted((n for n in ast.walk(ast.parse(source)) if hasattr(n, "lineno")), key=lambda n: n.lineno):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        memory = bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == ":memory:"
        if (name in ("open", "Path", "pathlib.Path", "io.open") or name.startswith(("tempfile.", "shutil."))
                or name.startswith("os.path.") and name not in ("os.path.join", "os.path.basename")
                or name.startswith("os.") and name.split(".")[1] in OS_FILES
                or name == "sqlite3.connect" and not memory):
            found.append(f"{name}() at line {node.lineno}")
    return found


def test_the_rule_sees_the_judges_disk():
    assert file_calls("import os, tempfile\nwith tempfile.TemporaryDirectory() as d:\n"
                      "    assert not os.path.exists(d + '/x') and Path(d).is_dir()\nopen('f')\n"
                      "sqlite3.connect(p)\nsqlite3.connect(':memory:')\nos.fsdecode(b'x')\n") == [
        "tempfile.TemporaryDirectory() at line 2", "os.path.exists() at line 3", "Path() at line 3",
        "open() at line 4", "sqlite3.connect() at line 5"]


def cells_of(course, chapter) -> dict[str, str]:
    """grade_id -> a test cell's own lines, as its author wrote them: given code it `#@include`s runs
    in the judge as it runs in the notebook, and is not the test's."""
    py = course.solution_py(chapter)
    if not py.is_file():
        nb = notebooks.read(course.solution_ipynb(chapter))
        return {notebooks.nbmeta(c)["grade_id"]: c.source for c in nb.cells
                if c.cell_type == "code" and notebooks.is_test(c)}
    parts = re.split(r"^(# %%.*)$", py.read_text(encoding="utf-8"), flags=re.M)
    return {re.search(r'"grade_id": "([^"]+)"', head).group(1): body
            for head, body in zip(parts[1::2], parts[2::2], strict=True) if '"grade": true' in head}


@pytest.mark.parametrize(("course", "chapter"), CHAPTERS, ids=IDS)
def test_a_test_cell_reaches_the_notebooks_files_through_notebook_folder(course, chapter):
    cells = cells_of(course, chapter)
    assert cells, f"{chapter}: the gate read no test cell"
    found = {gid: calls for gid, source in cells.items() if (calls := file_calls(source)) and (chapter, gid) not in JUDGES_OWN}
    assert not found, (
        f"{chapter}: test cells reach files by a path of the grader's disk: {found}. Make the folder with "
        "`notebook_folder()` and use its path's methods (`(folder / name).read_text()`, `.iterdir()`, "
        "`.replace()`); a path the notebook gave as text is `notebook_path(text)`; a SQLite file is made "
        "in memory and written whole (`path.write_bytes(db.serialize())`) and read with read_rows")


def test_every_judges_own_folder_is_still_there():
    cells = {(chapter, gid): source for course, chapter in CHAPTERS
             for gid, source in cells_of(course, chapter).items()}
    gated = {chapter for _, chapter in CHAPTERS}  # GATES_ONLY may leave chapters out
    stale = [key for key in JUDGES_OWN if key[0] in gated and (key not in cells or not file_calls(cells[key]))]
    assert not stale, f"JUDGES_OWN lists test cells that no longer make a folder of their own: {stale}"
