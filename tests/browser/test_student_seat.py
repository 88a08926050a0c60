"""In a real browser, chapter 00 as a student first meets it (issue 17 §3, §6, §7, §9): the
environment check is one call, an unfinished exercise's test says so kindly, with no library
frames, and a hidden-test cell shows nothing when run. Screenshots go to test-artifacts/."""

from __future__ import annotations

from tests.browser.jupyter import ARTIFACTS, marks, open_notebook, run_all
from tests.browser.test_jupyter import STDERR, expect

pytestmark = marks()
CHAPTER = "00_start_here"


def test_an_untouched_chapter_00_speaks_kindly(page, jupyter):
    open_notebook(page, jupyter, f"{CHAPTER}/{CHAPTER}.ipynb")
    run_all(page)  # stops at the first visible test: first_reply is not answered yet
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    env = cells.filter(has_text="workbook.env_check()")
    expect(env.locator(".jp-OutputArea-output")).to_contain_text("All set.")
    expect(env.locator(".jp-OutputArea-output")).to_contain_text("✓ openai")
    error = page.locator(STDERR)
    expect(error).to_have_count(1)
    expect(error).to_contain_text("NotImplementedError: not answered yet: your answer to first_reply goes here")
    text = error.inner_text()
    assert "checks.py" not in text and "contextlib" not in text, text
    tested = cells.filter(has_text="Visible tests: first_reply")
    tested.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    tested.screenshot(path=str(ARTIFACTS / "lab-unfinished-exercise.png"))

    hidden = cells.filter(has_text="Hidden tests: first_reply")
    hidden.locator(".jp-InputPrompt").click()
    page.keyboard.press("Shift+Enter")
    expect(hidden.locator(".jp-InputPrompt")).to_contain_text("[")
    page.wait_for_function("() => !document.querySelector('.jp-Notebook .jp-mod-selected .jp-InputPrompt')"
                           "?.textContent.includes('*')")
    expect(hidden.locator(".jp-InputPrompt")).not_to_contain_text("[ ]")
    expect(hidden.locator(".jp-OutputArea-executeResult")).to_have_count(0)
    expect(hidden.locator(".jp-OutputArea-output")).to_have_count(0)
    hidden.screenshot(path=str(ARTIFACTS / "lab-hidden-test-cell.png"))
