"""The grader's integrity pieces on their own: the sandbox, the kernel's limits, the notebook's
time limit, the scoring rule, and the writes no submission can block. (The hostile gate runs them
together on real notebooks.)"""

import json
import shutil
import subprocess
import sys
import textwrap
import threading

import nbformat
import pytest

from autograder.course import REPO, AutograderError, Course
from autograder.judge import watch as watches
from autograder.pipeline import execute, export, files, results, scoring
from autograder.sandbox import sandbox

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


def test_the_kernels_audit_hook_refuses_private_files_but_not_its_own(tmp_path):
    """kernel_limits.install, as the kernel gets it (in a process of its own: a hook stays forever)."""
    private, own = tmp_path / "solutions", tmp_path / "submitted" / "ada"
    private.mkdir()
    own.mkdir(parents=True)
    (private / "01.py").write_text("secret")
    (own / "notes.txt").write_text("mine")
    (own / "01.ipynb").write_text("{}")
    script = textwrap.dedent(f"""
        import os, sys
        source = open({str(execute.LIMITS_FILE)!r}).read()
        limits = type(sys)("limits")
        exec(compile(source, "<autograder limits>", "exec"), limits.__dict__)
        limits.install([{str(private)!r}, {str(tmp_path / "submitted")!r}], 0)
        for path in ("../../solutions/01.py", "notes.txt", "01.ipynb"):
            try:
                print(path, open(path).read())
            except PermissionError:
                print(path, "refused")
        try:
            os.listdir({str(private)!r})
            print("listed")
        except PermissionError:
            print("list refused")
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=own, capture_output=True, text=True, timeout=60)
    assert out.stdout.split("\n")[:4] == ["../../solutions/01.py refused", "notes.txt mine", "01.ipynb refused",
                                           "list refused"], out


def test_the_grader_side_never_imports_the_sdks():
    """A grading worker and a feedback page import execute (via nbgrader_config), never the judge's
    runner: importing anthropic and openai there cost ~3 s of CPU per feedback page."""
    code = "import sys, autograder.settings as s; s.nbgrader_config(); print(sorted({'anthropic', 'openai'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "[]", out


class _Box:
    """A process standing in for the sandbox's first process."""

    def __init__(self, code: str):
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        self.pid, self.killed = self.proc.pid, threading.Event()

    def kill(self) -> bool:
        self.proc.kill()
        self.proc.wait()
        self.killed.set()
        return True


def test_the_notebook_limit_counts_cpu_not_the_clock(monkeypatch):
    """A busy kernel is stopped once it used the limit in CPU seconds, however slowly its clock runs
    (the clock's backstop is out of reach here)."""
    monkeypatch.setattr(watches, "WALL_FACTOR", 10_000)
    box = _Box("while True: pass")
    watch = watches.NotebookWatch(0.5, lambda: box, box.kill)
    try:
        assert box.killed.wait(600), "a busy kernel was never stopped"
    finally:
        watch.stop()
        box.kill()
    assert watch.why == "the notebook used more than 0.5 s of CPU"


def test_a_kernel_that_only_waits_ends_at_the_clocks_backstop():
    """Sleeping uses no CPU: the clock, WALL_FACTOR times the limit, still ends it."""
    box = _Box("import time; time.sleep(600)")
    watch = watches.NotebookWatch(0.2, lambda: box, box.kill)
    try:
        assert box.killed.wait(600), "a waiting kernel was never stopped"
    finally:
        watch.stop()
        box.kill()
    assert watch.why.startswith(f"the notebook ran longer than {0.2 * watches.WALL_FACTOR:g} s by the clock"), watch.why


def test_the_notebook_limit_waits_for_its_kernel_to_exist():
    """Over the clock's limit before the kernel started: it is stopped as soon as it appears."""
    box: list = []
    watch = watches.NotebookWatch(0.01, lambda: box[0] if box else None,
                                  lambda: bool(box) and box[0].kill())
    try:
        while not watch.why:
            threading.Event().wait(0.05)
        box.append(_Box("import time; time.sleep(600)"))
        assert box[0].killed.wait(600)
    finally:
        watch.stop()
        if box:
            box[0].kill()


def _test_cell(outputs, grade_id="add_tests"):
    cell = nbformat.v4.new_code_cell("pass")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": 2}
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


@pytest.mark.parametrize("outputs, ended, points", [
    ([], True, 2.0),
    ([{"output_type": "stream", "name": "stdout", "text": "ok\n"}], True, 2.0),
    ([], False, 0.0),  # the judge did not pass it
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
    files.write_text(target, "{}", within=tmp_path)
    assert target.read_text() == "{}"
    link = tmp_path / "logs" / "bob"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "elsewhere")  # a symlink where a folder goes
    files.write_text(link / "01.log", "log", within=tmp_path)
    assert (link / "01.log").read_text() == "log" and not link.is_symlink()
    assert not (tmp_path / "elsewhere").exists()


def test_export_skips_broken_results_and_says_so(tmp_path):
    course = Course(root=REPO, workspace=REPO / "autograder" / "work" / f"t-{tmp_path.name}")
    try:
        good = {"student": "ada", "chapter": "01_one_step", "status": "ok", "message": "", "score": 3.0,
                "max_score": 3.0, "tests": {"t_tests": {"score": 3.0, "max": 3.0, "exercise": "t", "error": None}},
                "exercises": {"t": {"score": 3.0, "max": 3.0}}, "events": [],
                "sandbox": "none", "seconds": 1.0}
        results.save(course, good)
        files.write_text(course.results / "eve" / "01_one_step.json", "[1, 2")
        (course.results / "mal" / "01_one_step.json").mkdir(parents=True)
        files.write_text(course.results / "zed" / "01_one_step.json", json.dumps({**good, "tests": {"x": 1}}))
        lines = export.export(course, tmp_path / "grades.csv")
        assert sum("skipped" in line for line in lines) == 3, lines
        rows = (tmp_path / "grades.csv").read_text().splitlines()
        assert len(rows) == 2 and rows[1].startswith("ada,01_one_step,ok,3,3") and rows[1].endswith("sandbox=none")
    finally:
        shutil.rmtree(course.workspace, ignore_errors=True)


def test_grade_refuses_before_grading_anything_without_a_sandbox(monkeypatch, tmp_path):
    from autograder.__main__ import main
    from autograder.pipeline import cohort

    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap (`bwrap`) is not installed")
    course = Course(root=REPO, workspace=REPO / "autograder" / "work" / f"t-{tmp_path.name}")
    with pytest.raises(AutograderError, match="apt-get install bubblewrap"):
        cohort.grade(course)
    with pytest.raises(SystemExit):  # argparse: only auto, bwrap or none
        main(["grade", "--sandbox", "docker"])
