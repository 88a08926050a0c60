"""In a real browser, the student's Validate dialog says what failed first (issue 45): the failed
test's name and its error's own line (what is wrong, and the hint), then the traceback; the test
cell's 20 to 50 lines of code stay in the notebook (workbook/validate.py).

The server runs with lab/student/ on JUPYTER_CONFIG_PATH, as `make lab` starts it, on a copy of
chapter 01 whose parse_reply is a wrong answer (an empty final answer taken for a tool call), and
on one whose answers are right. Screenshots: test-artifacts/validate-failure.png and
validate-success.png. Skip locally with SKIP_BROWSER=1.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest

from autograder import notebooks
from tests.browser.jupyter import (
    CHAPTERS,
    ROOT,
    WORDS,
    JupyterServer,
    click_validate,
    fill_answers,
    marks,
    open_notebook,
    shot,
)

pytestmark = marks()
CHAPTER = "01_one_step"
WRONG = '''def parse_reply(reply):
    if reply.get("final"):
        return ("final", reply["final"])
    return ("tool", reply["tool"], reply.get("args", {}))
'''
SAID = ("AssertionError: parse_reply({'final': ''}) raised KeyError: 'tool' — "
        "an empty final answer is still a final answer")  # what is wrong — the test's hint


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("validate")
    root = tmp / "root"
    shutil.copytree(CHAPTERS / CHAPTER, root / CHAPTER)
    path = root / CHAPTER / f"{CHAPTER}.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "parse_reply")
    cell.source = WRONG
    nbformat.write(nb, path)
    shutil.copytree(CHAPTERS / CHAPTER, root / "solved" / CHAPTER)
    fill_answers(root / "solved", CHAPTER)
    server = JupyterServer(root, tmp, config_path=ROOT / "lab" / "student")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_validate_shows_the_failed_assertion_and_its_hint_first(page, lab):
    source = nbformat.read(CHAPTERS / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    test_code = next(c.source for c in source.cells
                     if c.metadata.get("nbgrader", {}).get("grade_id") == "parse_reply_tests")
    open_notebook(page, lab, f"{CHAPTER}/{CHAPTER}.ipynb")
    click_validate(page)
    dialog = page.locator("#validation-message.validation-failed")
    expect(dialog).to_contain_text(SAID)
    shot(page.locator(".jp-Dialog-content"), "validate-failure.png")
    blocks = dialog.locator(".jp-RenderedText pre").all_inner_texts()
    # Per failed cell: the headline, then the traceback (every visible test fails: the other
    # answers are the release's stubs).
    failing = sum(1 for t in notebooks.chapter_tests(source) if not t["grade_id"].endswith("_hidden_tests"))
    assert failing >= 3 and len(blocks) == 2 * failing, blocks
    assert blocks[0] == f"parse_reply_tests\n{SAID}", blocks[0]
    assert "Traceback" in blocks[1] and blocks[1].rstrip().endswith(SAID), blocks[1]
    assert blocks[2] == ("one_step_tests\nNotImplementedError: not answered yet: your answer to "
                         "one_step goes here"), blocks[2]
    text = dialog.inner_text()
    assert text.index(SAID) < text.index("Traceback")
    first_line = test_code.splitlines()[0]  # the test's docstring: its code is not listed
    assert first_line not in text and len(text.splitlines()) < 27 * failing, text  # a short traceback each
    # The headline wraps inside the dialog: nothing is cut off or scrolled sideways.
    headline = dialog.locator(".jp-RenderedText pre").first
    assert headline.evaluate("e => e.scrollWidth <= e.clientWidth"), "the headline is cut off"


def test_validate_success_claims_only_the_visible_tests_on_screen_and_to_a_screen_reader(page, lab):
    """nbgrader's "Success! Your notebook passes all the tests." claims the hidden tests too; the
    student lab's CSS shows what `make check` says instead, and takes nbgrader's sentence out of
    the accessibility tree (font-size 0 had left it there, read out after ours)."""
    open_notebook(page, lab, f"solved/{CHAPTER}/{CHAPTER}.ipynb")
    click_validate(page)
    dialog = page.locator("#validation-message.validation-success")
    expect(dialog).to_be_visible()
    shot(page.locator(".jp-Dialog-content"), "validate-success.png")
    read = dialog.aria_snapshot()
    assert WORDS in read and "Success" not in read, read
    assert dialog.locator("p").is_hidden()
    box = dialog.locator("div").first.bounding_box()
    assert box and box["height"] > 10, "our words take the paragraph's place on screen"
