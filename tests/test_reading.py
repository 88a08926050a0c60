"""Every released chapter ends with its reading list, from docs/READING.md alone (issue 45 item 4).

`release` appends the chapter's row of READING.md as the last markdown cell (autograder/release/reading.py);
these tests fail when a chapter was released before READING.md changed, when READING.md lacks a
chapter, when a solution restates the list by hand, or when learner-facing text says "seed" for
anything but chapter 20's random seeds.
"""

import json
import re

import pytest
from nbformat.v4 import new_notebook

from autograder import notebooks
from autograder.course import AutograderError, Course
from autograder.release import reading

COURSE = Course()
CHAPTERS = COURSE.chapters()
ROWS = reading.rows(reading.path(COURSE).read_text(encoding="utf-8"))


def test_reading_md_has_one_row_per_chapter():
    numbers = [c[:2] for c in CHAPTERS]
    missing = [c for c in CHAPTERS if c[:2] not in ROWS]
    assert not missing, f"docs/READING.md has no row for {missing}: add '| NN · Title | what to read | minutes |'"
    extra = sorted(set(ROWS) - set(numbers))
    assert not extra, f"docs/READING.md has rows for chapters the course does not have: {extra}"
    for chapter in CHAPTERS:
        row = ROWS[chapter[:2]]
        assert row.minutes > 0 and len(row.read) > 10, f"{chapter}: an empty reading row {row}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_released_chapter_ends_with_its_reading(chapter):
    nb = notebooks.read(COURSE.released(chapter))
    last = nb.cells[-1]
    expected = reading.source(ROWS[chapter[:2]])
    assert last.cell_type == "markdown" and last.source == expected, (
        f"chapters/{chapter} does not end with its row of docs/READING.md; run `make release CHAPTER={chapter}`")
    assert sum(c.source.startswith(reading.HEADING) for c in nb.cells) == 1, "one reading cell, the last"


def test_no_solution_restates_the_reading_list():
    restated = [c for c in CHAPTERS if reading.HEADING in COURSE.solution_py(c).read_text(encoding="utf-8")]
    assert not restated, f"the reading list comes from docs/READING.md at release; remove it from {restated}"


def test_whole_addresses_become_links_and_cut_ones_stay_text():
    row = reading.Reading("05", "Errors", "A (platform.claude.com/docs/x-y), B (docs.deepseek.com/a, …/b)", 10)
    text = reading.source(row)
    assert "([platform.claude.com/docs/x-y](https://platform.claude.com/docs/x-y))" in text
    assert "(docs.deepseek.com/a, …/b)" in text, "an address with … is not a whole address: left as text"
    assert text.startswith(reading.HEADING + "\n\nAfter 05 · Errors, about 10 minutes: A ")


def test_a_missing_or_repeated_row_stops_the_release(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "READING.md").write_text("| 01 · One | read this | 5 |\n", encoding="utf-8")
    course = Course(root=tmp_path)
    nb = new_notebook()
    reading.append(course, "01_one", nb)
    assert [c.cell_type for c in nb.cells] == ["markdown"] and "read this" in nb.cells[0].source
    with pytest.raises(AutograderError, match=r"no reading for 02_two: add a row '\| 02 · "):
        reading.append(course, "02_two", nb)
    with pytest.raises(AutograderError, match="chapter 01 twice"):
        reading.rows("| 01 · One | a | 5 |\n| 01 · Uno | b | 6 |\n")
    no_docs = Course(root=tmp_path / "elsewhere")
    reading.append(no_docs, "01_one", nb)
    assert len(nb.cells) == 1, "a course without docs/READING.md (the pilot) gets no reading cell"


def _markdown(chapter):
    return "\n".join(c.source for c in notebooks.read(COURSE.released(chapter)).cells if c.cell_type == "markdown")


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if not c.startswith("20_")])
def test_learner_text_says_no_seed(chapter):
    """Chapter 20 is about the fake's random seeds; elsewhere a learner meets the word only as a
    random or hash seed ("a seeded generator"), never as a name for texts they do not have."""
    quiz = COURSE.root / "workbook" / "quizzes" / f"{chapter}.json"
    text = _markdown(chapter) + (json.dumps(json.loads(quiz.read_text(encoding="utf-8"))) if quiz.is_file() else "")
    found = [m.group(0) for m in re.finditer(r".{0,40}(?<!hash )(?<!random )\bseeds?\b.{0,40}", text, re.I)]
    assert not found, f"{chapter}: say what is meant, not 'seed': {found}"
