"""Feedback (issue 25, items 4 and 5): hidden-test blocks are found by a linear scan of the
grader's own cells only (nbgrader metadata and checksum equal to the chapter's source), after the
first hidden test the page shows only what the grader wrote, and each page is made in its own
process with a deadline."""

import copy
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output, new_raw_cell
from nbgrader.utils import compute_checksum
from traitlets.config import Config

from autograder import notebooks
from autograder.course import REPO, Course
from autograder.pipeline import feedback
from autograder.pipeline.feedback_filter import (
    HIDDEN,
    NOT_SHOWN,
    WITHHELD_NOTE,
    HideHiddenTests,
    hidden_lines,
)
from autograder.settings import WALL_FACTOR

PILOT = REPO / "tests" / "pilot"
CHAPTER = "00_pilot"
SECRET = "LEAKED-BY-A-HIDDEN-TEST"
PATHOLOGICAL = "### BEGIN HIDDEN TESTS\n" * 40_000  # 0.9 MB; the old pattern was worse than quadratic on it


def _cpu_seconds(fn, limit: float = 5.0) -> float:
    """CPU time `fn` takes; past `limit` CPU seconds it is stopped and the test fails."""
    def stop(*_):
        raise TimeoutError(f"more than {limit} s of CPU")

    old = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, limit)
    start = time.process_time()
    try:
        fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return time.process_time() - start


@pytest.fixture
def course(tmp_path):
    shutil.copytree(PILOT / "solutions", tmp_path / "course" / "solutions")
    return Course(root=tmp_path / "course")


def _graded(course):
    """The source notebook as nbgrader's autograde leaves it: the grader's cells with their stored
    checksum, answers written by the student, and outputs."""
    nb = notebooks.read(course.solution_ipynb(CHAPTER))
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if meta.get("grade_id"):
            meta["checksum"] = compute_checksum(cell)
        if meta.get("solution"):
            cell.source = "def answer():\n    return 1\n"
        if cell.cell_type == "code":
            cell.outputs = [new_output("stream", name="stdout", text="ran\n")]
    return nb


def _filter(course, nb):
    config = Config()
    config.CourseDirectory.root = str(course.root)
    config.CourseDirectory.source_directory = "solutions"
    resources = {"nbgrader": {"assignment": CHAPTER, "notebook": CHAPTER, "student": "ann"}}
    return HideHiddenTests(config=config).preprocess(nb, resources)[0]


def _index(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if notebooks.nbmeta(c).get("grade_id") == grade_id)


def test_the_hidden_block_scan_is_linear():
    for text in (PATHOLOGICAL, " \t" * 450_000, "### BEGIN HIDDEN TESTS" + " " * 900_000):
        assert _cpu_seconds(lambda t=text: (HIDDEN.search(t), HIDDEN.sub("x", t), HIDDEN.findall(t))) < 5
    block = "a = 1\n  ### BEGIN HIDDEN TESTS\nassert secret\n### END HIDDEN TESTS now\nb = 2\n"
    assert HIDDEN.search(block) and HIDDEN.findall(block) == [
        "  ### BEGIN HIDDEN TESTS\nassert secret\n### END HIDDEN TESTS now\n"]
    assert HIDDEN.sub("# hidden\n", block) == "a = 1\n# hidden\nb = 2\n"
    assert not HIDDEN.search("### BEGIN HIDDEN TESTS\nnever closed\n")


def test_huge_student_cells_render_fast(course):
    """A 0.9 MB markdown cell and a 0.9 MB pathological code cell of the student's own."""
    nb = _graded(course)
    nb.cells.insert(2, new_markdown_cell(PATHOLOGICAL))
    nb.cells.insert(3, new_code_cell(PATHOLOGICAL))
    assert _cpu_seconds(lambda: _filter(course, nb)) < 5


def test_hidden_blocks_are_hidden_only_in_the_graders_cells(course):
    nb = _graded(course)
    student = "### BEGIN HIDDEN TESTS\nmy own note\n### END HIDDEN TESTS\n"
    nb.cells.insert(1, new_code_cell(student))
    out = _filter(course, nb)
    hidden = out.cells[_index(out, "add_hidden_tests")]
    assert "BEGIN HIDDEN" not in hidden.source and "(hidden tests: run by the grader" in hidden.source
    assert out.cells[1].source == student, "a student's own text is never taken for a hidden test"
    secret = hidden_lines(notebooks.read(course.solution_ipynb(CHAPTER)))
    page = "\n".join(c.source for c in out.cells)
    assert secret and not [line for line in secret if line in page]


def test_a_test_cell_that_does_not_match_the_source_shows_nothing(course):
    nb = _graded(course)
    cell = nb.cells[_index(nb, "add_hidden_tests")]
    cell.source = cell.source.replace("### BEGIN HIDDEN TESTS", "### BEGIN HIDDEN TESTS (edited)")
    cell.source = cell.source.replace("### END HIDDEN TESTS", "# end")  # no block any more
    out = _filter(course, copy.deepcopy(nb))
    shown = out.cells[_index(out, "add_hidden_tests")]
    assert "does not match the chapter's source" in shown.source
    assert [o.get("text") for o in shown.outputs] != ["ran\n"]


def test_after_the_first_hidden_test_only_the_graders_text_is_shown(course):
    nb = _graded(course)
    at = _index(nb, "add_hidden_tests")
    later = nb.cells[at + 1]  # the grader's markdown for exercise 2
    nb.cells.insert(at + 1, new_markdown_cell(f"student prose {SECRET}"))
    nb.cells.insert(at + 2, new_raw_cell(f"raw {SECRET}"))
    answer = nb.cells[_index(nb, "parse_reply")]
    answer.outputs = [new_output("display_data", data={"text/plain": SECRET, "text/html": f"<b>{SECRET}</b>",
                                                       "image/png": "aGk=", "application/json": {"k": SECRET}})]
    test = nb.cells[_index(nb, "parse_reply_tests")]
    test.outputs = [new_output("stream", name="stdout", text=SECRET),
                    new_output("error", ename="AssertionError", evalue="expected a tuple", traceback=[SECRET])]
    out = _filter(course, nb)
    assert out.cells[at + 1].source == WITHHELD_NOTE, "why, said once where withholding starts"
    assert out.cells[at + 2].source == NOT_SHOWN and out.cells[at + 3].source == NOT_SHOWN
    assert out.cells[at + 4].source == later.source, "the grader's own markdown stays"
    flat = repr([(c.source, c.get("outputs")) for c in out.cells])
    assert SECRET not in flat
    kept = out.cells[_index(out, "parse_reply_tests")].outputs
    assert kept[0].ename == "AssertionError" and kept[0].evalue == "expected a tuple"


# -- one process per page, with a deadline

def render_or_hang(course, student, chapter):
    """In the page's process: the exporter of `hang` never returns, `boom`'s raises."""
    if student == "hang":
        (course.root / "hang.pid").write_text(str(os.getpid()))
        while True:
            time.sleep(3600)
    if student == "boom":
        raise RuntimeError("boom")
    if student == "spin":
        while True:
            pass
    page = course.feedback / student / chapter / f"{chapter}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("<html>ok</html>")
    return str(page)


def test_a_page_that_hangs_is_killed_and_the_others_are_written(course):
    """A page that blocks is stopped by the clock's backstop (WALL_FACTOR x its CPU seconds), one that
    computes forever by its CPU time, whatever the machine's load."""
    todo = [("ann", CHAPTER), ("hang", CHAPTER), ("boom", CHAPTER), ("bob", CHAPTER)]
    lines = feedback.run_pages(course, todo, workers=2, deadline=0.5, render=render_or_hang)
    assert len(lines) == 4
    assert f"FAILED (timed out: no page after {0.5 * WALL_FACTOR:g} s of waiting; its process was killed)" in lines[1], lines
    assert "FAILED: RuntimeError: boom" in lines[2], lines
    for line in (lines[0], lines[3]):
        assert "FAILED" not in line and Path(line.split()[-1]).read_text() == "<html>ok</html>"
    pid = int((course.root / "hang.pid").read_text())
    with pytest.raises(ProcessLookupError):
        for _ in range(100):  # the kill has been waited for; the process table may lag a little
            os.kill(pid, 0)
            time.sleep(0.05)


def test_a_page_that_computes_forever_is_stopped_by_its_cpu_time(course):
    """RLIMIT_CPU ends the page's process, however long the busy machine makes that take."""
    ctx = feedback.pool_context()
    here, there = ctx.Pipe(duplex=False)
    process = ctx.Process(target=feedback._child, args=(there, render_or_hang, course, "spin", CHAPTER, 0.5))
    process.start()
    there.close()
    process.join(600)  # a backstop for a broken limit only: the verdict is the exit code
    assert process.exitcode == -signal.SIGXCPU, process.exitcode
    page = feedback._Page("spin", CHAPTER, process, here, due=0.0, started=True)
    assert "FAILED (over its 0.5 s of CPU time; its process was killed)" in feedback._finish(page, 0.5)
