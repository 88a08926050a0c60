"""In a real browser, the feedback page (issue 45): the summary names each exercise, no line of
code or output runs out of its box on a narrow window (it wraps), and the note on what the page
withholds after the first hidden test is where the summary's "why" leads. The page is the pilot
chapter's, made by the course's filter and template (tests/test_feedback_page.py).
Screenshots: test-artifacts/feedback-summary.png, feedback-withheld-note.png, feedback-long-line.png.
"""

from __future__ import annotations

from autograder.pipeline.feedback_filter import WITHHELD_ANCHOR
from tests.browser.jupyter import marks, shot
from tests.test_feedback_page import LONG, graded, page, pilot_course

pytestmark = marks()


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


def test_feedback_page_names_exercises_wraps_lines_and_says_why_once(browser, tmp_path):
    course = pilot_course(tmp_path)
    html = tmp_path / "00_pilot.html"
    html.write_text(page(course, graded(course)), encoding="utf-8")
    context = browser.new_context(viewport={"width": 700, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(html.as_uri())
        toc = pg.locator("#toc")
        expect(toc.locator("li").first).to_have_text("add: visible test (Score: 0.0 / 1.0)")
        expect(toc).not_to_contain_text("Test cell")
        shot(pg.locator(".panel-heading").first, "feedback-summary.png")
        cut = pg.evaluate("() => [...document.querySelectorAll('#notebook-container pre')]"
                          ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText.slice(0, 80))")
        assert cut == [], f"lines that run out of their box: {cut}"
        long_line = pg.locator("pre", has_text=LONG.strip()[:60]).first
        box = long_line.bounding_box()
        assert box and box["height"] > 3 * 20, "the 580-character line wraps onto several lines"
        long_line.scroll_into_view_if_needed()
        shot(long_line, "feedback-long-line.png")
        pg.locator("#withheld-link a").click()
        note = pg.locator(f"#{WITHHELD_ANCHOR}")
        expect(note).to_be_in_viewport()
        expect(pg.get_by_text("Why: a hidden test hands your code its inputs")).to_have_count(1)
        shot(pg.locator(".text_cell_render", has=note), "feedback-withheld-note.png")
    finally:
        context.close()
