"""Every released chapter ends with its reading list: its row of docs/READING.md, the one source.

`release` appends the row as the chapter's last markdown cell, so no solution file restates it and
a change to READING.md reaches every chapter at the next `make release` (a gate fails until then).
A course without docs/READING.md (the pilot) gets no such cell; a course with one must have a row
for every chapter, or the release stops and says which row to add.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nbformat.v4 import new_markdown_cell

from autograder.course import AutograderError, Course

# | 06 · Limits | what to read | 10 |
ROW = re.compile(r"^\|\s*(?P<number>\d\d) · (?P<title>[^|]+?)\s*\|\s*(?P<read>[^|]+?)\s*\|\s*(?P<minutes>\d+)\s*\|\s*$",
                 re.M)
# (developers.openai.com/api/docs/guides/function-calling) or (genai.owasp.org): a whole address, no "…"
ADDRESS = re.compile(r"\((?P<address>[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[^\s,()…]*)?)\)")
HEADING = "## Further reading"


@dataclass(frozen=True)
class Reading:
    """One row of READING.md: the chapter it follows, what to read, and the minutes it takes."""

    number: str
    title: str
    read: str
    minutes: int


def path(course: Course) -> Path:
    return course.root / "docs" / "READING.md"


def rows(text: str, where: str = "READING.md") -> dict[str, Reading]:
    """The rows of READING.md by chapter number ("06"); a number listed twice is an error."""
    found: dict[str, Reading] = {}
    for m in ROW.finditer(text):
        if m["number"] in found:
            raise AutograderError(f"{where} lists chapter {m['number']} twice: keep one row per chapter")
        found[m["number"]] = Reading(m["number"], m["title"], m["read"], int(m["minutes"]))
    return found


def links(text: str) -> str:
    """Whole addresses made links; one cut with "…" stays text."""
    return ADDRESS.sub(lambda m: f"([{m['address']}](https://{m['address']}))", text)


def source(reading: Reading) -> str:
    """The markdown of the last cell: the row's text, its whole addresses made links. A translated
    edition translates the whole cell as a block of its own, like any other markdown cell
    (autograder/i18n/i18n.py `english_cells`): a changed row is a stale block."""
    return (HEADING + "\n\n"
            + f"After {reading.number} · {reading.title}, about {reading.minutes} minutes: {links(reading.read)}\n\n"
            + "*From `docs/READING.md` in the course repository, the reading list of every chapter. "
              "Names in italics are page titles to search for on the provider's site when an "
              "address has moved; `docs/SOURCES.md` gives every fact the chapters state with its "
              "source and the date it was checked.*")


def cell_for(course: Course, chapter: str):
    """The chapter's reading cell, or None when the course has no READING.md."""
    file = path(course)
    if not file.is_file():
        return None
    reading = rows(file.read_text(encoding="utf-8"), str(file)).get(chapter[:2])
    if reading is None:
        raise AutograderError(f"{file} has no reading for {chapter}: add a row "
                              f"'| {chapter[:2]} · <title> | <what to read, with addresses> | <minutes> |'")
    return new_markdown_cell(source(reading))


def append(course: Course, chapter: str, nb) -> None:
    """End the released notebook `nb` with the chapter's reading cell (if the course has READING.md)."""
    cell = cell_for(course, chapter)
    if cell is not None:
        nb.cells.append(cell)
