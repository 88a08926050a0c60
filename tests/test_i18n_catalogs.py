"""The languages' catalogs and how complete each language is (issue 50; docs/TRANSLATING.md).

Always: every catalog is a JSON object of English template -> translation whose placeholders are
the English ones, and a language's lab CSS keeps the English rules. The coverage report lists, per
language, the chapters and messages not translated yet; it fails only for the chapters a language
requires (`"required"` in i18n/<lang>/language.json: a list, or "all" once every chapter is done:
that one switch turns the report into a gate)."""

from __future__ import annotations

import json
import re
import shutil
import warnings

import nbformat
import pytest

from autograder.course import Course
from autograder.i18n import i18n, i18n_messages, i18n_status
from autograder.i18n.i18n_messages import HIDDEN_MARK, LIBRARY
from hub.student_course import SKIPPED
from workbook.i18n import I18N, languages

COURSE = Course()
LANGS = languages()
ENGLISH_CSS = COURSE.root / "lab" / "student" / "custom" / "custom.css"


class TranslationMissing(UserWarning):
    """What a language lacks outside its required chapters: reported, not failing."""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["messages.json", "hidden.json", "ui.json"])
def test_a_catalog_keeps_every_value_of_its_english(lang, name):
    path = I18N / lang / name
    if not path.is_file():
        pytest.skip(f"{lang} has no {name} yet")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()), (
        f"{path}: a JSON object of English template -> translation")
    problems = i18n_messages.placeholder_problems(data)
    assert not problems, f"{path}: placeholders differ from the English template's:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_required_chapters_are_complete_and_the_rest_is_reported(lang):
    cov = i18n_status.coverage(COURSE, lang)
    failures = cov.failures()
    assert not failures, f"{lang} requires {cov.required} (i18n/{lang}/language.json):\n" + "\n".join(failures)
    todo = [c for c, r in cov.reports.items() if not r.complete]
    words = sum(len(cov.messages[c]) for c in cov.messages)
    if todo or words:
        warnings.warn(TranslationMissing(
            f"{lang}: {len(cov.reports) - len(todo)} of {len(cov.reports)} chapters translated; not yet: "
            f"{', '.join(todo) or 'none'}; {words} message template(s) untranslated "
            f"(python -m autograder i18n status --lang {lang})"), stacklevel=1)


@pytest.mark.parametrize("lang", LANGS)
def test_a_catalog_translates_templates_that_exist(lang):
    """A template nobody says any more is reported (it translates nothing; drop it)."""
    visible = set(i18n_status.templates(COURSE, i18n_status.LIBRARY)) | {
        t for c in COURSE.chapters() for t in i18n_status.templates(COURSE, c, False)}
    hidden = {t for c in COURSE.chapters() for t in i18n_status.templates(COURSE, c, True)}
    unused = sorted(set(i18n_status.catalog(COURSE, lang, "messages.json")) - visible)
    unused += sorted(set(i18n_status.catalog(COURSE, lang, "hidden.json")) - hidden)
    unused += sorted(set(i18n_status.catalog(COURSE, lang, "ui.json")) - set(i18n_messages.ui_templates()))
    if unused:
        warnings.warn(TranslationMissing(f"{lang}: {len(unused)} catalog entr(ies) no code says any more, "
                                         f"e.g. {unused[0]!r}"), stacklevel=1)


def test_what_only_hidden_tests_say_is_kept_apart():
    """messages.json reaches the students' copy on a hub; a hidden test's messages would tell a
    student what the hidden tests try, so they go in hidden.json, which the copy skips."""
    hidden = i18n_messages.chapter_templates(COURSE, "00_start_here", hidden=True)
    visible = i18n_messages.chapter_templates(COURSE, "00_start_here", hidden=False)
    assert "the weather model asks for 'get_weather'; wanted_tool returned {got!r}" in hidden
    assert "call the model exactly once; it was called {model.calls} times" in visible, "said by both: visible"
    assert not set(hidden) & set(visible) and "hidden.json" in SKIPPED
    for lang in LANGS:
        leaked = set(i18n_status.catalog(COURSE, lang, "messages.json")) & {
            t for c in COURSE.chapters() for t in i18n_status.hidden_only(COURSE, c)}
        assert not leaked, f"{lang}: hidden tests' messages in messages.json (move them to hidden.json): {sorted(leaked)[:3]}"


def _chapter(root, name: str, visible: str, hidden: str) -> None:
    """A source notebook with one visible and one hidden test cell."""
    def test(source: str, grade_id: str):
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {
            "grade": True, "grade_id": grade_id, "locked": True, "points": 1, "solution": False}})
    nb = nbformat.v4.new_notebook(cells=[test(visible, "a"), test(f"{HIDDEN_MARK}\n{hidden}\n### END HIDDEN TESTS", "b")])
    (root / "solutions" / name).mkdir(parents=True)
    nbformat.write(nb, root / "solutions" / name / f"{name}.ipynb")


def test_a_template_a_visible_test_says_goes_in_messages_json_whoever_else_hides_it(tmp_path):
    """Chapter 01's visible test and chapter 02's hidden test say the same words: a student reads
    them in 01, so they are translated in messages.json (which a student's copy carries), 02's
    hidden.json needs only what no visible test says, and the leak gate does not count them."""
    for name in LIBRARY:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(COURSE.root / name, tmp_path / name)
    _chapter(tmp_path, "01_a", 'assert x, f"shared words {x}"', "pass")
    _chapter(tmp_path, "02_b", "pass", 'assert x, f"shared words {x}"\nassert y, "secret words"')
    (tmp_path / "i18n" / "xx").mkdir(parents=True)
    (tmp_path / "i18n" / "xx" / "messages.json").write_text('{"shared words {x}": "общие слова {x}"}', encoding="utf-8")
    (tmp_path / "i18n" / "xx" / "hidden.json").write_text('{"secret words": "тайные слова"}', encoding="utf-8")
    course = Course(root=tmp_path)
    assert i18n_status.templates(course, "02_b", True) == ["shared words {x}", "secret words"], "the chapter's own view"
    assert i18n_status.untranslated(course, "xx", "02_b", hidden=True) == [], "said visibly in 01: messages.json's"
    assert i18n_status.untranslated(course, "xx", "01_a") == []
    assert i18n_status.hidden_only(course, "02_b") == ["secret words"], "what the leak gate keeps out of messages.json"


def _selectors(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return sorted(s.strip() for s in re.findall(r"([^{}]+)\{", css))


@pytest.mark.parametrize("lang", LANGS)
def test_a_languages_lab_css_keeps_the_english_rules(lang):
    path = I18N / lang / "lab" / "custom.css"
    if not path.is_file():
        pytest.skip(f"{lang} has no lab CSS (Validate's words stay English)")
    mine, english = _selectors(path.read_text(encoding="utf-8")), _selectors(ENGLISH_CSS.read_text(encoding="utf-8"))
    assert set(english) <= set(mine), f"{path} lacks rules of {ENGLISH_CSS}: {sorted(set(english) - set(mine))}"


def test_a_language_settings_file_names_chapters_that_exist(tmp_path):
    (tmp_path / "solutions" / "00_x").mkdir(parents=True)
    (tmp_path / "solutions" / "00_x" / "00_x.py").write_text("", encoding="utf-8")
    (tmp_path / "i18n" / "xx").mkdir(parents=True)
    course = Course(root=tmp_path)
    assert i18n.required(course, "xx") == []
    (tmp_path / "i18n" / "xx" / "language.json").write_text('{"required": "all"}', encoding="utf-8")
    assert i18n.required(course, "xx") == ["00_x"]
    (tmp_path / "i18n" / "xx" / "language.json").write_text('{"required": ["01_gone"]}', encoding="utf-8")
    with pytest.raises(Exception, match="no chapter 01_gone"):
        i18n.required(course, "xx")


def test_templates_are_read_from_test_cells_by_ast():
    cell = '''
got = f(1)
assert got == 2, f"f(1) should be 2; got {got!r} ({type(got).__name__})"
assert ok, "plain {braces} stay" + f" and {x}"
wb.checks.equal(a, b, "what it is", hint=f"hint {n}")
with wb.checks.raises(ValueError, match="no", what="f('abc')"):
    pass
print("f: visible tests passed")
raise AssertionError("a raise" if c else "or another")
assert x, msg
'''
    assert sorted(i18n_messages.shown_in(cell)) == sorted([
        "f(1) should be 2; got {got!r} ({type(got).__name__})", "plain {{braces}} stay and {x}",
        "a raise", "or another", "what it is", "hint {n}", "f('abc')", "f: visible tests passed"])
    assert i18n_messages.shown_in("assert x, f'{a}: {b}'\nprint(f'{x}')") == [], "no word of its own: matches anything"
