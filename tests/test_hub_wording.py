"""Words that claim no more than they know (issue 31): the progress table, `make grade`'s limits,
chapter 00's providers, and feedback's visible and hidden test cells."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_output
from nbgrader.utils import compute_checksum
from traitlets.config import Config

from autograder import notebooks
from autograder.course import Course
from autograder.pipeline import demo
from autograder.pipeline.feedback_filter import HIDDEN_LABEL, VISIBLE_LABEL, HideHiddenTests
from autograder.settings import Limits
from workbook import progress, providers

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "tests" / "pilot"
CHAPTER = "00_pilot"
HONEST = "visible tests passed; hidden tests run when graded"


def test_progress_says_only_the_visible_tests_passed():
    row = progress.Row("01_one_step", (progress.TestCell("a_tests", "passed"),), 2, 2)
    assert row.next == progress.DONE and HONEST in row.next
    table = progress.text([row])
    assert HONEST in table and "hidden tests run when your notebooks are graded" in table
    assert progress.next_step([row]).startswith("Every chapter is done")


def test_make_grade_states_the_limits_the_readme_states():
    readme = (ROOT / "autograder" / "README.md").read_text(encoding="utf-8")
    said = re.search(r"`make grade` runs the whole pipeline on the sample cohort, with the\s+demo's shorter "
                     r"limits \((\d+) s per cell, (\d+) s per notebook.*?`grade` itself uses (\d+) s and (\d+) s",
                     readme, re.S)
    assert said, "autograder/README.md no longer states the demo's limits"
    assert tuple(map(int, said.groups())) == (demo.DEMO_CELL_SECONDS, demo.DEMO_NOTEBOOK_SECONDS,
                                              Limits.cell_timeout, Limits.notebook_timeout)
    limits = re.search(r"^## Limits.*?\n\n(.*?)\n\n", readme, re.M | re.S)
    assert limits and re.match(rf"{Limits.cell_timeout} s\b.*per cell .*\b{Limits.notebook_timeout} s\b.*per notebook",
                               " ".join(limits.group(1).split())), "the Limits section and settings.Limits disagree"


def _chapter_00_cells() -> list[str]:
    nb = nbformat.read(ROOT / "chapters" / "00_start_here" / "00_start_here.ipynb", as_version=4)
    return [c.source for c in nb.cells]


def test_chapter_00_lists_every_live_provider():
    cells = _chapter_00_cells()
    table = next(s for s in cells if "| `LLM_PROVIDER` |" in s)
    rows = set(re.findall(r"^\| `(\w+)`", table, re.M))
    assert rows == set(providers.PROVIDERS) | {"LLM_PROVIDER"}, rows
    # its live cell prints the one hint (providers.SKIP_HINT), which names every live provider
    # (test_every_live_cell_skips_with_the_one_hint_that_names_every_provider)
    assert any("print(SKIP_HINT)" in s for s in cells), "chapter 00's live cell prints no SKIP_HINT"


def test_every_live_cell_skips_with_the_one_hint_that_names_every_provider():
    """A skip line written out by hand went stale in eight chapters (no `anthropic`): each chapter
    prints providers.SKIP_HINT, and the hint names every live provider."""
    named = set(re.findall(r"LLM_PROVIDER=([^(]+?) \(", providers.SKIP_HINT)[0].replace(",", " ").split()) - {"or"}
    assert named == set(providers.PROVIDERS) - {"fake"}, named
    by_hand = [path.parent.name for path in sorted((ROOT / "solutions").glob("*/*.py"))
               if "Live cell skipped" in path.read_text(encoding="utf-8")]
    assert not by_hand, f"a skip line written out instead of print(SKIP_HINT): {by_hand}"


def test_the_readme_and_design_name_every_live_provider_where_they_list_them():
    """README's "the same code runs against ..." and DESIGN's "(Ollama, ...)" name each one."""
    live = {name for name in providers.PROVIDERS if name != "fake"}
    for doc in ("README.md", "docs/DESIGN.md"):
        text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
        lists = re.findall(r"runs against (?:a live provider \()?([^.;)]*?)(?:\)| by changing)", text)
        assert lists, f"{doc} no longer says what the code runs against"
        for said in lists:
            assert set(re.findall(r"\w+", said.lower())) - {"or", "and"} == live, f"{doc}: {said!r}"


@pytest.fixture
def course(tmp_path):
    shutil.copytree(PILOT / "solutions", tmp_path / "course" / "solutions")
    return Course(root=tmp_path / "course")


def test_feedback_labels_visible_and_hidden_test_cells(course):
    nb = notebooks.read(course.solution_ipynb(CHAPTER))
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if meta.get("grade_id"):
            meta["checksum"] = compute_checksum(cell)
        if cell.cell_type == "code":
            cell.execution_count = 7  # the judge ran the tests: the kernel's count never moved
            cell.outputs = [new_output("stream", name="stdout", text="ran\n")]
    config = Config()
    config.CourseDirectory.root = str(course.root)
    config.CourseDirectory.source_directory = "solutions"
    resources = {"nbgrader": {"assignment": CHAPTER, "notebook": CHAPTER, "student": "ann"}}
    out = HideHiddenTests(config=config).preprocess(nb, resources)[0]
    kinds = {}
    for cell in out.cells:
        meta = notebooks.nbmeta(cell)
        if notebooks.is_test(cell):
            kinds[meta["grade_id"]] = cell.source.splitlines()[0] + "\n"
            assert cell.execution_count is None
        elif cell.cell_type == "code" and not meta.get("solution"):
            assert not cell.source.startswith(("# visible test", "# hidden test"))
    hidden = {g for g in kinds if "hidden" in g}
    assert hidden and len(kinds) > len(hidden)
    assert {g for g, first in kinds.items() if first == HIDDEN_LABEL} == hidden
    assert {g for g, first in kinds.items() if first == VISIBLE_LABEL} == set(kinds) - hidden
