"""In a real browser: a finished chapter runs, its quiz answers, the trajectory viewer steps.

JupyterLab and Notebook 7 (the same server), Debian's Chromium driven by playwright.
Screenshots go to test-artifacts/. Skip locally with SKIP_BROWSER=1.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.jupyter import (
    CHAPTER,
    UIS,
    VIEWER_NOTEBOOK,
    chapter_missing,
    every_cell_drawn,
    marks,
    open_notebook,
    run_all,
    shot,
)
from workbook import quiz

pytestmark = marks()
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


def single_question():
    """(index, right option, wrong option) of the chapter's first single-choice question."""
    questions = quiz.load(CHAPTER)
    n, q = next((n, q) for n, q in enumerate(questions) if q.type == "single")
    right = next(i for i, a in enumerate(q.answers) if a.correct)
    wrong = next(i for i, a in enumerate(q.answers) if not a.correct)
    return n, q, right, wrong, len(questions)


@pytest.mark.parametrize("ui", UIS)
def test_finished_chapter_runs_all_cells_and_its_quiz_gives_feedback(page, jupyter, ui):
    if reason := chapter_missing():
        pytest.skip(reason)
    open_notebook(page, jupyter, f"{CHAPTER}/{CHAPTER}.ipynb", ui=ui)
    run_all(page)
    widget = page.locator(".jupyter-widgets.wb-quiz")  # only inside rendered widgets
    expect(widget).to_have_count(1)
    n, q, right, wrong, total = single_question()
    box = widget.locator(":scope > .widget-vbox").nth(n)
    expect(box).to_contain_text(q.text.replace("`", "")[:40])
    feedback = box.locator(".wb-quiz-feedback")

    def pick(i: int) -> None:
        box.locator(".widget-checkbox .widget-label-basic").nth(i).click()
        box.get_by_role("button", name="Check").click()

    pick(wrong)
    expect(feedback).to_contain_text("✗ Not quite.")
    expect(feedback).to_contain_text(f"✗ {quiz.LETTERS[wrong]}) "
                                     + q.answers[wrong].feedback.replace("`", "")[:30])
    expect(widget.locator(".wb-quiz-score")).to_contain_text(f"Score: 0 / {total} correct (1 checked)")
    shot(box, f"{ui}-quiz-wrong.png")
    pick(right)
    expect(feedback).to_contain_text("✓ Correct.")
    expect(feedback).to_contain_text(f"✓ {quiz.LETTERS[right]}) "
                                     + q.answers[right].feedback.replace("`", "")[:30])
    expect(widget.locator(".wb-quiz-score")).to_contain_text(f"Score: 1 / {total} correct (1 checked)")
    shot(box, f"{ui}-quiz-right.png")
    shot(page, f"{ui}-quiz.png")
    # A finished chapter runs clean: no traceback and nothing on stderr in any cell.
    expect(page.locator(STDERR)).to_have_count(0)


@pytest.mark.parametrize("ui", UIS)
def test_trajectory_viewer_steps_forward_and_back(page, jupyter, ui):
    with every_cell_drawn(jupyter):  # the plot's cell sits below the tall viewer
        _viewer_steps(page, jupyter, ui)


def _viewer_steps(page, jupyter, ui):
    open_notebook(page, jupyter, VIEWER_NOTEBOOK, ui=ui)
    run_all(page)
    viewer = page.locator(".jupyter-widgets.wb-trace")
    expect(viewer).to_have_count(1)
    counter, step = viewer.locator(".wb-trace-counter"), viewer.locator(".wb-trace-step")
    messages = viewer.locator(".wb-trace-messages")
    prev, nxt = viewer.locator("button.wb-trace-prev"), viewer.locator("button.wb-trace-next")
    expect(counter).to_have_text("Step 1 of 3")
    expect(step).to_contain_text('get_weather({"city": "Almaty"})')
    expect(prev).to_be_disabled()
    nxt.click()
    expect(counter).to_have_text("Step 2 of 3")
    expect(step).to_contain_text('calculate({"expression": "21 * 9 / 5 + 32"})')
    expect(step).to_contain_text("Tool result:69.8")
    expect(messages).to_contain_text("Messages sent at this step (3)")
    expect(prev).to_be_enabled()
    viewer.scroll_into_view_if_needed()
    shot(viewer, f"{ui}-trace-viewer.png")
    nxt.click()
    expect(counter).to_have_text("Step 3 of 3")
    expect(step).to_contain_text("Answer:In Almaty it is 21 °C (69.8 °F) and sunny.")
    expect(nxt).to_be_disabled()
    prev.click()
    expect(counter).to_have_text("Step 2 of 3")
    # The token plot under it renders as an image.
    expect(page.locator(".jp-RenderedImage img")).to_have_count(1)
    page.locator(".jp-RenderedImage img").scroll_into_view_if_needed()
    shot(page, f"{ui}-trace-page.png")
    expect(page.locator(STDERR)).to_have_count(0)


def test_notebook7_tree_lists_the_chapter_and_opens_its_folder(page, jupyter):
    page.goto(jupyter.url("tree"))
    items = page.locator(".jp-DirListing-itemText")
    expect(items.filter(has_text=VIEWER_NOTEBOOK)).to_have_count(1)
    if chapter_missing():
        return
    expect(items.filter(has_text=re.compile(rf"^{CHAPTER}$"))).to_have_count(1)
    shot(page, "notebook7-tree.png")
    items.filter(has_text=re.compile(rf"^{CHAPTER}$")).dblclick()
    expect(items.filter(has_text=f"{CHAPTER}.ipynb")).to_have_count(1)
    shot(page, "notebook7-tree-chapter.png")
