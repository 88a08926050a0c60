"""Chapter 00's live cell, skipped, says so in Russian in the Russian edition.

It printed a sentence of its own, which no catalog knew; now it prints `workbook.providers.SKIP_HINT`
as the other chapters do, and the kernel's stdout hook retells that line in the notebook's
language (i18n/ru/ui.json; workbook/i18n/kernel.py). The code is the English edition's.
"""

from __future__ import annotations

import contextlib
import io
import json
import re

import pytest

from workbook import providers
from workbook.i18n import kernel as hooks
from workbook.paths import ROOT

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def _live_cell(chapter: str) -> str:
    cells = json.loads((ROOT / "chapters" / "ru" / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]
    live = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and "live_enabled()" in "".join(c["source"])]
    assert len(live) == 1, f"{chapter}: one live cell"
    return live[0]


@pytest.mark.parametrize("chapter", ["00_start_here", "01_one_step"])  # 02's loop speaks the function face only: no live cell
def test_the_live_cells_skip_line_reads_russian(chapter, monkeypatch):
    """The live cell, run with no provider set, prints a line the kernel's hook retells in Russian."""
    monkeypatch.setattr(providers, "live_enabled", lambda *a, **k: False)  # never a real provider here
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_live_cell(chapter), f"{chapter}-live", "exec"), {})
    said = out.getvalue()
    assert said.strip(), f"{chapter}: the live cell printed nothing when skipped"
    shown = hooks.lines_in("ru", said)
    assert CYRILLIC.search(shown) and not re.search(r"\bLive cell skipped\b", shown), (
        f"{chapter}: the skip line stays English in the Russian edition: {shown!r}")
