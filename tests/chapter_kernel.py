"""For tests that run a chapter's own cells: `ran`, the cells run in order in a fresh kernel."""

from __future__ import annotations

import os
from contextlib import contextmanager

from nbclient import NotebookClient

from workbook.paths import ROOT


@contextmanager
def ran(nb, chapter: str, timeout: int):
    """`nb`'s cells run in order in a fresh kernel in the chapter's folder, with no LLM_* setting
    (the fake model, never a live one); the client stays open inside the block for more cells."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "solutions" / chapter)}})
    with client.setup_kernel(env=env):
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        yield client
