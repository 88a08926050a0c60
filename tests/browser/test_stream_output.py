"""In a real browser: chapter 22's streamed reply printed into an ipywidgets Output renders in
JupyterLab, the whole text in the widget, and the chapter's quiz beside it. Screenshot:
test-artifacts/stream-output.png."""

from __future__ import annotations

import re
import uuid

import nbformat
import pytest

from tests.browser.jupyter import ARTIFACTS, TEST_BACKSTOP_S, skip_reason

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(skip_reason() is not None, reason=f"browser tests: {skip_reason()}"),
    pytest.mark.timeout(TEST_BACKSTOP_S),
]
NOTEBOOK = "stream_output.ipynb"
TEXT = "Your taxi spending in September 2026 was 9900 KZT over 2 rides. Want a breakdown by week?"
CELL = f'''import ipywidgets as widgets
from IPython.display import display
from workbook import scenarios
from workbook.fake_llm import FakeLLM

out = widgets.Output(layout={{"border": "1px solid #999", "padding": "4px"}})
display(out)
llm = FakeLLM(scenarios.streamed(scenarios.scripted({TEXT!r}), fragment=3))
pieces = 0
for chunk in llm.client().chat.completions.create(model="fake-model", stream=True,
                                                  messages=[{{"role": "user", "content": "Taxi?"}}]):
    piece = chunk.choices[0].delta.content
    if piece:
        out.append_stdout(piece)
        pieces += 1
print(f"{{pieces}} pieces, done after {{llm.clock():.3f}} s on the fake's clock")
'''


def test_a_streamed_reply_renders_in_an_output_widget(page, jupyter):
    from playwright.sync_api import expect

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL),
                                         nbformat.v4.new_code_cell('from workbook.quiz import show\nshow("22_streaming")')])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, jupyter.root / NOTEBOOK)
    page.goto(jupyter.url(f"lab/workspaces/{uuid.uuid4().hex[:12]}/tree/{NOTEBOOK}"))
    page.locator("#jp-main-statusbar .jp-StatusBar-TextItem", has_text="| Idle").wait_for()
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    widget = page.locator(".jupyter-widgets.widget-output").first
    expect(widget).to_contain_text(TEXT)
    expect(page.locator(".jp-OutputArea-output", has_text=f"{-(-len(TEXT) // 3)} pieces")).to_have_count(1)
    expect(page.locator(".jupyter-widgets.wb-quiz")).to_have_count(1)
    assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "stream-output.png"), full_page=True)
