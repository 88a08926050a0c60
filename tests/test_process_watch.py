"""What a test learns of the processes a block started (workbook/process_watch.py): read from /proc,
outside the code that started them, so chapter 25's verdicts on the executor's processes are the
operating system's (a run_code that rewrites its result cannot change them)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from autograder.course import REPO
from autograder.judge import runner
from autograder.judge.cpu import descendants
from workbook import notebook_side
from workbook.process_watch import ProcessWatch, _describe, _fields

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
SLEEP = "import sys, time\nprint('ready', flush=True)\ntime.sleep(30)\n"
FORK = "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\nprint(os.getpid(), flush=True)\n"


def _limited():
    resource.setrlimit(resource.RLIMIT_CPU, (1, 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


def _start(code: str, **kwargs) -> subprocess.Popen:
    """`code` in a Python of its own, in a session of its own, once it said it is ready."""
    proc = subprocess.Popen([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, **kwargs)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    return proc


def _seen(seen: ProcessWatch, code: str):
    """The watch's description of `code`'s process, once its thread has read it (at most 10 s)."""
    deadline = time.monotonic() + 10
    while (program := seen.program(code)) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return program


def test_a_program_is_described_and_its_killed_group_is_not_left(tmp_path):
    with ProcessWatch(os.getpid(), descendants, every=0.01) as seen:
        proc = _start(SLEEP, env={"PATH": "/usr/bin"}, cwd=tmp_path, preexec_fn=_limited)
        program = _seen(seen, SLEEP)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert seen.left == []
    assert program is not None and program.pid == proc.pid and program.argv[1:] == ("-I", "-c", SLEEP)
    assert program.env == ("PATH",) and program.cwd == str(tmp_path)
    assert program.limits["cpu_seconds"] == (1, 2) and program.limits["output_bytes"] == (20_000, 20_000)
    assert set(program.limits) == {"cpu_seconds", "memory_bytes", "processes", "output_bytes"}


def test_a_process_still_running_is_left_and_one_already_there_is_not():
    started = [_start(SLEEP)]
    try:
        with ProcessWatch(os.getpid()) as seen:  # the notebook's own watch: a scan of /proc
            started.append(_start(SLEEP))
        assert len(seen.left) == 1 and seen.left[0].startswith(f"pid {started[1].pid}: python"), seen.left
        assert "time.sleep(30)" in seen.left[0], seen.left
    finally:
        for proc in started:
            proc.kill()
            proc.wait()


def test_a_killed_process_not_yet_waited_for_is_not_left():
    with ProcessWatch(os.getpid(), descendants) as seen:
        proc = _start(SLEEP)
        proc.kill()  # a zombie, or one with its SIGKILL pending, until it is waited for
    try:
        assert seen.left == []
    finally:
        proc.wait()


def test_a_process_is_described_only_while_it_is_there_and_not_ending():
    """A read that races its end would describe half of it (no rlimits, no argv): none is kept."""
    proc = _start(SLEEP)
    fields = _fields(proc.pid)
    assert fields is not None
    try:
        assert _describe((proc.pid, fields[19])) is not None
        assert _describe((proc.pid, b"1")) is None, "another process that had this pid"
    finally:
        proc.kill()
    assert _describe((proc.pid, fields[19])) is None, "killed: ending, then a zombie"
    proc.wait()
    assert _describe((proc.pid, fields[19])) is None, "gone"


def test_an_orphan_stays_below_a_subreaper():
    """The fast runner's kernel adopts what its children leave (adopt_orphans, as the sandbox's pid
    namespace does): a grandchild whose parent ended is still seen below it."""
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys\nsys.path.insert(0, {str(REPO)!r})\n"
         "from workbook.process_watch import adopt_orphans\nadopt_orphans()\nprint('ready', flush=True)\n"
         "sys.stdin.readline()\n"
         f"child = subprocess.Popen([sys.executable, '-c', {FORK!r}], stdout=subprocess.PIPE, text=True)\n"
         "line = child.stdout.readline()\nchild.wait()\nprint(line.strip(), flush=True)\nsys.stdin.readline()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert parent.stdin is not None and parent.stdout is not None
    try:
        assert parent.stdout.readline() == "ready\n"
        with ProcessWatch(parent.pid, descendants) as seen:
            parent.stdin.write("go\n")
            parent.stdin.flush()
            child = int(parent.stdout.readline())  # it has ended: its child is an orphan now
        assert len(seen.left) == 1 and not seen.left[0].startswith(f"pid {child}:"), seen.left
    finally:
        for pid in descendants(parent.pid):
            os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()


def test_without_a_process_to_watch_the_error_says_so():
    with pytest.raises(RuntimeError, match="does not know the notebook's process"):
        ProcessWatch(None)


def test_graded_the_watch_is_the_judges_view_of_the_kernel(monkeypatch, tmp_path):
    monkeypatch.setattr(notebook_side, "REMOTE", None)  # what the judge sets, put back afterwards
    monkeypatch.setattr(notebook_side, "PROCESSES", None)
    assert notebook_side.watch_processes().root == os.getpid()  # in a notebook: the notebook's own
    judge = runner.Judge(out=None)
    judge.start({"socket": str(tmp_path / "judge.sock"), "kernel_pid": 4242})
    try:
        watch = notebook_side.watch_processes()
        assert watch.root == 4242 and watch._below is descendants
    finally:
        assert judge.listener is not None
        judge.listener.close()


def test_a_decoy_beside_the_program_leaves_no_program_to_check():
    """Red team 14: a `run_code` that ran the program as `python -I -c code ""` with the wrong limits,
    then started a decoy `python -c "sleep" -I -c code` with the right ones, had the decoy checked
    (the last process whose last argument was the code). Now a second process carrying the code
    means no program is named, and one not started as `python -I -c code` is none either."""
    with ProcessWatch(os.getpid(), descendants, every=0.01) as seen:
        real = subprocess.Popen([sys.executable, "-I", "-c", SLEEP, ""], stdout=subprocess.PIPE, text=True,
                                start_new_session=True)
        assert real.stdout is not None and real.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 10
        while not seen.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert seen.program(SLEEP) is None, "not started as python -I -c code"
        decoy = subprocess.Popen([sys.executable, "-c", "import time\nprint('ready', flush=True)\ntime.sleep(30)",
                                  "-I", "-c", SLEEP], stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert decoy.stdout is not None and decoy.stdout.readline() == "ready\n"
        while len(seen.started) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        for proc in (real, decoy):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert len(seen.started) == 2 and seen.program(SLEEP) is None
