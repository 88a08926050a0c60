"""What a learner who chose another language reads (issue 50): which language is chosen (the
notebook's metadata, AGENT_LOOP_LANG, the locale; `make lab LANG=ru`), how a message is matched to
its template and translated, the kernel's hooks, and the quiz, progress, env_check, `make check`,
Validate and the feedback page in Russian (workbook/i18n/, autograder/i18n/i18n_feedback.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from urllib.parse import quote

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from traitlets.config import Config

from autograder.i18n import i18n_feedback
from autograder.pipeline import check
from tests.test_feedback_page import graded, page, pilot_course
from workbook import env, progress, quiz, saved_answers, validate
from workbook.i18n import (
    ENGLISH,
    catalog,
    edition,
    known,
    language,
    notebook_language,
    translate,
    translate_error,
)
from workbook.i18n import kernel as hooks
from workbook.i18n.templates import Catalog, parse
from workbook.paths import ROOT

RU = {"metadata": {"workbook": {"language": "ru"}}}


@pytest.mark.parametrize(("nb", "env_", "use_locale", "said"), [
    (RU, {"AGENT_LOOP_LANG": "en", "LANG": "en_US.UTF-8"}, True, "ru"),  # the notebook says it
    ({}, {"AGENT_LOOP_LANG": "ru", "LANG": "en_US.UTF-8"}, True, "ru"),  # the learner's setting
    ({}, {"LANG": "ru_RU.UTF-8"}, True, "ru"),  # the locale
    ({}, {"LC_ALL": "C.UTF-8", "LANG": "ru_RU.UTF-8"}, True, "en"),  # LC_ALL wins, as POSIX says
    ({}, {"LANG": "ru_RU.UTF-8"}, False, "en"),  # a kernel never reads the locale
    ({}, {"LANG": "de_DE.UTF-8"}, True, "en"),  # no German edition
    ({}, {"AGENT_LOOP_LANG": "xx"}, True, "en"),
    ({"metadata": {"workbook": {"language": "ru"}}}, {}, False, "ru"),
])
def test_the_language_is_the_notebooks_then_the_learners_then_the_locales(nb, env_, use_locale, said):
    assert language(nb, env_, use_locale) == said


def test_language_codes_and_locales():
    assert [known(v) for v in ("ru", "RU", "ru_RU.UTF-8", "ru-RU", "C", "C.UTF-8", "POSIX", "en_US", "de", "")] == [
        "ru", "ru", "ru", "ru", "en", "en", "en", "en", None, None]
    assert notebook_language(RU) == "ru" and notebook_language({"metadata": {}}) is None
    assert notebook_language({"metadata": {"workbook": "ru"}}) is None, "a malformed entry says nothing"


def _lab(*args: str, env_: dict | None = None) -> str:
    base = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT)}
    done = subprocess.run(["make", "-n", "--no-print-directory", "lab", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**base, **(env_ or {})})
    return done.stdout


@pytest.mark.parametrize(("args", "env_", "folder"), [
    ((), {"LANG": "en_US.UTF-8"}, "chapters "),
    (("LANG=ru",), {"LANG": "en_US.UTF-8"}, "chapters/ru "),
    (("LANG=ru_RU.UTF-8",), {}, "chapters/ru "),
    ((), {"LANG": "ru_RU.UTF-8"}, "chapters/ru "),
    ((), {"LANG": "C.UTF-8"}, "chapters "),
    (("LANG=ru",), {"LC_ALL": "C.UTF-8"}, "chapters/ru "),  # typed on the command line: it wins
    (("LANG=de",), {}, "chapters "),  # no German edition: English, as before
])
def test_make_lab_opens_the_edition_of_the_chosen_language(args, env_, folder):
    recipe = _lab(*args, env_=env_)
    assert f"--notebook-dir={folder}" in recipe, recipe
    assert ("AGENT_LOOP_LANG=ru" in recipe) == folder.startswith("chapters/ru")
    if args == ("LANG=ru",):
        assert "LANG=C.UTF-8 " in recipe, "a bare code is no locale: the lab runs in C.UTF-8"


def test_plain_make_lab_is_what_it_was():
    assert _lab(env_={"LANG": "en_US.UTF-8"}).splitlines()[-2:] == [
        'JUPYTER_CONFIG_PATH="' + str(ROOT) + '/lab/student${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}" \\',
        ".venv/bin/jupyter lab --notebook-dir=chapters --ip=127.0.0.1 --allow-root --no-browser"]


def test_a_template_matches_its_message_and_keeps_the_values():
    cat = Catalog({"call it once; it was called {model.calls} times": "вызовите один раз; вызовов: {model.calls}",
                   "{what} should be {short(expected)}, got {short(actual)}": "{what}: ожидалось {short(expected)}, получено {short(actual)}",
                   "the reply": "ответ",
                   "send {{'role': 'user'}}; got {x!r} and {x!r}": "отправьте {{'role': 'user'}}; получено {x!r}",
                   "{a}: {b}": "{b}: {a}",  # no word of its own: never used
                   "lost {x}": "потеряно"})  # a translation that drops a value: never used
    assert cat.translate("call it once; it was called 3 times") == "вызовите один раз; вызовов: 3"
    assert cat.translate("the reply should be 'a', got 'b'") == "ответ: ожидалось 'a', получено 'b'", "values translated too"
    assert cat.translate("send {'role': 'user'}; got 1 and 1") == "отправьте {'role': 'user'}; получено 1"
    assert cat.translate("send {'role': 'user'}; got 1 and 2") == "send {'role': 'user'}; got 1 and 2", "same name, same value"
    assert cat.translate("x: y") == "x: y" and cat.translate("lost 1") == "lost 1"
    assert cat.translate("unknown text") == "unknown text"
    assert parse("a {{b}} {c[{1: 2}[1]]}") == [("text", "a {b} "), ("field", "c[{1: 2}[1]]")]


def test_a_value_comparison_is_never_read_as_a_type_check():
    """`equal`'s message "got (3, [1, 2]): item ..." once matched is_type's template ("got {type(value).__name__}
    {short(value, 80)}": any text with a space) and read «ожидался тип»; a type's name is a name, never a repr.
    A hint after " — " is a message of its own: translated alone, never matched inside another's value."""
    said = ("a 400 is not retried: (requests made, sleeps) should be (1, []), got (3, [1, 2]): "
            "item [1] should have 0 items, got 2: [1, 2]")
    got = translate_error("ru", f"AssertionError: {said}")
    assert got.startswith("AssertionError: 400 не повторяется: (сделанные запросы, паузы): ожидалось (1, []), "
                          "получено (3, [1, 2])") and "тип" not in got, got
    hinted = translate("ru", f"{said} — ask is_retryable(error) before you retry: a 400 is raised at once")
    assert hinted.endswith(" — спросите is_retryable(error), прежде чем повторять: 400 бросается сразу"), hinted
    assert "ожидался тип" not in hinted and "бросил" not in hinted, hinted
    assert translate("ru", "the result should be an int, got str '5'") == "результат: ожидался тип int, получено str '5'"


def test_the_kernels_hooks_translate_a_message_and_a_printed_line():
    error = AssertionError("first_reply: visible tests passed")
    hooks.retell(error, "ru")
    assert str(error) == "first_reply: видимые тесты пройдены"
    odd = KeyError("first_reply: visible tests passed")  # str() is the repr: not a plain message
    hooks.retell(odd, "ru")
    assert odd.args == ("first_reply: visible tests passed",)
    assert hooks.lines_in("ru", "one_step: visible tests passed\nmy own line\n") == (
        "one_step: видимые тесты пройдены\nmy own line\n")
    assert hooks.install() is None, "outside a kernel nothing is installed"


def test_the_stub_and_a_helpers_message_read_in_russian():
    assert translate("ru", "not answered yet: your answer to parse_reply goes here") == (
        "ответа ещё нет: здесь должен быть ваш ответ на parse_reply")
    assert translate_error("ru", "AssertionError: call the model exactly once; it was called 2 times") == (
        "AssertionError: вызовите модель ровно один раз; её вызвали 2 раз(а)")
    assert translate(ENGLISH, "call the model exactly once; it was called 2 times").startswith("call")
    assert catalog("xx") == Catalog({}) or not catalog("xx")


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBOOK_PROGRESS", str(tmp_path / "progress.json"))


def test_the_quiz_in_russian_saves_under_the_english_texts(progress_file):
    box = quiz.build("00_start_here", "ru")
    html = box.children[0].value
    assert "Тест для самопроверки" in html and "Проверить" == box.children[2].children[2].description
    question = box.children[2]
    assert "Когда оцениваемый тест" in question.children[0].value
    question.children[1].children[1].value = True  # the right answer, b
    question.children[2].click()
    assert "✓ Верно." in question.children[3].value
    english = quiz.load("00_start_here")[0]
    assert saved_answers.chapter("00_start_here") == {english.text: [english.answers[1].text]}
    assert progress.quiz_score("00_start_here", saved_answers.load()) == (1, len(quiz.load("00_start_here")))


def test_a_stale_quiz_translation_is_never_shown(tmp_path):
    (tmp_path / "ru" / "quizzes").mkdir(parents=True)
    data = json.loads((ROOT / "i18n" / "ru" / "quizzes" / "00_start_here.json").read_text(encoding="utf-8"))
    (tmp_path / "ru" / "quizzes" / "00_start_here.json").write_text(json.dumps(data), encoding="utf-8")
    assert quiz.load_translated("00_start_here", "ru", translations=tmp_path)[0].text.startswith("Когда")
    data[0]["en"] = "000000000000"
    (tmp_path / "ru" / "quizzes" / "00_start_here.json").write_text(json.dumps(data), encoding="utf-8")
    assert quiz.load_translated("00_start_here", "ru", translations=tmp_path) is None


def test_progress_and_env_check_in_russian(tmp_path, progress_file, capsys):
    shutil.copytree(ROOT / "chapters" / "ru" / "00_start_here", tmp_path / "00_start_here")
    table = progress.rows(tmp_path, lang="ru")
    text = progress.text(table)
    assert text.splitlines()[0].split("  ")[0] == "глава" and "Дальше: 00_start_here: решите first_reply" in text
    env.env_check([(True, "Python 3.11", ""), (False, "nbgrader", "nbgrader не установлен")], lang="ru")
    out = capsys.readouterr().out
    assert "✗ nbgrader  — nbgrader не установлен" in out and "Проблем: 1. Запустите `make lab`" in out


def test_make_check_and_validate_speak_the_notebooks_language(tmp_path):
    nb = new_notebook(metadata={"workbook": {"language": "ru"}})
    cell = new_code_cell("assert False", metadata={"nbgrader": {"grade": True, "grade_id": "first_reply_tests",
                                                                "solution": False, "points": 1}})
    cell.outputs = [new_output("error", ename="AssertionError", traceback=[],
                               evalue="call the model exactly once; it was called 2 times")]
    nb.cells = [cell]
    code, lines = check.summarise(tmp_path / "x.ipynb", nb, [])
    assert code == 1 and lines[0].startswith("Проверяю") and lines[-1] == "Тестовых ячеек пройдено: 0 из 1."
    assert "FAIL  first_reply_tests: AssertionError: вызовите модель ровно один раз" in lines[1]
    assert validate.headline(cell, "", "ru") == (
        "first_reply_tests\nAssertionError: вызовите модель ровно один раз; её вызвали 2 раз(а)")


def test_a_feedback_pages_messages_are_translated():
    cell = new_code_cell("")
    cell.outputs = [new_output("error", ename="AssertionError",
                               evalue="two_steps: visible tests passed",
                               traceback=["\x1b[31mAssertionError\x1b[39m: two_steps: visible tests passed"])]
    i18n_feedback.translate_errors(cell, "ru")
    assert cell.outputs[0].evalue == "two_steps: видимые тесты пройдены"
    assert cell.outputs[0].traceback[-1].endswith("two_steps: видимые тесты пройдены")
    assert i18n_feedback.page_words("ru")["Score"] == "Баллы" and i18n_feedback.page_words("en")["Score"] == "Score"


def _text(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def test_switching_a_notebooks_edition_keeps_its_code(tmp_path):
    mine = tmp_path / "01_one_step" / "01_one_step.ipynb"
    mine.parent.mkdir()
    nb = json.loads((ROOT / "chapters" / "01_one_step" / "01_one_step.ipynb").read_text(encoding="utf-8"))
    answer = next(c for c in nb["cells"] if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("solution"))
    answer["source"] = "def parse_reply(reply):\n    return ('final', 'mine')\n"
    mine.write_text(json.dumps(nb), encoding="utf-8")
    said = edition.switch(mine, "ru")
    assert "ваш код не тронут" in said
    ru = json.loads(mine.read_text(encoding="utf-8"))
    assert ru["metadata"]["workbook"] == {"language": "ru"}
    assert [c["source"] for c in ru["cells"] if c["cell_type"] == "code"] == [
        c["source"] for c in nb["cells"] if c["cell_type"] == "code"], "every answer and test as it was"
    assert any("Один шаг" in "".join(c["source"]) for c in ru["cells"] if c["cell_type"] == "markdown")
    edition.switch(mine, "en")
    back = json.loads(mine.read_text(encoding="utf-8"))
    assert [_text(c) for c in back["cells"]] == [_text(c) for c in nb["cells"]], "and back, as it was"
    assert "workbook" not in back["metadata"]
    with pytest.raises(ValueError, match="no edition in 'xx'"):
        edition.switch(mine, "xx")


def test_a_hidden_tests_masked_message_is_translated_masked_alike():
    """After the first hidden test the judge masks the values a message quotes (heard.mask_values):
    the masked message still finds its template, and the translation shows no more than it."""
    cell = new_code_cell("")
    said = "wanted_tool raised KeyError […] on a final answer: a final answer has no […] key, so check whether the key is there first"
    cell.outputs = [new_output("error", ename="AssertionError", evalue=said, traceback=[f"AssertionError: {said}"])]
    i18n_feedback.translate_errors(cell, "ru")
    assert cell.outputs[0].evalue == ("wanted_tool бросила KeyError […] на итоговом ответе: у итогового ответа нет "
                                      "ключа […], поэтому сначала проверьте, есть ли ключ")
    assert "'tool'" not in cell.outputs[0].evalue
    grouped = "wanted_tool[…] raised KeyError […]: a final answer has no […] key; return None for it"  # (a repr) masked whole
    assert i18n_feedback.masked("ru").translate(grouped) == (
        "wanted_tool[…] бросила KeyError […]: у итогового ответа нет ключа […]; для него верните None")


def test_release_edition_cells_are_shown_on_a_feedback_page(tmp_path):
    """After the first hidden test the page shows only what the grader wrote: a translated
    edition's markdown is the grader's (the released chapters/<lang>/ notebook)."""
    released = tmp_path / "chapters" / "ru" / "01_one_step"
    released.mkdir(parents=True)
    nb = new_notebook(cells=[new_markdown_cell("Текст главы.")])
    (released / "01_one_step.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    config.CourseDirectory.release_directory = "chapters"
    resources = {"nbgrader": {"assignment": "01_one_step", "notebook": "01_one_step"}}
    assert i18n_feedback.edition_cells(config, resources, "ru") == {("markdown", "Текст главы.")}
    assert i18n_feedback.edition_cells(config, resources, "en") == set()


def test_a_russian_notebooks_feedback_page_is_in_russian(tmp_path):
    course = pilot_course(tmp_path)
    nb = graded(course)
    nb.metadata["workbook"] = {"language": "ru"}
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add_tests")
    test.outputs = [new_output("error", ename="AssertionError", evalue="call the model exactly once; it was called 2 times",
                               traceback=["AssertionError: call the model exactly once; it was called 2 times"])]
    html = page(course, nb)
    assert "(Баллы: " in html and "add: видимый тест" in html and "add: скрытые тесты" in html
    assert "вызовите модель ровно один раз; её вызвали 2 раз(а)" in html and "call the model exactly" not in html
    anchor = quote("Что-скрыто-после-первого-скрытого-теста")  # nbconvert's id for the note's heading
    assert f'id="{anchor}"' in html and f'<a href="#{anchor}">почему</a>' in html, "the link finds the note"
    assert "Ответ студента" in html and "Оцениваемая ячейка:" in html and "# видимый тест:" in html
