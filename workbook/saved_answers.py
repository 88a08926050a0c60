"""The student's quiz answers, kept in a small local file so that they survive a page reload.

One JSON file, by default `.workbook/progress.json` at the repository root (git-ignored; the
WORKBOOK_PROGRESS variable moves it). It maps chapter -> question text -> the chosen option
texts: keyed by text, not by position, so an edited quiz never shows an answer on the wrong
question. Nothing here raises for a missing, unreadable or read-only file: a quiz must work
where it cannot save (a grader's sandbox, a read-only clone); it then just forgets.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from workbook.paths import ROOT

VERSION = 1


def path() -> Path:
    """Where the answers are kept (WORKBOOK_PROGRESS, else .workbook/progress.json)."""
    chosen = os.environ.get("WORKBOOK_PROGRESS", "").strip()
    return Path(chosen) if chosen else ROOT / ".workbook" / "progress.json"


def load(where: Path | None = None) -> dict[str, dict[str, list[str]]]:
    """Every saved answer: {chapter: {question text: [option texts]}}; {} when there is none."""
    try:
        data = json.loads((where or path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    quizzes = data.get("quizzes") if isinstance(data, dict) else None
    if not isinstance(quizzes, dict):
        return {}
    out: dict[str, dict[str, list[str]]] = {}
    for chapter, questions in quizzes.items():
        if isinstance(chapter, str) and isinstance(questions, dict):
            out[chapter] = {q: [p for p in picks if isinstance(p, str)]
                            for q, picks in questions.items()
                            if isinstance(q, str) and isinstance(picks, list)}
    return out


def chapter(chapter_id: str, where: Path | None = None) -> dict[str, list[str]]:
    """One chapter's saved answers: {question text: [option texts]}."""
    return load(where).get(chapter_id, {})


def save(chapter_id: str, question: str, picks: list[str], where: Path | None = None) -> bool:
    """Remember the options picked for one question; False when the file cannot be written."""
    target = where or path()
    data = load(target)
    data.setdefault(chapter_id, {})[question] = list(picks)
    text = json.dumps({"version": VERSION, "quizzes": data}, indent=1, sort_keys=True,
                      ensure_ascii=False) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write a temp file and move it into place: a crash never leaves half a file.
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".progress-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except OSError:
        return False
    return True
