"""A learner's test cell runs through the judge's link, in the kernel (workbook/loopback.py): what
it sees of the notebook is what the grader sees. And the gate that lets the kernel know a test
cell: every test cell opens with its docstring, and no other cell does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from autograder import notebooks
from workbook import loopback, test_cells
from workbook.paths import ROOT

ANSWER = {"cell_type": "code", "source": "def grow(xs):\n    ...\n", "metadata": {"nbgrader": {"solution": True}}}


@pytest.fixture
def shell(tmp_path, monkeypatch):
    """An IPython shell with the loop installed, in a chapter folder whose notebook's answer cell
    defines `grow` and `boom` (the exercises); the loop is taken out again afterwards."""
    folder = tmp_path / "01_demo"
    folder.mkdir()
    cells = [{**ANSWER, "id": "c1"}, {"cell_type": "markdown", "source": "x", "id": "c2"},
             {"cell_type": "code", "source": "def given():\n    ...\n", "metadata": {}, "id": "c3"},
             {"cell_type": "code", "source": "def digest(parts):\n    return str(parts)\n", "metadata": {}, "id": "mine"}]
    meta = {"workbook": {"exercises": ["grow", "boom", "seen", "key"], "cells": ["c1", "c3"]}}  # the release's
    (folder / "01_demo.ipynb").write_text(json.dumps({"cells": cells, "metadata": meta}), encoding="utf-8")
    monkeypatch.chdir(folder)
    shell = InteractiveShell.instance()
    assert test_cells.install(shell)
    shell.run_cell("def grow(xs):\n    xs.append(1)\n    return len(xs)\n"
                   "def boom():\n    raise KeyError('no such order')\n"
                   "from dataclasses import dataclass\n@dataclass\nclass Seen:\n    n: int\n"
                   "def seen(n):\n    return Seen(n)\n"
                   "class ReplyError(ValueError):\n    pass\n"
                   "def digest(parts):\n    return str(parts)\n"
                   "def key(a):\n    if a == 'bad':\n        raise ReplyError('no such reply')\n    return digest([a])\n"
                   "helper = 'the notebook decides this'")
    yield shell
    shell.input_transformers_post.remove(test_cells._transform)
    delattr(shell, test_cells.MARK)
    loopback._LOOP.clear()


def ran(shell, source: str):
    result = shell.run_cell(source)
    return result.error_in_exec


def test_what_a_test_cell_is():
    assert test_cells.is_test_cell('"""Visible tests: one step."""\nx = 1')
    assert test_cells.is_test_cell('"""Hidden tests: more."""\npass')
    assert not test_cells.is_test_cell('"""A helper."""\ndef f(): ...')
    assert not test_cells.is_test_cell("x = 1\n'Visible tests'")
    assert not test_cells.is_test_cell('"""Visible tests: broken\n')
    assert not test_cells.is_test_cell("")


def test_every_test_cell_opens_with_a_test_docstring_and_no_other_cell_does():
    """So a learner's kernel runs exactly the test cells through the loop (every edition's)."""
    seen, wrong = 0, []
    for path in sorted((ROOT / "chapters").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        for cell in notebooks.read(path).cells:
            if cell.cell_type != "code":
                continue
            is_test = notebooks.is_test(cell)
            seen += is_test
            if test_cells.is_test_cell(cell.source) != is_test:
                wrong.append(f"{path.relative_to(ROOT)} {notebooks.nbmeta(cell).get('grade_id', cell.source[:40])!r}")
    assert not wrong, ('a test cell opens with """Visible tests: ...""" or """Hidden tests: ...""", and no other '
                       "cell does (a learner's kernel runs those through the judge's link): " + ", ".join(wrong))
    assert seen > 200


def test_an_argument_changed_in_place_is_read_with_after_as_graded(shell):
    """The test's list is its own (the notebook got a copy); `after` reads what the code made of it.
    In the kernel before the loop the test's own list changed: a test could pass here and fail graded."""
    error = ran(shell, '"""Visible tests: grow."""\nfrom workbook.notebook_side import after\nxs = []\n'
                       'n = grow(xs)\nassert xs == [] and after(xs) == [1] and n == 1, (xs, after(xs), n)')
    assert error is None, error


def test_a_test_reads_only_the_exercises_and_its_names_stay_its_own(shell):
    error = ran(shell, '"""Visible tests: a given name."""\nprint(helper)')
    assert type(error) is NameError, "the notebook's other names are not the test's"
    assert ran(shell, '"""Visible tests: own names."""\nmine = 3') is None
    assert "mine" not in shell.user_ns, "a test's names never land in the notebook"


def test_a_record_comes_back_as_data(shell):
    error = ran(shell, '"""Visible tests: a record."""\nfrom workbook.checks import kind\n'
                       'r = seen(2)\nassert type(r).__name__ == "Record" and kind(r) == "Seen" and r.n == 2')
    assert error is None, error


def test_the_notebooks_error_is_shown_with_its_own_lines(shell):
    """A failing call shows the notebook's exception as the cause: the student's own line."""
    error = ran(shell, '"""Visible tests: boom."""\nboom()')
    assert type(error).__name__ == "KeyError" and "no such order" in str(error)
    assert type(error.__cause__) is KeyError
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error._render_traceback_()))
    assert "raise KeyError('no such order')" in text and "boom()" in text, text
    assert "judge_end.py" not in text and "endpoint.py" not in text, "the link's frames are not shown"
    assert "loopback" not in text and "hidden" not in text, "nor the cell's one line that ran the test"


def test_a_cell_that_is_not_a_test_runs_as_ever(shell):
    assert ran(shell, "xs = []\ngrow(xs)\nassert xs == [1]") is None


def test_it_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("AGENT_LOOP_LOOPBACK", "0")
    assert not test_cells.install(InteractiveShell.instance())
    monkeypatch.delenv("AGENT_LOOP_LOOPBACK")
    assert not test_cells.install(), "outside a kernel it installs nothing"


def test_a_notebooks_own_error_class_is_shown_as_the_cause_too(shell):
    error = ran(shell, '"""Visible tests: key."""\nkey("bad")')
    assert isinstance(error, ValueError) and type(error.__cause__).__name__ == "ReplyError", (error, error.__cause__)


def test_another_process_runs_no_cell_the_learner_added(shell):
    """Graded, another process runs the chapter's cells with the answers, not the learner's own:
    `key` reads `digest`, which only an added cell defines (red team 16)."""
    error = ran(shell, '"""Visible tests: key elsewhere."""\nfrom workbook.notebook_side import another_process\n'
                       'another_process(5).key("a")')
    assert type(error) is NameError and "only a cell you added defines it" in str(error), error
    assert ran(shell, '"""Visible tests: key here."""\nassert key("a") == "[\'a\']"') is None


def test_another_process_runs_no_decorator_the_learner_added(shell):
    """Red team 17: the answer cell's `@logged` comes from a cell the learner added; the function's
    own code never reads the name, its cell does."""
    saved = json.loads(Path("01_demo.ipynb").read_text(encoding="utf-8"))
    saved["cells"] += [{"cell_type": "code", "source": "def logged(fn):\n    return fn\n", "metadata": {}, "id": "mine2"},
                       {**ANSWER, "source": "@logged\ndef wrapped(a):\n    return a\n", "id": "c4"}]
    saved["metadata"]["workbook"]["cells"].append("c4")
    saved["metadata"]["workbook"]["exercises"].append("wrapped")
    Path("01_demo.ipynb").write_text(json.dumps(saved), encoding="utf-8")
    shell.run_cell("def logged(fn):\n    return fn\n@logged\ndef wrapped(a):\n    return a\n")
    error = ran(shell, '"""Visible tests: wrapped elsewhere."""\nfrom workbook.notebook_side import another_process\n'
                       'another_process(5).wrapped("a")')
    assert type(error) is NameError and "'logged'" in str(error), error


def test_import_workbook_loads_no_part_of_the_link():
    """Every graded kernel and every replay of another process imports workbook before it refuses
    native modules (ctypes reaches the real clock): the loop loads with the first test cell only."""
    import subprocess
    import sys

    code = "import sys, workbook; print(sorted(m for m in ('ctypes', 'pydantic', 'workbook.loopback', 'workbook.link.judge_end') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
