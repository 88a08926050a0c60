"""In a real browser: chapter 22 itself, its answers filled in, run in JupyterLab: the streamed reply
its own `watch` prints into an ipywidgets Output renders whole in the widget, the latency and
fault tables print, the quiz draws, and nothing goes to stderr. Screenshots:
test-artifacts/stream-output.png (the Output widget and the line under it) and
test-artifacts/stream-chapter.png (the page around it), test-artifacts/stream-quiz.png."""

from __future__ import annotations

import re

from tests.browser.jupyter import (
    ARTIFACTS,
    every_cell_drawn,
    fill_answers,
    marks,
    run_chapter_in_lab,
)
from workbook import quiz

pytestmark = marks()
CHAPTER = "22_streaming"
# the reply the chapter's "Watch it in the notebook" cell streams, 3 characters a piece
TEXT = ("Your taxi spending in September 2026 was 9900 KZT over 2 rides. "
        "Food was 45 600 KZT. Want a breakdown by week?")


def test_chapter_22_streams_into_an_output_widget(page, jupyter):
    from playwright.sync_api import expect

    fill_answers(jupyter.root, CHAPTER)
    with every_cell_drawn(jupyter):
        run_chapter_in_lab(page, jupyter, CHAPTER)
        expect(page.locator(".jupyter-widgets.wb-quiz")).to_have_count(1)
        widget = page.locator(".jupyter-widgets.widget-output").filter(has_text="breakdown by week").first
        expect(widget).to_have_text(re.compile(r"^\s*" + re.escape(TEXT) + r"\s*$"))
        done = page.locator(".jp-OutputArea-output", has_text="first token after 0.240 s, done after 0.775 s: done")
        expect(done).to_have_count(1)
        expect(page.locator(".jp-OutputArea-output", has_text="Responses          streamed        0.245 s")).to_have_count(1)
        expect(page.locator(".jp-OutputArea-output", has_text=re.compile(
            r"stream_cut\s+HTTP\s+done\s+steps=2 requests=3 tool runs=1"))).to_have_count(1)
        assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        cell = page.locator(".jp-CodeCell").filter(has=widget)
        cell.scroll_into_view_if_needed()
        cell.screenshot(path=str(ARTIFACTS / "stream-output.png"))
        page.screenshot(path=str(ARTIFACTS / "stream-chapter.png"), full_page=True)
        quiz_widget = page.locator(".jupyter-widgets.wb-quiz")
        quiz_widget.scroll_into_view_if_needed()
        expect(quiz_widget.locator(":scope > .widget-vbox")).to_have_count(len(quiz.load(CHAPTER)))
        quiz_widget.screenshot(path=str(ARTIFACTS / "stream-quiz.png"))
