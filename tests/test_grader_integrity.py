"""The grader's integrity pieces on their own: the sandbox, the proof, the scoring rule, and the
writes no submission can block. (The hostile gate runs them together on real notebooks.)"""

import base64
import json
import shutil
import subprocess
import zlib

import nbformat
import pytest

from autograder import export, proof, results, sandbox, scoring
from autograder.course import REPO, AutograderError, Course

BWRAP = pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=str(sandbox.bwrap_problem()))


def _in_sandbox(script: str, hidden=()) -> subprocess.CompletedProcess:
    box = sandbox.Sandbox(hidden=list(hidden))
    try:
        return subprocess.run(box.command(["/bin/sh", "-c", script]), capture_output=True, text=True,
                              timeout=60, env={"OPENAI_API_KEY": "sk-instructor", "PATH": "/usr/bin:/bin"})
    finally:
        box.close()


@BWRAP
def test_the_sandbox_shows_python_and_workbook_and_nothing_private():
    course = Course()
    out = _in_sandbox(
        f"ls {REPO}; ls / /work; ls -A /run 2>/dev/null | grep -vqx agentloop && echo RUN; "
        "cat /etc/shadow 2>/dev/null | wc -c; "
        "env | grep -c OPENAI; cat /proc/net/dev | grep -c ':'; "
        "python -c 'import workbook.checks, openai; print(\"imports-ok\")'",
        course.private_paths()).stdout.split()
    assert out[:4] == ["README.md", "agent_files", "chapters", "workbook"], (
        f"the repository shows only what the kernel needs: {out}")
    assert out[-4:] == ["0", "0", "1", "imports-ok"], (
        f"no /etc/shadow, no instructor key, only loopback, and Python works: {out}")
    assert "RUN" not in out and "shared" not in out, f"/run and other folders are not there: {out}"


@BWRAP
def test_the_sandbox_writes_only_its_own_folder():
    result = _in_sandbox(f"touch {REPO / 'workbook' / 'x.py'} 2>/dev/null || echo ro-workbook; "
                         f"touch /root/x /x /etc/x 2>/dev/null || echo ro-root; "
                         f"touch {REPO / 'agent_files' / 'kb' / 'x.md'} 2>/dev/null || echo ro-kb; "
                         f"touch $HOME/x /tmp/x && echo rw-home-tmp; "
                         f"touch {REPO / 'agent_files' / 'out' / 'n.md'} && echo rw-out; "
                         "head -c 2000000 /dev/zero > /dev/shm/x 2>/dev/null || echo shm-capped; "
                         "tr '\\0' ' ' < /proc/1/environ 2>/dev/null || echo environ-unreadable")
    *written, environ = result.stdout.split()
    assert written == ["ro-workbook", "ro-root", "ro-kb", "rw-home-tmp", "rw-out", "shm-capped"], result
    assert environ in ("PATH=/usr/bin:/bin", "environ-unreadable"), (
        f"no grader environment in pid 1 (unreadable when the kernel's uid is not root's): {result}")
    assert not (REPO / "agent_files" / "out" / "n.md").exists(), "the agent's files are a private copy"


def test_auto_refuses_to_grade_without_bubblewrap(monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap (`bwrap`) is not installed")
    with pytest.raises(AutograderError, match=r"--sandbox none.*on purpose|bubblewrap.*--sandbox none"):
        sandbox.resolve("auto")
    assert sandbox.resolve("none") == "none"
    with pytest.raises(AutograderError, match="must be one of"):
        sandbox.resolve("docker")


def test_a_test_cell_reaches_the_kernel_without_its_asserts_in_plain_text():
    source = '"""Hidden tests."""\nassert add(2, 2) == 4, "add(2, 2)"\n'
    wrapped = proof.wrap(source, "add_hidden_tests", hidden=True, token="abc")
    assert "assert" not in wrapped.code and "_AutograderRunner_abc" in wrapped.code
    blob = wrapped.code.split(".run(", 1)[1].split(",", 1)[0].strip("'")
    assert zlib.decompress(base64.b64decode(blob)).decode() == source
    assert "compile" not in wrapped.code and "globals" not in wrapped.code, (
        "the wrapper uses no name a student's cell could rebind")
    assert proof.wrap(source, "x", hidden=True, token="abc").name != wrapped.name, "names are fresh per cell"


def _test_cell(outputs, grade_id="add_tests"):
    cell = nbformat.v4.new_code_cell("pass")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": 2}
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


@pytest.mark.parametrize("outputs, ended, points", [
    ([], True, 2.0),
    ([{"output_type": "stream", "name": "stdout", "text": "ok\n"}], True, 2.0),
    ([], False, 0.0),  # skipped or rewritten: never reached its last line
    ([{"output_type": "execute_result", "data": {"text/plain": "'docstring'"}, "metadata": {},
       "execution_count": 1},
      {"output_type": "error", "ename": "NotImplementedError", "evalue": "", "traceback": []}], True, 0.0),
    ([{"output_type": "execute_result", "data": {"text/plain": "100"}, "metadata": {}, "execution_count": 1}],
     False, 0.0),
    ([{"output_type": "stream", "name": "stderr", "text": "warning\n"}], True, 0.0),
])
def test_scoring_counts_only_cells_that_ran_to_their_end_without_an_error(outputs, ended, points):
    cell = _test_cell(outputs)
    assert scoring.score(cell, {"add_tests"} if ended else set()) == points


def test_grader_writes_are_never_blocked(tmp_path):
    target = tmp_path / "results" / "bob" / "01.json"
    (target / "blocked").mkdir(parents=True)  # a folder where the result goes
    results.write_text(target, "{}", within=tmp_path)
    assert target.read_text() == "{}"
    link = tmp_path / "logs" / "bob"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "elsewhere")  # a symlink where a folder goes
    results.write_text(link / "01.log", "log", within=tmp_path)
    assert (link / "01.log").read_text() == "log" and not link.is_symlink()
    assert not (tmp_path / "elsewhere").exists()


def test_export_skips_broken_results_and_says_so(tmp_path):
    course = Course(root=REPO, workspace=REPO / "autograder" / "work" / f"t-{tmp_path.name}")
    try:
        good = {"student": "ada", "chapter": "01_one_step", "status": "ok", "message": "", "score": 3.0,
                "max_score": 3.0, "tests": {"t_tests": {"score": 3.0, "max": 3.0, "exercise": "t", "error": None}},
                "exercises": {"t": {"score": 3.0, "max": 3.0}}, "events": [], "tamper": [],
                "sandbox": "none", "seconds": 1.0}
        results.save(course, good)
        results.write_text(course.results / "eve" / "01_one_step.json", "[1, 2")
        (course.results / "mal" / "01_one_step.json").mkdir(parents=True)
        results.write_text(course.results / "zed" / "01_one_step.json", json.dumps({**good, "tests": {"x": 1}}))
        lines = export.export(course, tmp_path / "grades.csv")
        assert sum("skipped" in line for line in lines) == 3, lines
        rows = (tmp_path / "grades.csv").read_text().splitlines()
        assert len(rows) == 2 and rows[1].startswith("ada,01_one_step,ok,3,3") and rows[1].endswith("sandbox=none")
    finally:
        shutil.rmtree(course.workspace, ignore_errors=True)


def test_grade_refuses_before_grading_anything_without_a_sandbox(monkeypatch, tmp_path):
    from autograder import cohort
    from autograder.__main__ import main

    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap (`bwrap`) is not installed")
    course = Course(root=REPO, workspace=REPO / "autograder" / "work" / f"t-{tmp_path.name}")
    with pytest.raises(AutograderError, match="apt-get install bubblewrap"):
        cohort.grade(course)
    with pytest.raises(SystemExit):  # argparse: only auto, bwrap or none
        main(["grade", "--sandbox", "docker"])
