"""Tests for workbook.progress and `python -m workbook progress`: read from notebooks on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import nbformat
import pytest

from workbook import progress, quiz, saved_answers
from workbook.__main__ import main
from workbook.paths import ROOT


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    where = tmp_path / "progress.json"
    monkeypatch.setenv("WORKBOOK_PROGRESS", str(where))
    return where


def cell(grade_id, *, solution=False, source="pass", outputs=(), count=None):
    c = nbformat.v4.new_code_cell(source)
    c.metadata["nbgrader"] = {"grade": not solution, "solution": solution, "grade_id": grade_id,
                              "locked": not solution, "schema_version": 3}
    c.outputs, c.execution_count = list(outputs), count
    return c


ERROR = nbformat.v4.new_output("error", ename="AssertionError", evalue="no", traceback=[])
NOT_DONE = nbformat.v4.new_output("error", ename="NotImplementedError", evalue="", traceback=[])


def chapter(folder, name, cells):
    nb = nbformat.v4.new_notebook(cells=cells)
    (folder / name).mkdir(parents=True)
    nbformat.write(nb, folder / name / f"{name}.ipynb")


def answer_right(chapter_id):
    for q in quiz.load(chapter_id):
        saved_answers.save(chapter_id, q.text, [a.text for a in q.answers if a.correct])


def test_states_come_from_saved_outputs(tmp_path):
    chapter(tmp_path, "01_one_step", [
        cell("a", solution=True, source="def a():\n    return 1"),
        cell("a_tests", count=3),                                   # ran, no error: passed
        cell("a_hidden_tests", count=4),                            # hidden: not listed
        cell("b", solution=True, source="def b():\n    raise NotImplementedError()"),
        cell("b_tests"),                                            # stub, never run
        cell("c_tests", outputs=[ERROR], count=5),                  # failed
        cell("d_tests", outputs=[NOT_DONE], count=6),               # the stub raised
        cell("e_tests"),                                            # answered, not run
    ])
    (row,) = progress.rows(tmp_path)
    assert [(t.grade_id, t.state) for t in row.tests] == [
        ("a_tests", "passed"), ("b_tests", "not answered"), ("c_tests", "failed"),
        ("d_tests", "not answered"), ("e_tests", "not run")]
    assert row.passed == 1 and row.next == "answer b (its test: b_tests)"
    assert (row.quiz_right, row.quiz_total) == (0, len(quiz.load("01_one_step")))


def test_next_goes_from_failing_tests_to_unrun_ones_to_the_quiz_to_done(tmp_path):
    chapter(tmp_path, "00_start_here", [cell("a_tests", outputs=[ERROR], count=1)])
    chapter(tmp_path, "01_one_step", [cell("a_tests"), cell("b_tests"), cell("c_tests")])
    chapter(tmp_path, "02_the_loop", [cell("a_tests", count=1)])
    chapter(tmp_path, "99_no_quiz", [cell("a_tests", count=1)])
    answer_right("02_the_loop")
    nexts = {r.chapter: r.next for r in progress.rows(tmp_path)}
    assert nexts["00_start_here"] == "fix a (its test: a_tests)"
    assert nexts["01_one_step"] == "run a_tests and 2 more, then save the notebook"
    assert nexts["02_the_loop"] == progress.DONE
    assert nexts["99_no_quiz"] == progress.DONE
    table = progress.rows(tmp_path)
    assert progress.next_step(table) == "Next: 00_start_here: fix a (its test: a_tests)."
    assert progress.next_step(table[2:]).startswith("Every chapter is done")


def test_a_quiz_half_right_names_what_is_left(tmp_path):
    chapter(tmp_path, "01_one_step", [cell("a_tests", count=1)])
    q0, q1, *rest = quiz.load("01_one_step")
    saved_answers.save("01_one_step", q0.text, [a.text for a in q0.answers if a.correct])
    saved_answers.save("01_one_step", q1.text, [a.text for a in q1.answers if not a.correct][:1])
    (row,) = progress.rows(tmp_path)
    assert (row.quiz_right, row.quiz_total) == (1, 2 + len(rest))
    assert row.next == f"answer the quiz ({1 + len(rest)} question(s) left)"


def test_unreadable_notebooks_and_missing_folders_say_so(tmp_path):
    (tmp_path / "03_openai_format").mkdir()
    (tmp_path / "04_parallel_calls").mkdir()
    (tmp_path / "04_parallel_calls" / "04_parallel_calls.ipynb").write_text("{", encoding="utf-8")
    (tmp_path / "notes").mkdir()  # not a chapter folder
    table = progress.rows(tmp_path)
    assert [r.chapter for r in table] == ["03_openai_format", "04_parallel_calls"]
    assert table[0].next == "cannot read 03_openai_format.ipynb (FileNotFoundError)"
    assert table[1].next == "cannot read 04_parallel_calls.ipynb (JSONDecodeError)"
    with pytest.raises(ValueError, match="no chapters folder at"):
        progress.rows(tmp_path / "nowhere")


def test_text_and_html_tables(tmp_path):
    chapter(tmp_path, "01_one_step", [cell("x<b>_tests", outputs=[ERROR], count=1)])
    table = progress.rows(tmp_path)
    text = progress.text(table)
    head, rule, row, _, nxt, source = text.splitlines()
    assert head.split() == ["chapter", "visible", "tests", "passed", "quiz", "right", "next"]
    assert row.split()[:3] == ["01_one_step", "0/1", f"0/{len(quiz.load('01_one_step'))}"]
    assert nxt.startswith("Next: 01_one_step: fix x<b>") and str(saved_answers.path()) in source
    page = progress.as_html(table)
    assert "x&lt;b&gt;" in page and "<b>_tests" not in page


def test_released_chapters_read_as_not_answered_yet():
    """The repository's own chapters/ (untouched, released): every test waits for an answer."""
    table = progress.rows()
    assert [r.chapter for r in table] == sorted(p.name for p in (ROOT / "chapters").iterdir()
                                                if p.is_dir() and p.name[:2].isdigit())  # not chapters/ru/
    assert all(r.tests and {t.state for t in r.tests} == {"not answered"} for r in table)
    assert progress.next_step(table).startswith(f"Next: {table[0].chapter}: answer ")


def test_command_line(tmp_path, capsys):
    chapter(tmp_path, "01_one_step", [cell("a_tests", count=1)])
    assert main(["progress", "--chapters", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "01_one_step" in out and "Next: 01_one_step: answer the quiz" in out
    assert main(["progress", "--chapters", str(tmp_path / "nowhere")]) == 2
    assert "error: no chapters folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])


def test_python_dash_m_workbook_progress_runs(tmp_path):
    shutil.copytree(ROOT / "chapters" / "01_one_step", tmp_path / "01_one_step")
    done = subprocess.run([sys.executable, "-m", "workbook", "progress", "--chapters", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert "Next: 01_one_step: answer parse_reply (its test: parse_reply_tests)." in done.stdout


def test_show_prints_text_outside_a_kernel(tmp_path, capsys):
    chapter(tmp_path, "01_one_step", [cell("a_tests", count=1)])
    progress.show(tmp_path)
    assert capsys.readouterr().out.startswith("chapter ")


def test_saved_answers_file_is_json_with_a_version(progress_file):
    saved_answers.save("01_one_step", "q?", ["a"])
    assert json.loads(progress_file.read_text(encoding="utf-8")) == {
        "version": 1, "quizzes": {"01_one_step": {"q?": ["a"]}}}
