"""The drift gate (issue 50): every translation follows its English today. A chapter with a
translation file has a block for every English markdown cell, under the cell's current hash, and no
block for a cell that is gone; its translated quiz's questions each carry the hash of today's
English question. When an English cell changes, the gate fails naming the chapter, the English
cell's first line and the stale block (docs/TRANSLATING.md, "When the English changes").
How much is translated at all is the coverage report's business (tests/test_i18n_catalogs.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from autograder import notebooks
from autograder.course import Course
from autograder.i18n import i18n
from autograder.release import reading
from workbook.i18n import languages, question_digest

COURSE = Course()
STARTED = [(lang, chapter) for lang in languages() for chapter in COURSE.chapters()
           if i18n.text_path(COURSE, lang, chapter).is_file() or i18n.quiz_path(COURSE, lang, chapter).is_file()]
WORKED = "00_start_here"  # the worked example, translated whole


@pytest.mark.parametrize(("lang", "chapter"), STARTED, ids=[f"{lang}-{c}" for lang, c in STARTED])
def test_every_translation_follows_its_english(lang, chapter):
    drift = i18n.check(COURSE, lang, chapter).drift()
    assert not drift, (f"{lang}: the English of {chapter} changed and its translation did not; update the "
                       "blocks named (python -m autograder i18n skeleton ... prints today's hashes; "
                       "docs/TRANSLATING.md):\n" + "\n".join(drift))


@pytest.fixture
def copy(tmp_path):
    """A course in tmp_path with the worked example's source, its Russian text and quiz, and the
    reading list (the release ends the chapter with its row, which the text translates too)."""
    shutil.copytree(COURSE.source / WORKED, tmp_path / "solutions" / WORKED)
    (tmp_path / "docs").mkdir()
    shutil.copy(reading.path(COURSE), tmp_path / "docs")
    (tmp_path / "i18n" / "ru" / "quizzes").mkdir(parents=True)
    shutil.copy(i18n.text_path(COURSE, "ru", WORKED), tmp_path / "i18n" / "ru")
    shutil.copy(i18n.quiz_path(COURSE, "ru", WORKED), tmp_path / "i18n" / "ru" / "quizzes")
    return Course(root=tmp_path)


def test_the_gate_names_a_changed_english_cell_and_its_stale_block(copy):
    assert i18n.check(copy, "ru", WORKED).drift() == [], "the copy starts in step"
    path = copy.solution_ipynb(WORKED)
    nb = notebooks.read(path)
    cell = [c for c in nb.cells if c.cell_type == "markdown"][3]
    old = i18n.digest(cell.source)
    cell.source = cell.source.replace("The model did not answer.", "The model did not answer yet.")
    path.write_text(notebooks.dumps(nb), encoding="utf-8")
    drift = i18n.check(copy, "ru", WORKED).drift()
    assert len(drift) == 1, drift
    said = drift[0]
    assert said.startswith(f"{WORKED}: English cell \"The model did not answer yet.")
    assert f"en={i18n.digest(cell.source)}" in said, "today's hash, to write in the block's header"
    assert "00_start_here.md:" in said and f"en={old}" in said and "Модель не ответила" in said, (
        "the stale block: where it is, its old hash and its first line")
    assert not i18n.check(copy, "ru", WORKED).complete, "a stale chapter is never released"


def test_the_gate_names_a_block_whose_english_cell_is_gone(copy):
    path = i18n.text_path(copy, "ru", WORKED)
    path.write_text(path.read_text(encoding="utf-8") + "\n<!-- i18n cell en=0123456789ab -->\nЛишний блок.\n",
                    encoding="utf-8")
    drift = i18n.check(copy, "ru", WORKED).drift()
    assert len(drift) == 1 and "stale block" in drift[0] and "en=0123456789ab" in drift[0] and "Лишний блок." in drift[0]


def test_the_gate_names_a_stale_quiz_question(copy):
    path = i18n.quiz_path(copy, "ru", WORKED)
    quiz = json.loads(path.read_text(encoding="utf-8"))
    quiz[2]["en"] = "000000000000"  # as if English question 3 had changed since
    path.write_text(json.dumps(quiz, ensure_ascii=False), encoding="utf-8")
    drift = i18n.check(copy, "ru", WORKED).drift()
    english = i18n.english_quiz(WORKED)[2]
    assert len(drift) == 1 and "question 3" in drift[0] and english["question"][:40] in drift[0]
    assert question_digest(english) in drift[0], "the hash to write"


def test_a_quiz_that_changed_its_right_answers_is_refused(copy):
    path = i18n.quiz_path(copy, "ru", WORKED)
    quiz = json.loads(path.read_text(encoding="utf-8"))
    quiz[0]["answers"][0]["correct"], quiz[0]["answers"][1]["correct"] = True, False
    path.write_text(json.dumps(quiz, ensure_ascii=False), encoding="utf-8")
    assert any("right answers" in p for p in i18n.check(copy, "ru", WORKED).drift())


@pytest.mark.parametrize(("text", "said"), [
    ("Перед первым заголовком текст.\n<!-- i18n cell en=0123456789ab -->\nx\n", "text before the first"),
    ("<!-- i18n cell en=012345 -->\nx\n", "a header is"),
])
def test_a_file_that_is_not_the_format_says_the_line(tmp_path, text, said):
    path = tmp_path / "x.md"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match=said) as caught:
        i18n.read_blocks(path)
    assert "x.md:1" in str(caught.value)


def test_blocks_keep_their_text_and_drop_notes_and_blank_edges(tmp_path):
    path = tmp_path / "x.md"
    path.write_text("<!-- a comment first is fine -->\n<!-- i18n cell en=0123456789ab -->\n"
                    "<!-- i18n note: for the reviewer -->\n\n# Заголовок\n\nТекст.\n\n\n"
                    "<!-- i18n cell en=ba9876543210 -->\nВторой.", encoding="utf-8")
    blocks = i18n.read_blocks(path)
    assert [(b.en, b.text, b.line) for b in blocks] == [("0123456789ab", "# Заголовок\n\nТекст.", 2),
                                                        ("ba9876543210", "Второй.", 10)]
