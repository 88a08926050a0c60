"""In a real browser: chapter 23 itself, its answers filled in, run in JupyterLab: the span trees the
notebook prints draw as the chapter says (the traced loop's tools under their model call, the 429
and its retry as two model calls, the team's worker nested under the tool that asked it, the
official instrumentation's spans under yours), the bill from the spans equals chapter 15's `cost`
of the four responses' usage, the quiz draws, and nothing goes to stderr. Screenshots:
test-artifacts/span-tree-team.png (the team's trace), span-tree-retry.png (the 429),
span-tree-chapter.png (the page)."""

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
CHAPTER = "23_traces"
# The team's trace as the chapter prints it (times=False: the same on every run).
TEAM = """invoke_agent front_desk  done
├─ chat fake-model  CLIENT  in 74 · out 53  → tool_calls
│  └─ execute_tool ask_billing
│     └─ invoke_agent billing  done
│        ├─ chat fake-model  CLIENT  in 116 · out 52  → tool_calls
│        │  └─ execute_tool txn_sum
│        └─ chat fake-model  CLIENT  in 212 · out 25  → stop
└─ chat fake-model  CLIENT  in 161 · out 30  → stop"""
# The 429 and its retry: lines of a tree printed with its times, which differ between runs.
RETRY = re.compile(r"invoke_agent support  [0-9.]+ ms  done\s+├─ chat fake-model  CLIENT  [0-9.]+ ms  "
                   r"ERROR RateLimitError\s+├─ chat fake-model  CLIENT  [0-9.]+ ms  in 119 · out 52  → tool_calls")


def test_chapter_23_draws_its_span_trees(page, jupyter):
    from playwright.sync_api import expect

    fill_answers(jupyter.root, CHAPTER)
    with every_cell_drawn(jupyter):
        run_chapter_in_lab(page, jupyter, CHAPTER)
        expect(page.locator(".jupyter-widgets.wb-quiz")).to_have_count(1)
        outputs = page.locator(".jp-OutputArea-output")
        team = outputs.filter(has_text="invoke_agent front_desk  done").first
        expect(team).to_have_text(re.compile(r"^\s*" + re.escape(TEAM) + r"\s*$"))
        retry = outputs.filter(has_text="ERROR RateLimitError").first
        expect(retry).to_have_text(RETRY)
        expect(outputs.filter(has_text="the two tool spans overlap: True")).to_have_count(1)
        bill = outputs.filter(has_text="chapter 15:").first
        expect(bill).to_have_text(re.compile(r"'cost': ([0-9.e-]+)\}\}\s+chapter 15: \1 for 4 responses\s*$"))
        expect(outputs.filter(has_text="only the official one: ['openai.response.system_fingerprint']")).to_have_count(1)
        assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        for name, output in (("span-tree-team.png", team), ("span-tree-retry.png", retry)):
            cell = page.locator(".jp-CodeCell").filter(has=output)
            cell.scroll_into_view_if_needed()
            cell.screenshot(path=str(ARTIFACTS / name))
        page.screenshot(path=str(ARTIFACTS / "span-tree-chapter.png"), full_page=True)
        quiz_widget = page.locator(".jupyter-widgets.wb-quiz")
        quiz_widget.scroll_into_view_if_needed()
        expect(quiz_widget.locator(":scope > .widget-vbox")).to_have_count(len(quiz.load(CHAPTER)))
