"""Chapter 25 inside the grader's sandbox (issue 49): the chapter's own executor, `run_code` as the
solution writes it, started in bubblewrap as a graded kernel would be. The sandbox keeps holding
while the executor starts processes: its caps count the executor's children, even when the
executor sets no limit of its own; and as the sandbox's unprivileged uid, RLIMIT_NPROC binds
(a root grader's own processes are exempt from it)."""

import json
import subprocess
import sys

import pytest

from autograder.course import REPO
from autograder.release.includes import source_of
from autograder.sandbox import sandbox

pytestmark = pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=str(sandbox.bwrap_problem()))
SOLUTIONS = REPO / "solutions"
HEADER = ("import json, os, resource, signal, subprocess, sys, tempfile\nSAFE_ENV = {'PATH': '/usr/bin:/bin'}\n"
          "LIMITS = {'cpu_seconds': 1, 'memory_bytes': 256 * 2**20, 'processes': 0, 'output_bytes': 20_000,"
          " 'wall_seconds': 10, 'chars': 2000}\n")
NO_LIMITS = {"cpu_seconds": None, "memory_bytes": None, "processes": None, "output_bytes": None,
             "wall_seconds": 20, "chars": 2000}
DRIVER = """
scratch = tempfile.mkdtemp()
NO_LIMITS = %r
FORKS = ("import os, time\\nn = 0\\ntry:\\n    while n < 500:\\n        if os.fork() == 0:\\n"
         "            time.sleep(30); os._exit(0)\\n        n += 1\\nexcept OSError:\\n    pass\\nprint(n)\\n")
HOG = "block = bytearray(600 << 20)\\nprint(len(block))\\n"
print(json.dumps({
    "fork": run_code("import os\\nos.fork()\\nprint('forked')\\n", scratch, LIMITS),
    "forks_unlimited": run_code(FORKS, scratch, NO_LIMITS),
    "hog_unlimited": run_code(HOG, scratch, NO_LIMITS),
    "after": run_code("print('still here')\\n", scratch, LIMITS),
}))
""" % NO_LIMITS  # noqa: UP031 - the driver holds braces of its own


def executor_script() -> str:
    """The solution's run_code and chapter 06's truncate, then the driver."""
    where = "tests/test_chapter_25_sandbox.py"
    return (HEADER + source_of(SOLUTIONS, "06_limits", "truncate", where)
            + source_of(SOLUTIONS, "25_code_as_action", "run_code", where) + DRIVER)


def test_the_sandbox_caps_count_the_executors_children():
    limits = sandbox.SandboxLimits(processes=32, memory_mb=512, cpu_seconds=30)
    box = sandbox.Sandbox(hidden=[], limits=limits)
    try:
        done = subprocess.run(box.command([sys.executable, "-I", "-c", executor_script()]),
                              capture_output=True, text=True, timeout=120)
    finally:
        box.close()
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    fork = seen["fork"]
    assert "BlockingIOError" in fork["stderr"] and "forked" not in fork["stdout"], (
        f"as the sandbox's own uid, the executor's RLIMIT_NPROC 0 stops a fork: {fork}")
    forks = seen["forks_unlimited"]
    assert forks["exit_code"] == 0 and int(forks["stdout"]) < 32, (
        f"an executor with no process limit still cannot pass the sandbox's 32: {forks}")
    hog = seen["hog_unlimited"]
    assert "MemoryError" in hog["stderr"], f"an executor with no memory limit still has the sandbox's 512 MB: {hog}"
    assert seen["after"]["stdout"] == "still here\n", f"the executor goes on working afterwards: {seen['after']}"

