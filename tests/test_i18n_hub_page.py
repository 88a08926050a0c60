"""The page a hub student fetches when their submission has no feedback speaks the language the hub
gives their server (DIR/languages beside the exchange; docs/HUB.md, "Students in another
language"), and the instructor's lines stay English (issue 50)."""

from __future__ import annotations

import os
import shutil

import pytest
from nbgrader.utils import notebook_hash

from autograder.course import REPO, Course
from autograder.pipeline import collected, exchange

CHAPTER = "00_start_here"
STAMP = "2026-12-01 10:00:00.000000 UTC"


@pytest.fixture
def hub(tmp_path):
    """A course of chapter 00 and an exchange with two submissions not graded: one a notebook, one
    broken; the hub's languages file names ann's language and a language the course lacks for bob."""
    (tmp_path / "course" / "solutions" / CHAPTER).mkdir(parents=True)
    for suffix in (".py", ".ipynb"):
        shutil.copyfile(REPO / "solutions" / CHAPTER / f"{CHAPTER}{suffix}",
                        tmp_path / "course" / "solutions" / CHAPTER / f"{CHAPTER}{suffix}")
    (tmp_path / "exchange" / "c" / "outbound" / CHAPTER).mkdir(parents=True)
    good = (REPO / "autograder" / "sample_cohort" / "ada" / CHAPTER / f"{CHAPTER}.ipynb").read_bytes()
    for student, notebook in (("ann", good), ("bob", b"{broken"), ("cy", good)):
        folder = tmp_path / "exchange" / "c" / "inbound" / f"{student}+{CHAPTER}+{STAMP}+x"
        folder.mkdir(parents=True)
        (folder / f"{CHAPTER}.ipynb").write_bytes(notebook)
        (folder / "timestamp.txt").write_text(STAMP)
        (folder / "submission_secret.txt").write_text(f"secret-{student}")
    (tmp_path / collected.LANGUAGES).write_text("# NAME LANG\nann ru\nbob de  # none\ncy\n", encoding="utf-8")
    return Course(root=tmp_path / "course"), tmp_path / "exchange"


def _page(exchange_dir, student: str) -> str:
    return (exchange_dir / "c" / "feedback" / (notebook_hash(secret=f"secret-{student}", notebook_id=CHAPTER)
                                               + ".html")).read_text(encoding="utf-8")


def test_a_students_page_without_feedback_is_in_their_hub_language(hub):
    course, where = hub
    exchange.collect_exchange(course, where, "c", students="ann,bob,cy", who=lambda _: os.getuid())
    lines = exchange.release_feedback(course, where, "c")
    ann = _page(where, "ann")
    assert "00_start_here: по этой работе отзыва нет" in ann and "она ещё не оценена" in ann, ann
    assert f"сданная {STAMP}" in ann and "not graded" not in ann, ann
    for student in ("bob", "cy"):  # a language the course lacks, no language: English
        assert "no feedback for this submission" in _page(where, student), student
    assert "it was not graded: unreadable" in _page(where, "bob")
    assert any(line.startswith("ann") and "(it has not been graded yet;" in line for line in lines), lines


def test_the_language_file_is_read_as_the_hub_reads_it(tmp_path):
    (tmp_path / collected.LANGUAGES).write_text("ann ru\nann en\n ben RU # a comment\ncy ru extra\n", encoding="utf-8")
    said = {s: collected.student_language(tmp_path / "exchange", s) for s in ("ann", "ben", "cy", "dan")}
    assert said == {"ann": "ru", "ben": "ru", "cy": "en", "dan": "en"}, "the first line of a name counts"
    assert collected.student_language(tmp_path / "nowhere" / "exchange", "ann") == "en"
    (tmp_path / collected.LANGUAGES).write_bytes(b"\xff\xfe")
    assert collected.student_language(tmp_path / "exchange", "ann") == "en", "an unreadable file: English"
