"""In a real browser: every chapter's quiz renders, one widget per chapter, each question in place.

One notebook shows all quizzes, so a new chapter's quiz is covered the day its JSON lands. Its cells
run one at a time, each once the quiz before it is drawn, as a learner runs a chapter: 24 cells
queued at once by Run All on a busy machine sometimes left one widget undrawn and its cell [*] for
good (the kernel idle, no error in the page's console), in one cell or in 24.
Screenshots go to test-artifacts/quiz-<chapter>.png.
"""

from __future__ import annotations

import nbformat

from tests.browser.jupyter import ARTIFACTS, every_cell_drawn, marks, open_notebook
from workbook import quiz

pytestmark = marks()
NOTEBOOK = "every_quiz.ipynb"
def test_every_chapters_quiz_renders_in_jupyterlab(page, jupyter):
    chapters = quiz.chapters()
    assert len(chapters) >= 12, chapters
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"from workbook import quiz\nquiz.show({c!r})") for c in chapters])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, jupyter.root / NOTEBOOK)
    with every_cell_drawn(jupyter):
        open_notebook(page, jupyter, NOTEBOOK)
        _show_every_quiz(page, chapters)


def _show_every_quiz(page, chapters) -> None:
    from playwright.sync_api import expect

    widgets = page.locator(".jupyter-widgets.wb-quiz")
    page.locator(".jp-Cell .jp-InputPrompt").first.click()  # the notebook has the focus, cell 1 active
    ARTIFACTS.mkdir(exist_ok=True)
    for n, chapter in enumerate(chapters):
        page.keyboard.press("Shift+Enter")  # runs this cell, selects the next
        try:
            expect(widgets).to_have_count(n + 1)
        except AssertionError as e:
            raise AssertionError(f"the quiz of {chapter} was not drawn: {str(e)[:300]}") from None
        questions = quiz.load(chapter)
        widget = widgets.nth(n)
        widget.scroll_into_view_if_needed()
        expect(widget.locator(":scope > .widget-vbox")).to_have_count(len(questions))
        first = questions[0].text.replace("`", "")[:30]
        expect(widget).to_contain_text(first)
        widget.screenshot(path=str(ARTIFACTS / f"quiz-{chapter}.png"))
    assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
