"""Gates on what hostile submissions leave behind: nothing on the machine, nothing in another
student's grade, nothing in feedback; and `export` and `feedback` still finish for everyone.

The cases are in tests/hostile_os.py (one or more per class of attack); their scores are
checked with every other hostile case in test_gates_grading.py. These read the graded batch.
"""

import base64
import html
import os
import re
import site
import sys
from pathlib import Path

import pytest

from autograder import notebooks
from autograder.course import REPO
from autograder.pipeline import export, feedback, feedback_filter
from tests import gates, hostile_os, hostile_redteam

pytestmark = pytest.mark.slow
OS_LEVEL = pytest.mark.skipif(gates.SANDBOX != "bwrap", reason="needs the bubblewrap sandbox "
                              "(install bubblewrap; CI runs these with GATES_SANDBOX=bwrap)")


def _sub(name):
    subs = [s for c, s in gates.plan() if c == gates.PILOT and s.kind == "hostile" and s.name == name]
    if not subs:
        pytest.skip(f"hostile case {name} is not planned here")
    return subs[0]


def _outputs(graded, sub) -> str:
    gate = graded["course"]
    nb = notebooks.read(gate.autograded / sub.student / sub.chapter / f"{sub.chapter}.ipynb")
    texts = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            texts.append(o.get("text", "") + "".join(str(v) for v in o.get("data", {}).values())
                         + str(o.get("evalue", "")))
    return "\n".join(texts)


def test_ci_grades_in_the_sandbox():
    """CI must not quietly fall back to no sandbox: it sets GATES_SANDBOX=bwrap."""
    if os.environ.get("CI"):
        assert gates.SANDBOX == "bwrap", "CI runs the gates without the bubblewrap sandbox"


@OS_LEVEL
def test_private_files_stay_unreadable_by_any_route(graded):
    printed = _outputs(graded, _sub("read_around_the_hook"))
    assert "LEAKED" not in printed, f"a submission read a private file: {printed[:500]}"


@OS_LEVEL
def test_nothing_planted_for_later_kernels_or_the_instructor(graded):
    _sub("contaminate")
    places = {Path(p) for p in site.getsitepackages() + [site.getusersitepackages()] + sys.path if p}
    places |= {REPO / "workbook", Path.home() / ".ipython" / "profile_default" / "startup"}
    planted = [str(p) for place in places if place.is_dir() for p in place.glob(f"*{hostile_os.PLANTED}*")]
    assert not planted, f"a submission planted files outside its sandbox: {planted}"
    forged = [str(p) for p in (REPO / "workbook").rglob("*.pyc")
              if hostile_os.PLANTED.encode() in p.read_bytes()]
    assert not forged, f"a submission forged compiled modules: {forged}"


@OS_LEVEL
def test_no_process_of_a_submission_outlives_it(graded):
    _sub("detached_child")
    alive = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if hostile_os.DETACHED.encode() in cmdline.read_bytes():
                alive.append(cmdline.parent.name)
        except OSError:
            continue
    assert not alive, f"processes started by a graded submission are still running: pids {alive}"


def test_export_and_feedback_finish_for_everyone(graded, pilot_feedback, tmp_path):
    """One broken or hostile entry never stops `export` or `feedback` for the cohort (feedback: the
    pilot's hostile submissions, every one of them made in `pilot_feedback`)."""
    gate = graded["course"]
    _sub("block_the_grader")
    (gate.results / "zz-junk").mkdir(parents=True, exist_ok=True)  # what a none-sandbox kernel could do
    (gate.results / "zz-junk" / "00_pilot.json").write_text("[1, 2", encoding="utf-8")
    (gate.results / "zz-dir" / "00_pilot.json").mkdir(parents=True, exist_ok=True)
    lines = export.export(gate, tmp_path / "grades.csv")
    assert any("skipped" in line and "zz-junk" in line for line in lines), lines
    rows = (tmp_path / "grades.csv").read_text(encoding="utf-8").splitlines()
    exported = {tuple(row.split(",")[:2]) for row in rows[1:]}
    # every result this run wrote (a cached submission wrote none) is a row; junk is none
    written = {(p.parent.name, p.stem) for p in gate.results.glob("*/*.json") if p.is_file()} - {("zz-junk", "00_pilot")}
    assert written and written <= exported, f"grades.csv lost rows: {sorted(written - exported)[:5]}"
    failed = [line for line in pilot_feedback[1] if "FAILED" in line]
    assert not failed, failed


def test_hidden_tests_do_not_leak_through_feedback(graded, pages):
    """The spy prints In, _ih, history, linecache, tracebacks and every frame its answers saw while
    the tests called them (base64 and HTML) after the hidden tests: feedback shows none of it, and
    none of it holds a hidden test's source (the judge never sends it to the kernel)."""
    sub = _sub("leak_hidden_tests")
    gate = graded["course"]
    secret = feedback_filter.hidden_lines(notebooks.read(gate.solution_ipynb(sub.chapter)))
    printed = _outputs(graded, sub)
    blobs = re.findall(rf"{hostile_os.LEAK} ([A-Za-z0-9+/=]+)", printed)
    assert blobs, "the spy cell did not run"
    state = base64.b64decode(blobs[-1]).decode("utf-8", "replace")
    kept = [line for line in secret if line in state]
    assert not kept, f"the kernel saw the hidden tests' source: {kept[:3]}"
    text = pages[sub.name]
    assert text, f"no feedback page for {sub.student}"
    assert hostile_os.LEAK not in text, "feedback shows output printed during or after hidden tests"
    assert not [line for line in secret if line in text], "feedback shows hidden test code"


@pytest.fixture(scope="module")
def pilot_feedback(graded):
    """Feedback for every pilot hostile submission graded in this run, made once for this module
    (a page costs ~1.5 s of CPU): the submissions, and what `feedback` said of each."""
    gate = graded["course"]
    subs = [s for c, s in gates.plan() if c == gates.PILOT and s.kind == "hostile"
            and (gate.autograded / s.student).is_dir()]
    if not subs:
        pytest.skip("no pilot hostile case is planned here (GATES_ONLY)")
    return subs, feedback.feedback(gate, workers=2, students=[s.student for s in subs])


@pytest.fixture(scope="module")
def pages(graded, pilot_feedback):
    """case name -> feedback page as text, for the pilot's hostile submissions."""
    gate, (subs, _) = graded["course"], pilot_feedback
    out = {}
    for sub in subs:
        page = gate.feedback / sub.student / sub.chapter / f"{sub.chapter}.html"
        out[sub.name] = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))) if page.is_file() else ""
    return out


@pytest.mark.parametrize("name", ["display_leak"])
def test_nothing_a_hidden_test_holds_reaches_feedback(graded, pages, name):
    sub = _sub(name)
    assert pages[name], f"no feedback page for {sub.student}"
    assert hostile_os.LEAK not in pages[name], f"{name}: feedback shows what ran during a hidden test"
    assert hostile_os.LEAK not in _outputs(graded, sub), f"{name}: an earlier output was rewritten by display id"


def test_student_text_never_becomes_the_graders_notes(graded, pages):
    """Stubs that print and raise what looks like the grader's notes (markdown, a script, an
    exception named DeadKernelError): the run is `ok` and scores 0, the notes say nothing of it,
    and the page shows it only as escaped text."""
    sub = _sub("forged_notes")
    record = graded["records"][sub.student]
    assert record["status"] == "ok" and not [e for e in record["events"] if e["kind"] != "stderr"], record["events"]
    assert "regraded" not in export.notes(record), export.notes(record)
    nb = notebooks.read(graded["course"].autograded / sub.student / sub.chapter / f"{sub.chapter}.ipynb")
    assert "regraded" not in feedback_filter.grader_notes(nb.metadata.get("autograder", {}))
    page = (graded["course"].feedback / sub.student / sub.chapter / f"{sub.chapter}.html").read_text(encoding="utf-8")
    assert "regraded by hand" in pages["forged_notes"], "the stubs' text is not on the page at all"
    assert "<strong>Grader status: regraded" not in page, "a forged note is rendered as the grader's"
    assert not re.search(r"<img[^>]*onerror", page), "feedback carries a student's script"


def test_outputs_stay_small_whatever_the_kernel_sends(graded):
    sub = _sub("amplify_outputs")
    path = graded["course"].autograded / sub.student / sub.chapter / f"{sub.chapter}.ipynb"
    assert path.stat().st_size < 2_000_000, f"{path} is {path.stat().st_size} bytes"


@OS_LEVEL
def test_the_kernel_sees_no_grader_environment(graded):
    printed = [line for line in _outputs(graded, _sub("read_environ")).splitlines()
               if hostile_redteam.ENVIRON in line]
    assert printed, "the environ reader did not run"
    pid1 = [line for line in printed if "/proc/1/" in line]
    blocked = "blocked: PermissionError" in _outputs(graded, _sub("read_environ"))  # an unprivileged kernel
    assert (pid1 or blocked) and all(line.split("/proc/1/environ", 1)[1].split() == ["PATH=/usr/bin:/bin"]
                                     for line in pid1), pid1
    assert not [line for line in printed if "/root" in line or "VIRTUAL_ENV" in line], printed
