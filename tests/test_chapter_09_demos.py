"""Chapter 09's demo cells can be run again: each starts from an empty log, so the viewer shows one
run, not two (issue 17 §1). Runs the solution notebook's non-test cells in one kernel, then the demo
cells a second time, and reads the logs they wrote."""

import re

import pytest

from autograder import notebooks
from tests.chapter_kernel import ran
from workbook.paths import ROOT

CHAPTER = "09_trajectories_and_checkpoints"


@pytest.mark.slow
def test_running_a_demo_cell_again_starts_a_new_log(tmp_path):
    nb = notebooks.read(ROOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and not notebooks.is_test(c)]
    demos = [i for i, c in enumerate(nb.cells) if "= WORK / " in c.source]
    assert len(demos) >= 4, "the demo cells that write logs and checkpoints"
    with ran(nb, CHAPTER, timeout=60, tmp=tmp_path) as client:
        first = [_text(nb.cells[i]) for i in demos]
        for i in demos:
            client.execute_cell(nb.cells[i], i)
        probe = nb.cells[demos[0]].copy()
        probe.source = ("print(len(trace.read_jsonl(log_path).steps), trace.read_jsonl(log_path).problems, "
                        "len(trace.read_jsonl(limit_path).steps), trace.read_jsonl(limit_path).problems)")
        nb.cells.append(probe)
        client.execute_cell(probe, len(nb.cells) - 1)
    assert _text(probe).strip() == "4 [] 3 []", _text(probe)
    again = [_text(nb.cells[i]) for i in demos]
    for before, after, i in zip(first, again, demos, strict=True):
        assert after == before, f"cell {i} printed something else the second time:\n{before}\n---\n{after}"


def _text(cell) -> str:
    """What the cell printed, with the real milliseconds blanked (they differ between runs)."""
    return re.sub(r'"ms": [0-9.]+', '"ms": _', "".join(o.get("text", "") for o in cell.outputs
                                                       if o.output_type == "stream"))
