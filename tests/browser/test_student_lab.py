"""In a real browser, the student's seat (issue 17): the lab `make lab` opens, a released chapter
that opens saved, quiz options, quiz answers across a server restart, and the progress view.

The server here runs with lab/student/ on JUPYTER_CONFIG_PATH, exactly as `make lab` starts it.
Screenshots go to test-artifacts/student-*.png. Skip locally with SKIP_BROWSER=1.
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.error
import urllib.request
import uuid

import nbformat
import pytest

from tests.browser.jupyter import (
    BACKSTOP_S,
    CHAPTERS,
    ROOT,
    JupyterServer,
    marks,
    open_notebook,
    run_all,
)
from tests.browser.jupyter import shot as screenshot
from workbook import quiz

pytestmark = marks()
RELEASED = "02_the_loop"  # opened untouched: must not be marked unsaved
FINISHED = "00_start_here"  # its visible tests get saved results, for the progress view
QUIZ = "03_openai_format"  # its options hold `code`
QUIZ_NB, PROGRESS_NB = "quiz.ipynb", "progress.ipynb"
DIRTY = re.compile(r"\bjp-mod-dirty\b")


def expect(locator):
    from playwright.sync_api import expect as _expect  # imported late: the module may be skipped

    return _expect(locator)


def small_notebook(path, source):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The student's lab on a copy of chapters/, plus a quiz notebook and a progress notebook."""
    tmp = tmp_path_factory.mktemp("student-lab")
    root = tmp / "root"
    shutil.copytree(CHAPTERS, root)
    finished = root / FINISHED / f"{FINISHED}.ipynb"
    nb = nbformat.read(finished, as_version=4)
    for n, cell in enumerate(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")):
        cell.execution_count = n + 1  # as saved after the tests ran clean
    nbformat.write(nb, finished)
    small_notebook(root / QUIZ_NB, f'from workbook.quiz import show\nshow("{QUIZ}")')
    small_notebook(root / PROGRESS_NB,
                   f'from workbook.progress import show\nshow({str(root)!r})')
    server = JupyterServer(root, tmp, config_path=ROOT / "lab" / "student")
    right = {q.text: [a.text for a in q.answers if a.correct] for q in quiz.load(FINISHED)}
    (tmp / "progress.json").write_text(json.dumps({"version": 1, "quizzes": {FINISHED: right}}),
                                       encoding="utf-8")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def shot(target, name: str) -> None:
    screenshot(target, f"student-{name}.png")


def wait_language_info(page) -> None:
    """Until the kernel's language_info reached the open notebook (what used to dirty it)."""
    page.wait_for_function("() => !!window.jupyterapp?.shell.currentWidget?.context?.model"
                           "?.getMetadata('language_info')?.pygments_lexer")


def menubar(page) -> list[str]:
    return page.locator(".lm-MenuBar-itemLabel").all_inner_texts()


def test_instructor_lab_has_the_nbgrader_tools(page, jupyter):
    """The control: without lab/student/ the nbgrader menu is there, so its absence below counts."""
    page.goto(jupyter.url(f"lab/workspaces/{uuid.uuid4().hex[:12]}"))
    nbgrader = page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader")
    expect(nbgrader).to_have_count(1)
    expect(page.get_by_text("Create Assignment")).not_to_have_count(0)
    nbgrader.click()
    shot(page, "instructor-lab-menus")


def test_student_lab_shows_validate_and_no_instructor_tools(page, lab):
    open_notebook(page, lab, f"{RELEASED}/{RELEASED}.ipynb")
    wait_language_info(page)
    assert "Nbgrader" not in menubar(page) and "Run" in menubar(page)
    expect(page.get_by_text("Create Assignment")).to_have_count(0)
    expect(page.get_by_text("Formgrader")).to_have_count(0)
    validate = page.locator(".jp-NotebookPanel-toolbar").get_by_text("Validate", exact=True)
    expect(validate).to_have_count(1)
    shot(page, "lab-menus")
    # Notebook opened saved: the release wrote what JupyterLab fills in.
    tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text=RELEASED)
    expect(tab).to_have_count(1)
    expect(tab).not_to_have_class(DIRTY)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty") is False
    # Validate works without an nbgrader_config.py warning (the stubs fail their tests).
    validate.click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("NotImplementedError")
    shot(page, "validate")
    assert "No nbgrader_config.py" not in lab.log.read_text(encoding="utf-8", errors="replace")
    assert lab.proc.poll() is None
    for path in ("formgrader", "assignments"):  # the instructor's and the exchange's handlers
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(lab.url(path), timeout=BACKSTOP_S)


def test_quiz_options_render_code_and_wrap_beside_their_box(page, lab):
    page.set_viewport_size({"width": 900, "height": 1000})
    open_notebook(page, lab, QUIZ_NB)
    run_all(page)
    widget = page.locator(".jupyter-widgets.wb-quiz")
    expect(widget).to_have_count(1)
    expect(page.get_by_text("run this cell to show the quiz")).to_be_hidden()
    questions = quiz.load(QUIZ)
    n, i = next((n, i) for n, q in enumerate(questions)
                for i, a in enumerate(q.answers) if "`" in a.text)
    box = widget.locator(":scope > .widget-vbox").nth(n)
    options = box.locator(".widget-checkbox .widget-label-basic")
    label = options.nth(i)
    expect(label.locator("code").first).to_be_visible()
    assert "`" not in label.inner_text()
    # The longest option wraps, and every line of it starts right of its box.
    longest = max(range(len(questions[n].answers)), key=lambda k: len(questions[n].answers[k].text))
    tick = options.nth(longest).locator("input").bounding_box()
    text = options.nth(longest).locator("span").bounding_box()
    assert text["x"] >= tick["x"] + tick["width"], (tick, text)
    if len(questions[n].answers[longest].text) > 100:
        assert text["height"] > 2 * tick["height"], "a long option should wrap onto more lines"
    box.scroll_into_view_if_needed()
    shot(box, "quiz-options")
    if questions[n].type == "single":  # one at a time
        options.nth(0).click()
        options.nth(1).click()
        expect(options.nth(0).locator("input")).not_to_be_checked()
        expect(options.nth(1).locator("input")).to_be_checked()


def test_progress_view(page, lab):
    open_notebook(page, lab, PROGRESS_NB)
    run_all(page)
    view = page.locator(".wb-progress")
    expect(view).to_be_visible()
    first = view.locator("tr").nth(1)
    expect(first).to_contain_text(FINISHED)
    n_quiz = len(quiz.load(FINISHED))
    expect(first).to_contain_text(f"{n_quiz}/{n_quiz}")
    expect(first).to_contain_text("done ✓")
    expect(view).to_contain_text("Next: 01_one_step: answer parse_reply")
    shot(view, "progress")


def test_quiz_answers_survive_a_server_restart_and_a_lost_widget_says_how_to_get_it_back(
        page, lab):
    """Last in this file: it restarts the module's server."""
    open_notebook(page, lab, QUIZ_NB)
    run_all(page)
    widget = page.locator(".jupyter-widgets.wb-quiz")
    expect(widget).to_have_count(1)
    q = quiz.load(QUIZ)[0]
    right = next(i for i, a in enumerate(q.answers) if a.correct)
    first = widget.locator(":scope > .widget-vbox").nth(0)
    first.locator(".widget-checkbox .widget-label-basic").nth(right).click()
    first.get_by_role("button", name="Check").click()
    expect(first.locator(".wb-quiz-feedback")).to_contain_text("✓ Correct.")
    page.locator(".jp-Notebook").first.click()
    page.keyboard.press("Control+s")
    tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text=QUIZ_NB)
    expect(tab).not_to_have_class(DIRTY)
    page.goto("about:blank")

    lab.stop()
    lab.start()
    open_notebook(page, lab, QUIZ_NB)
    lost = page.get_by_text("run this cell to show the quiz")
    expect(lost).to_be_visible()
    error = page.get_by_text("Error displaying widget")  # JupyterLab's own text, hidden by ours
    expect(error).to_have_count(1)
    expect(error).to_be_hidden()
    shot(page.locator(".jp-Cell").first, "quiz-lost")
    run_all(page)
    widget = page.locator(".jupyter-widgets.wb-quiz")
    expect(widget).to_have_count(1)
    expect(lost).to_be_hidden()
    first = widget.locator(":scope > .widget-vbox").nth(0)
    expect(first.locator(".widget-checkbox input").nth(right)).to_be_checked()
    expect(first.locator(".wb-quiz-feedback")).to_contain_text("✓ Correct.")
    shot(first, "quiz-restored")
