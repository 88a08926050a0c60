"""`check` on a path that is no notebook says what is wrong and which chapter notebook was meant
(issue 45): a chapter's folder, its name or number, a name a few letters off."""

from __future__ import annotations

import pytest

from autograder.__main__ import main_with_errors
from autograder.course import AutograderError
from autograder.pipeline.check import check, suggest

CHAPTERS = ("00_start_here", "01_one_step", "03_openai_format")


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course folder with three chapter notebooks (empty files: `suggest` only reads names)."""
    for name in CHAPTERS:
        (tmp_path / "chapters" / name).mkdir(parents=True)
        (tmp_path / "chapters" / name / f"{name}.ipynb").write_text("{}")
    (tmp_path / "chapters" / "README.md").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("typed, meant", [
    ("chapters/01_one_step", "01_one_step"),  # the folder
    ("chapters/01_one_step.ipynb", "01_one_step"),  # the folder left out
    ("01_one_step.ipynb", "01_one_step"),
    ("01_one_stp.ipynb", "01_one_step"),  # a typo
    ("chapters/3", "03_openai_format"),  # a number
    ("chapter3.ipynb", "03_openai_format"),
    ("chapters/01", "01_one_step"),
    ("openai_format", "03_openai_format"),
])
def test_suggest_names_the_chapter_notebook_meant(course, typed, meant):
    assert suggest(course / typed, course / "chapters") == f"chapters/{meant}/{meant}.ipynb"


@pytest.mark.parametrize("typed", ["no/such.ipynb", "chapters/7", "zzz"])
def test_suggest_guesses_nothing_far_off(course, typed):
    assert suggest(course / typed, course / "chapters") is None


def test_a_path_outside_the_current_folder_is_given_whole(course, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    meant = suggest(course / "chapters" / "01_one_step", course / "chapters")
    assert meant == str(course / "chapters" / "01_one_step" / "01_one_step.ipynb")


@pytest.mark.parametrize("typed, said", [
    ("chapters/01_one_step", "chapters/01_one_step is a folder, not a notebook; "
                             "did you mean chapters/01_one_step/01_one_step.ipynb?"),
    ("chapters/01_one_step.ipynb", "no such notebook: chapters/01_one_step.ipynb; "
                                   "did you mean chapters/01_one_step/01_one_step.ipynb?"),
    ("chapters/README.md", "chapters/README.md is not a notebook (.ipynb); "
                           "give a chapter's notebook (chapters/NN_name/NN_name.ipynb)"),
    ("no/such.ipynb", "no such notebook: no/such.ipynb; "
                      "give a chapter's notebook (chapters/NN_name/NN_name.ipynb)"),
])
def test_check_says_what_is_wrong_and_what_was_meant(course, typed, said):
    with pytest.raises(AutograderError) as raised:
        check(typed, chapters=course / "chapters")
    assert str(raised.value) == said


def test_the_cli_exits_2_with_the_suggestion_from_the_courses_chapters(capsys):
    """The repository's own chapters: `python -m autograder check` passes them to `check`."""
    assert main_with_errors(["check", "chapters/01_one_step"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "did you mean " in err and "01_one_step/01_one_step.ipynb?" in err
