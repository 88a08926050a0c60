"""The translated editions in chapters/<lang>/ (issue 50): each is what `make release` makes from
the English release and today's translation, only a chapter whose translation is complete and
current is released, and every code cell is the English notebook's byte for byte (source,
metadata, nbgrader checksum, id), so a translated notebook is graded exactly as its English twin:
the same assignment, the same grade ids, the same tests, in one gate run
(autograder/i18n/i18n_release.py)."""

from __future__ import annotations

import filecmp
import json
import shutil

import pytest

from autograder import notebooks
from autograder.course import Course
from autograder.i18n import i18n, i18n_release
from autograder.release import reading
from workbook.i18n import META, languages

COURSE = Course()
PAIRS = [(lang, chapter) for lang in languages() for chapter in COURSE.chapters()]
IDS = [f"{lang}-{chapter}" for lang, chapter in PAIRS]


@pytest.mark.parametrize(("lang", "chapter"), PAIRS, ids=IDS)
def test_the_edition_is_what_release_makes(lang, chapter):
    folder = COURSE.release / lang / chapter
    report = i18n.check(COURSE, lang, chapter)
    if not report.complete:
        assert not folder.exists(), (f"chapters/{lang}/{chapter} is released but its translation is not complete "
                                     f"and current ({'; '.join(report.problems())}): `make release "
                                     f"CHAPTER={chapter}` removes it; never an old translation")
        return
    assert folder.is_dir(), f"{chapter} is translated in {lang}: run `make release CHAPTER={chapter}` and commit chapters/{lang}/{chapter}"
    english = notebooks.read(COURSE.released(chapter))
    made = notebooks.dumps(i18n_release.edition(COURSE, chapter, lang, english))
    assert (folder / f"{chapter}.ipynb").read_text(encoding="utf-8") == made, (
        f"chapters/{lang}/{chapter} is out of date: run `make release CHAPTER={chapter}` and commit it")
    others = sorted(p.relative_to(COURSE.release / chapter) for p in (COURSE.release / chapter).rglob("*")
                    if p.is_file() and p.name != f"{chapter}.ipynb" and ".ipynb_checkpoints" not in p.parts)
    mine = sorted(p.relative_to(folder) for p in folder.rglob("*")
                  if p.is_file() and p.name != f"{chapter}.ipynb" and ".ipynb_checkpoints" not in p.parts)
    assert mine == others and all(filecmp.cmp(COURSE.release / chapter / p, folder / p, shallow=False) for p in mine)


RELEASED = [(lang, chapter) for lang, chapters in i18n_release.released(COURSE).items() for chapter in chapters]


@pytest.mark.parametrize(("lang", "chapter"), RELEASED, ids=[f"{lang}-{c}" for lang, c in RELEASED])
def test_a_translated_notebook_is_graded_as_its_english_twin(lang, chapter):
    """The cheap gate that lets one gate run grade both editions: the grader reads code cells only
    (answers, tests, their ids and checksums); markdown carries no nbgrader metadata."""
    english = json.loads(COURSE.released(chapter).read_text(encoding="utf-8"))
    translated = json.loads((COURSE.release / lang / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    assert len(translated["cells"]) == len(english["cells"])
    for en, tr in zip(english["cells"], translated["cells"], strict=True):
        assert (tr["cell_type"], tr["id"]) == (en["cell_type"], en["id"])
        if en["cell_type"] == "code":
            assert tr == en, f"{lang}/{chapter}: code cell {en['id']} differs from the English one"
        else:
            assert tr["metadata"] == en["metadata"] and "nbgrader" not in en["metadata"]
    assert translated["metadata"] == {**english["metadata"], META: {**english["metadata"][META], "language": lang}}


def _course_of(tmp_path, chapter: str) -> Course:
    """A course of one chapter, its English and Russian releases, translation and reading list."""
    shutil.copytree(COURSE.source / chapter, tmp_path / "solutions" / chapter)
    shutil.copytree(COURSE.release / chapter, tmp_path / "chapters" / chapter)
    shutil.copytree(COURSE.release / "ru" / chapter, tmp_path / "chapters" / "ru" / chapter)
    (tmp_path / "i18n" / "ru" / "quizzes").mkdir(parents=True)
    shutil.copy(i18n.text_path(COURSE, "ru", chapter), tmp_path / "i18n" / "ru")
    shutil.copy(i18n.quiz_path(COURSE, "ru", chapter), tmp_path / "i18n" / "ru" / "quizzes")
    (tmp_path / "docs").mkdir()
    shutil.copy(reading.path(COURSE), tmp_path / "docs")
    return Course(root=tmp_path)


def test_a_chapter_whose_translation_went_stale_is_removed_by_release(tmp_path):
    """The release of a chapter whose English changed removes its edition and says which piece is
    stale; it never leaves the old translation in chapters/<lang>/."""
    chapter = "00_start_here"
    course = _course_of(tmp_path, chapter)
    path = course.solution_ipynb(chapter)
    nb = notebooks.read(path)
    next(c for c in nb.cells if c.cell_type == "markdown").source += " Changed."
    path.write_text(notebooks.dumps(nb), encoding="utf-8")
    lines = i18n_release.release_editions(course, [chapter], tmp_path / "chapters", lambda a, b: [], whole=False)
    assert not (tmp_path / "chapters" / "ru" / chapter).exists()
    said = "\n".join(lines)
    assert f"ru: {chapter} is not released in this language" in said and "has no block" in said
    assert "stale block" in said and "# 00 · С чего начать" in said and f"removed  {tmp_path / 'chapters' / 'ru' / chapter}" in said


def test_the_reading_cell_is_translated_and_goes_stale_with_its_row(tmp_path):
    """The reading list's cell (docs/READING.md's row, appended at release) is a block like any
    other: translated whole, the annotation too, and stale once its row changes."""
    chapter = "02_the_loop"
    course = _course_of(tmp_path, chapter)
    english = notebooks.read(course.released(chapter))
    last = i18n_release.edition(course, chapter, "ru", english).cells[-1].source
    assert last.startswith("## Что почитать") and "тот же цикл в другом формате запросов" in last, last
    assert "the same loop" not in last and "Агентный цикл" in last
    row = reading.path(course)
    row.write_text(row.read_text(encoding="utf-8").replace("note that every", "see that every"), encoding="utf-8")
    drift = i18n.check(course, "ru", chapter).drift()
    assert len(drift) == 1 and drift[0].startswith(f'{chapter}: English cell "## Further reading"'), drift
    assert '"## Что почитать"), translates an older text' in drift[0], drift
