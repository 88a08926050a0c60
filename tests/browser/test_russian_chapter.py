"""In a real browser, the Russian edition (issue 50): chapter 00 from chapters/ru/ opens in
JupyterLab with its text in Russian, its code the English edition's; Run All stops at the first
unfinished exercise with the stub's message in Russian (the kernel reads the notebook's language);
the environment check and the quiz speak Russian, and a checked answer explains itself in Russian.
It runs on the session's shared server (a copy of chapters/, so chapters/ru/ is its ru/ folder).
Screenshots: test-artifacts/ru-*.png."""

from __future__ import annotations

from tests.browser.jupyter import ARTIFACTS, marks, open_notebook, run_all
from tests.browser.test_jupyter import STDERR, expect

pytestmark = marks()
CHAPTER = "00_start_here"


def test_the_russian_chapter_and_its_quiz_in_jupyterlab(page, jupyter):
    open_notebook(page, jupyter, f"ru/{CHAPTER}/{CHAPTER}.ipynb")
    expect(page.locator(".jp-Notebook h1").first).to_contain_text("00 · С чего начать")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ru-chapter-top.png"))
    run_all(page)  # stops at the first visible test: first_reply is not answered yet
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    env = cells.filter(has_text="workbook.env_check()")
    expect(env.locator(".jp-OutputArea-output")).to_contain_text("Всё готово.")
    error = page.locator(STDERR)
    expect(error).to_have_count(1)
    expect(error).to_contain_text("NotImplementedError: ответа ещё нет: здесь должен быть ваш ответ на first_reply")
    tested = cells.filter(has_text="Visible tests: first_reply")
    tested.scroll_into_view_if_needed()
    tested.screenshot(path=str(ARTIFACTS / "ru-unfinished-exercise.png"))

    quiz_cell = cells.filter(has_text='show("00_start_here")')
    quiz_cell.scroll_into_view_if_needed()
    quiz_cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Shift+Enter")
    widget = page.locator(".jupyter-widgets.wb-quiz")
    expect(widget).to_contain_text("Тест для самопроверки")
    expect(widget).to_contain_text("Когда оцениваемый тест этого учебника вызывает «модель»")
    first = widget.locator(":scope > .widget-vbox").first
    option = first.locator(".widget-checkbox").nth(1)  # b), the right answer
    option.scroll_into_view_if_needed()
    box = option.locator("label > span").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # where a person clicks: the text
    expect(option.locator("input")).to_be_checked()
    first.get_by_role("button", name="Проверить").click()
    expect(first.locator(".wb-quiz-feedback")).to_contain_text("✓ Верно.")
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(ARTIFACTS / "ru-quiz.png"))
    page.screenshot(path=str(ARTIFACTS / "ru-chapter.png"))
