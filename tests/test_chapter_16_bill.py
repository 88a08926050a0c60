"""Chapter 16's claim about compaction and the bill holds (issue 27 item 4): the text says that with
the prefix cache the compaction loop is the dearer run and without it the cheaper one. Runs the
solution notebook's taught cells up to the cell that measures both, then reads what it measured."""

import json

import pytest

from autograder import notebooks
from tests.chapter_kernel import ran
from workbook.paths import ROOT

CHAPTER = "16_context_engineering"


@pytest.mark.slow
def test_compaction_is_dearer_with_the_cache_and_cheaper_without_as_the_text_says(tmp_path):
    nb = notebooks.read(ROOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    cells = [c for c in nb.cells if c.cell_type == "code" and not notebooks.is_test(c)]
    measured = [i for i, c in enumerate(cells) if "bills = {" in c.source]
    assert len(measured) == 1, "the one cell that measures the plain loop's and the compaction loop's bills"
    text = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "it is the **dearer** one" in text and "compaction is the cheaper run" in text, "the claim tested here"
    nb.cells = cells[:measured[0] + 1]
    probe = cells[0].copy()
    probe.source = "import json; print(json.dumps(list(bills.values())))"
    nb.cells.append(probe)
    with ran(nb, CHAPTER, timeout=120, tmp=tmp_path):
        pass
    out = "".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream")
    (_, plain_prompt, plain_cached, plain_fresh), (_, compact_prompt, compact_cached, compact_fresh) = json.loads(out)
    assert compact_prompt < plain_prompt, "compaction sends fewer prompt tokens"
    assert compact_cached > plain_cached, (
        f"with the cache the compaction loop is the dearer run: {compact_cached:.6f} vs {plain_cached:.6f} US$")
    assert compact_fresh < plain_fresh, (
        f"without the cache the compaction loop is the cheaper run: {compact_fresh:.6f} vs {plain_fresh:.6f} US$")
