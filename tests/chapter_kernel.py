"""For tests that run a chapter's own cells: `ran`, the cells run in order in a fresh kernel."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from nbclient import NotebookClient

from workbook.paths import ROOT


@contextmanager
def ran(nb, chapter: str, timeout: int, tmp: Path):
    """`nb`'s cells run in order in a fresh kernel in the chapter's folder, with no LLM_* setting
    (the fake model, never a live one) and TMPDIR at `tmp` (what a chapter makes with tempfile goes
    with the test's folder); the client stays open inside the block for more cells."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")} | {"TMPDIR": str(tmp)}
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "solutions" / chapter)}})
    with client.setup_kernel(env=env):
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        yield client
