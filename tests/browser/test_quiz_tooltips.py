"""In a real browser: hovering a quiz option shows no raw HTML tooltip (`<code>`, `&#x27;`), and
clicking its text still ticks it. ipywidgets sets every checkbox's title to its raw description;
the quiz's CSS lets the pointer through the box and the text to their <label>, which has none.
Screenshot: test-artifacts/quiz-tooltips.png.
"""

from __future__ import annotations

import re

import nbformat

from tests.browser.jupyter import ARTIFACTS, marks, open_notebook, run_all

pytestmark = marks()
CHAPTER = "20_evaluating_an_agent"  # options with `code` and apostrophes
# What the browser would show on hover at (x, y): the title of the element hit, or of its nearest
# ancestor with one (a native tooltip's rule).
TOOLTIP_AT = """([x, y]) => { const hit = document.elementFromPoint(x, y);
  const owner = hit && hit.closest('[title]'); return owner ? owner.getAttribute('title') : null; }"""


def test_quiz_options_show_no_raw_html_on_hover_and_tick_on_a_click(page, jupyter):
    from playwright.sync_api import expect

    name = "quiz_tooltips.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"from workbook import quiz\nquiz.show({CHAPTER!r})")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, jupyter.root / name)
    open_notebook(page, jupyter, name)
    run_all(page)
    options = page.locator(".wb-quiz .widget-checkbox")
    expect(options.first).to_be_visible()
    raw = " ".join(options.nth(i).locator("label > span").get_attribute("title") or "" for i in range(options.count()))
    assert "<code>" in raw or "&#x27;" in raw or "&quot;" in raw, (
        f"the check of the check: ipywidgets still puts raw HTML in the title ({raw!r})")
    seen = []
    for i in range(min(options.count(), 8)):
        option = options.nth(i)
        option.scroll_into_view_if_needed()
        for part in ("span", "input"):
            box = option.locator(f"label > {part}").bounding_box()
            title = page.evaluate(TOOLTIP_AT, [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
            seen.append(title)
            assert title is None or not re.search(r"<\w|&#?\w+;", title), f"option {i} ({part}): tooltip {title!r}"
    assert seen, "no option was hovered"
    first = options.first
    box = first.locator("label > span").bounding_box()  # where a person clicks: the text (the label gets it)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(first.locator("input")).to_be_checked()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".wb-quiz").first.screenshot(path=str(ARTIFACTS / "quiz-tooltips.png"))
