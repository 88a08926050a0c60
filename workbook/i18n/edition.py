"""`python -m workbook edition LANG NOTEBOOK`: the same notebook, its text in another edition.

The editions of a chapter differ only in their markdown cells (autograder/i18n/i18n_release.py), so a
learner's notebook moves to another language by swapping those: each markdown cell still as the
released edition it came from has it becomes that cell of the other edition (same cell id); a
cell the learner wrote or changed, and every code cell (their answers), stay as they are. On a
JupyterHub a student fetches the English notebook; `python -m workbook edition ru
01_one_step/01_one_step.ipynb` in a terminal gives them the Russian text (docs/HUB.md).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from workbook.i18n import ENGLISH, META, known, notebook_language, tr
from workbook.paths import ROOT

CHAPTERS = ROOT / "chapters"


def released(chapter: str, lang: str, chapters: Path = CHAPTERS) -> Path:
    """Where the `lang` edition of a chapter is released."""
    return (chapters if lang == ENGLISH else chapters / lang) / chapter / f"{chapter}.ipynb"


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {path} as a notebook ({type(e).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path} is not a notebook")
    return data


def _markdown(nb: dict) -> dict[str, str]:
    return {c.get("id"): "".join(c.get("source", "")) for c in nb["cells"] if c.get("cell_type") == "markdown"}


def switch(path: Path, lang: str, chapters: Path = CHAPTERS) -> str:
    """Put the notebook at `path` in the `lang` edition; return what was done (in `lang`)."""
    target = known(lang)
    if target is None:
        raise ValueError(f"no edition in {lang!r}: the course has English and {', '.join(sorted(_langs(chapters)))}")
    nb = _read(path)
    source = notebook_language(nb) or ENGLISH
    chapter = path.stem
    if source == target:
        return tr(target, "{path} is already in this edition.", path=path)
    before, after = _read(released(chapter, source, chapters)), _read(released(chapter, target, chapters))
    if [c for c in before["cells"] if c.get("cell_type") == "code"] != \
            [c for c in after["cells"] if c.get("cell_type") == "code"]:
        raise ValueError(f"the editions of {chapter} differ in their code: release the course again")
    was, now, kept = _markdown(before), _markdown(after), 0
    for cell in nb["cells"]:
        if cell.get("cell_type") != "markdown":
            continue
        if cell.get("id") in now and was.get(cell.get("id")) == "".join(cell.get("source", "")):
            cell["source"] = now[cell["id"]].splitlines(keepends=True)  # as nbformat writes it
        else:
            kept += 1
    meta = nb.setdefault("metadata", {})
    meta.pop(META, None)
    if target != ENGLISH:
        meta[META] = {"language": target}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".edition-", suffix=".ipynb")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return tr(target, "{path}: the text is now this edition's; your code is as it was "
                      "({kept} text cell(s) you changed kept as they were). Reload the notebook.",
              path=path, kept=kept)


def _langs(chapters: Path) -> list[str]:
    return [p.name for p in chapters.iterdir() if p.is_dir() and known(p.name)] if chapters.is_dir() else []
