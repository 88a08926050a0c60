# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 25 · An agent that writes and runs code
#
# So far the model asked for one tool at a time, in JSON. Many agents let it write a **program**
# instead: smolagents' `CodeAgent` ("code is the action"), mini-swe-agent (bash is its only tool),
# the CodeAct paper (Wang et al., 2024). One program can loop, branch and combine several tools in
# one step. It is also arbitrary code, written by a model that a data file can talk into anything.
#
# In this chapter the fake model answers with Python, as a `run_python` tool call and as a fenced
# block in its text, and you build what runs it: an **executor** that puts the program in a
# separate process with limits, a **policy** that decides which programs may run at all, and the
# agent side of **tools as functions** (the program calls the shop's tools; the agent answers).
# Then eight attacks play against them, and the chapter prints what stopped each.
#
# **Learning goals.** After this chapter you can
# - run model-written code in a child process, never with `exec` in the agent's own, in a scratch
#   folder, with an environment that holds no keys;
# - bound it: CPU seconds, memory, processes, bytes of output (`resource.setrlimit` in
#   `preexec_fn`), wall time, and kill the whole process group when it is over;
# - return stdout, stderr and the exit code as an observation cut the way chapter 06 taught;
# - review a program before it runs (an `ast` allow-list of imports, a human's confirmation
#   before code that writes) and say why that is a filter, not a sandbox;
# - serve tools to the program over a pipe with chapter 07's identity and confirmation rules kept
#   in the agent;
# - say what a child process does **not** isolate (files, the network) and what an OS sandbox
#   adds.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 06 · Limits and stopping (`truncate`), 07 · What only code decides (identity,
# confirmation, the `ast` calculator), 19 · Attack your own agent. What you need is restated below
# as given code.
# Linux and macOS: the tests check what works on both; where they differ the text says so.

# %% [markdown]
# ## Given code
#
# `truncate` is chapter 06's. `LIMITS` are this chapter's limits, tiny so that an attack ends in a
# second. `SAFE_ENV` is the whole environment a program gets. `run_code_agent` is the loop: each
# step the model either calls `run_python` or writes a ```python block in its text; the loop hands
# the code to `run(code)` and sends back what it returns, as a `tool` message or as a user message
# `"Observation: ..."` (smolagents' style).

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import ast
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path, PurePath

from workbook.fake_llm import FakeLLM
from workbook.scenarios import code_action
from workbook.shop import SCHEMAS, Shop

LIMITS = {"cpu_seconds": 1,  # RLIMIT_CPU: CPU time, not the clock
          "memory_bytes": 256 * 2**20,  # RLIMIT_AS: address space
          "processes": 0,  # RLIMIT_NPROC: no new process (None: leave as it is)
          "output_bytes": 20_000,  # RLIMIT_FSIZE: the most any file it writes may hold, its output too
          "wall_seconds": 3,  # the clock, for a program that sleeps or waits
          "chars": 2_000}  # characters of stdout and of stderr in the observation
SAFE_ENV = {"PATH": "/usr/bin:/bin"}  # no HOME, no keys, no tokens


#@include 06_limits truncate


#@include 02_the_loop AgentResult


def run_code_agent(client, question, tools, run, max_steps=6):
    """The loop: code from a run_python call or a ```python block goes to run(code) -> observation."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=tools or None).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if message.tool_calls:
            for call in message.tool_calls:
                code = json.loads(call.function.arguments).get("code", "")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": run(code)})
            continue
        block = code_action.FENCE.search(message.content or "")
        if block is None:
            return AgentResult(message.content, "done", step)
        messages.append({"role": "user", "content": "Observation: " + run(block.group(1))})
    return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# ## Part 1 · Code as the action
#
# Here is the model at work, with the worst executor there is: `exec` in the agent's own process.
# It reads `orders.csv`, gets a column wrong, reads the traceback and fixes its code.

# %%
import contextlib
import io
import traceback


def exec_here(code):
    """The executor NOT to write: the model's code runs inside the agent, with all its power."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    except Exception:
        return json.dumps({"stdout": out.getvalue(), "stderr": traceback.format_exc(limit=1)})
    return json.dumps({"stdout": out.getvalue(), "stderr": ""})


with tempfile.TemporaryDirectory() as folder:
    here = os.getcwd()
    os.chdir(folder)  # exec has no folder of its own: it uses (and can change) the agent's
    try:
        Path("orders.csv").write_text(code_action.ORDERS_CSV, encoding="utf-8")
        for style in ("tool", "text"):
            scenario = code_action.average_order(style)
            result = run_code_agent(FakeLLM(scenario).client(), scenario.question,
                                    scenario.openai_tools(), exec_here)
            print(f"{style:5} {result}")
    finally:
        os.chdir(here)  # even if the cell fails: the kernel must not stay in a removed folder

# %% [markdown]
# It works, and that is the danger. The program ran with the agent's memory, files, environment
# (every API key in it), network and time: `import os; os.environ` prints the keys, `while True:
# pass` hangs the agent, `os._exit(0)` ends it. Python has no way to take power away from code in
# its own interpreter: its restricted-execution module, `rexec`, was disabled in Python 2.3 for its
# known holes and removed in Python 3; its documentation pointed to "execution via sub-processes".
# The executor's first rule: **another process**, with limits the operating system enforces:
#
# | what | how | what the program sees when it is over |
# |---|---|---|
# | CPU time | `RLIMIT_CPU` | killed by `SIGXCPU` |
# | memory | `RLIMIT_AS` (address space), on Linux | `MemoryError` (macOS ignores this limit, and recent versions refuse to set it: there a container or VM bounds memory) |
# | processes | `RLIMIT_NPROC` = 0 | `fork` fails (`BlockingIOError`); counted per user, and root is exempt |
# | output | stdout and stderr go to files; `RLIMIT_FSIZE` caps every file it writes | `OSError: File too large` (Python ignores `SIGXFSZ`, the signal that would kill it) |
# | wall time | `proc.wait(timeout=...)`, then kill | a sleeping program uses no CPU: only the clock stops it |
# | environment | `env=SAFE_ENV` | no keys to print |
# | folder | `cwd=` a fresh scratch folder | relative paths land there (absolute ones do not: see Part 4) |
#
# `resource.setrlimit` must run in the child, after `fork` and before `exec`: that is
# `subprocess.Popen(..., preexec_fn=...)`. Set soft and hard limits (the soft one sends the
# signal, the hard one cannot be raised again by the program). `start_new_session=True` puts the
# child in a process group of its own, so `os.killpg(proc.pid, signal.SIGKILL)` ends it **and**
# whatever it started; `proc.kill()` ends only the child, and its children keep running.

# %% [markdown]
# ## Exercise 1 — `run_code` (5 points)
#
# Write `run_code(code, scratch, limits=LIMITS)`: run the program `code` and return a dict
# `{"exit_code": int, "stdout": str, "stderr": str, "timed_out": bool}`.
#
# 1. Start `[sys.executable, "-I", "-c", code]` (`-I`: isolated mode, no user site, no `PYTHON*`
#    variables) with `subprocess.Popen`, in the folder `scratch` (`cwd=`), with `env=dict(SAFE_ENV)`,
#    `stdin=subprocess.DEVNULL`, `start_new_session=True`. Never `exec` it in this process.
# 2. Send stdout and stderr to two `tempfile.TemporaryFile()`s, not pipes (a pipe that nobody reads
#    blocks the program; one you read whole fills your memory).
# 3. In `preexec_fn`, set with `resource.setrlimit(which, (soft, hard))`: `RLIMIT_CPU` to
#    `(cpu_seconds, cpu_seconds + 1)`, and `RLIMIT_AS` to `memory_bytes`, `RLIMIT_NPROC` to
#    `processes`, `RLIMIT_FSIZE` to `output_bytes` (soft = hard). A limit that is `None` is left
#    as it is. Set `RLIMIT_AS` on Linux only (`sys.platform == "linux"`): macOS ignores it, and
#    recent versions refuse it with an error, which in `preexec_fn` would stop every program.
# 4. Wait at most `wall_seconds` (`proc.wait(timeout=...)`). When time is up, `timed_out` is
#    `True`. Either way, then kill the whole process group with `os.killpg(proc.pid,
#    signal.SIGKILL)` (a `ProcessLookupError` means nothing was left) and `proc.wait()` for the child.
# 5. `exit_code` is `proc.returncode` (negative: the signal that ended it). Read both files from
#    the start, decode UTF-8 (`errors="replace"`) and cut each with `truncate(text, limits["chars"])`.

# %% nbgrader={"grade": false, "grade_id": "run_code", "locked": false, "schema_version": 3, "solution": true}
def run_code(code, scratch, limits=LIMITS):
    """Run a program in a child process with limits; its exit code, stdout, stderr and whether time ran out."""
    ### BEGIN SOLUTION
    memory = limits["memory_bytes"] if sys.platform == "linux" else None  # macOS refuses or ignores RLIMIT_AS
    rlimits = [(resource.RLIMIT_CPU, limits["cpu_seconds"], 1), (resource.RLIMIT_AS, memory, 0),
               (resource.RLIMIT_NPROC, limits["processes"], 0), (resource.RLIMIT_FSIZE, limits["output_bytes"], 0)]

    def limit_child():  # runs in the child, between fork and exec
        for which, value, slack in rlimits:
            if value is not None:
                resource.setrlimit(which, (value, value + slack))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-I", "-c", code], cwd=scratch, env=dict(SAFE_ENV),
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, preexec_fn=limit_child,
                                start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=limits["wall_seconds"])
        except subprocess.TimeoutExpired:
            timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child and everything it started
        except ProcessLookupError:
            pass
        proc.wait()
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(truncate(f.read().decode("utf-8", errors="replace"), limits["chars"]))
    return {"exit_code": proc.returncode, "stdout": texts[0], "stderr": texts[1], "timed_out": timed_out}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_code_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_code runs the program in another Python process, in the scratch folder, with
only SAFE_ENV and the rlimits set (RLIMIT_AS on Linux); reports a traceback in stderr; a CPU loop ends by SIGXCPU,
a flood of output at RLIMIT_FSIZE ("File too large") and is cut with [truncated]; a sleeping program ends at the wall time,
killed; a grandchild it leaves behind is killed with its process group. What the operating system says of the
processes (watch_processes, read from /proc) decides, not only what run_code reports."""
import json
import signal
import sys

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder, notebook_path, watch_processes

wb = fresh()
SMALL = {"cpu_seconds": 1, "memory_bytes": 256 * 2**20, "processes": 0, "output_bytes": 20_000,
         "wall_seconds": 2, "chars": 2_000}
PROBE = """import json, os, resource, sys
print(json.dumps({"cwd": os.getcwd(), "env": sorted(os.environ),
                  "agent_here": any(m in sys.modules for m in ("workbook", "ipykernel", "IPython")),
                  "limits": {n: resource.getrlimit(getattr(resource, n))[0]
                             for n in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE")}}))
"""
with notebook_folder() as scratch:
    r = run_code(PROBE, str(scratch), SMALL)
    assert type(r) is dict and set(r) == {"exit_code", "stdout", "stderr", "timed_out"}, (
        f"run_code returns a dict with exit_code, stdout, stderr and timed_out; got {r!r}")
    assert r["exit_code"] == 0 and r["timed_out"] is False, f"a short program exits 0 in time; got {r!r}"
    seen = json.loads(r["stdout"])
    assert seen["agent_here"] is False, "the program ran inside the agent's process: start a new Python (subprocess), never exec"
    assert notebook_path(seen["cwd"]).resolve() == scratch, f"the program runs in the scratch folder; it ran in {seen['cwd']}"
    assert set(seen["env"]) <= {"PATH", "LC_CTYPE", "__CF_USER_TEXT_ENCODING"}, (
        f"pass env=dict(SAFE_ENV): the program saw {len(seen['env'])} of the agent's environment variables, "
        f"such as {sorted(seen['env'])[:4]}")
    for name, want in [("RLIMIT_CPU", 1), ("RLIMIT_AS", 256 * 2**20), ("RLIMIT_NPROC", 0), ("RLIMIT_FSIZE", 20_000)]:
        if name == "RLIMIT_AS" and sys.platform != "linux":
            continue  # macOS has no memory limit of this kind (the chapter says what it needs instead)
        assert seen["limits"][name] == want, f"{name} must be set in preexec_fn to {want}; the program saw {seen['limits'][name]}"

    r = run_code("x = 1\nprint('before')\nprint(x / 0)\n", str(scratch), SMALL)
    assert r["exit_code"] == 1 and r["stdout"] == "before\n" and "ZeroDivisionError" in r["stderr"], (
        f"a failing program: exit code 1, what it printed, the traceback in stderr; got {r!r}")
    r = run_code("while True:\n    pass\n", str(scratch), {**SMALL, "wall_seconds": 30})  # 1 CPU second, however busy the machine
    assert r["exit_code"] == -signal.SIGXCPU and r["timed_out"] is False, (
        f"an endless loop is ended by the CPU limit (SIGXCPU), before the wall time; got {r!r}")
    r = run_code("print('x' * 100_000)\n", str(scratch), SMALL)
    assert r["exit_code"] != 0 and "File too large" in r["stderr"], (
        f"100,000 bytes of output hit RLIMIT_FSIZE: the write fails with OSError 'File too large'; got {r!r}")
    assert r["stdout"] == "x" * 2_000 + "\n[truncated] cut 18000 of 20000 characters", (
        f"stdout holds the first 20,000 bytes, cut to 2,000 characters with truncate; got {len(r['stdout'])} characters")
    SLEEP = "import time\ntime.sleep(5)\n"
    with watch_processes() as seen:  # the processes as the operating system shows them (graded: from outside)
        r = run_code(SLEEP, str(scratch), {**SMALL, "wall_seconds": 1})
    assert r["timed_out"] is True and r["exit_code"] == -signal.SIGKILL, (
        f"a program that sleeps past wall_seconds is killed (SIGKILL) and timed_out is True; got {r!r}")
    assert not seen.left, f"the program was still running after run_code returned: kill it when time is up; left: {seen.left}"
    program = seen.program(SLEEP)
    if not seen.blind:  # where there is a /proc to read (Linux, and always when graded)
        assert program is not None, "no process of its own ran the program: start [sys.executable, '-I', '-c', code] with Popen"
        assert set(program.env or ["(unreadable)"]) <= {"PATH", "LC_CTYPE"}, (
            f"pass env=dict(SAFE_ENV): the program's environment held {sorted(program.env or ['(unreadable)'])[:4]}")
        want = {"cpu_seconds": (1, 2), "memory_bytes": (256 * 2**20, 256 * 2**20), "processes": (0, 0),
                "output_bytes": (20_000, 20_000)}
        assert program.limits == want, (
            f"the program's rlimits (soft, hard), as the operating system kept them: {program.limits}; want {want}")
        assert program.cwd == str(scratch), f"the program runs in the scratch folder; it ran in {program.cwd}"
    FORK = "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(30)\n    os._exit(0)\nprint(pid)\n"
    with watch_processes() as seen:
        r = run_code(FORK, str(scratch), {**SMALL, "processes": None})
    assert not seen.left, (
        "a process the program started was still running after run_code returned: kill the process group "
        f"(start_new_session=True, os.killpg), not only the child; left: {seen.left}")
    grandchild = int(r["stdout"])
    CHECK = f"""import os
try:
    os.kill({grandchild}, 0)
except ProcessLookupError:
    print("gone")
else:
    stat = f"/proc/{grandchild}/stat"
    print("gone" if os.path.exists(stat) and open(stat).read().rsplit(")", 1)[1].split()[0] == "Z" else "alive")
"""
    r = run_code(CHECK, str(scratch), SMALL)  # the program's own view too: in a notebook an orphan leaves the watch's
    assert r["stdout"].strip() == "gone", (
        "a process the program started was still running after run_code returned: kill the process group "
        "(start_new_session=True, os.killpg), not only the child")
    print("run_code: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_code_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: run_code with the chapter's limits: the memory bomb ends in MemoryError on Linux,
no fork on Linux for a user that is not root, the environment holds no secret, stdout and stderr
are cut separately, a None limit is left alone, the average_order scenario ends right in both styles
through run_code, and a timed-out program, or one that forked, leaves nothing running (seen from /proc)."""
### BEGIN HIDDEN TESTS
import json
import os
import signal
import sys

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder, watch_processes

wb = fresh()
CA = wb.scenarios.code_action
SMALL = {"cpu_seconds": 1, "memory_bytes": 256 * 2**20, "processes": 0, "output_bytes": 20_000,
         "wall_seconds": 2, "chars": 300}
with notebook_folder() as scratch:
    def run(code, limits=SMALL):
        with wb.checks.no_raise("run_code(code, scratch, limits)", hint="a program's failure is data, not an exception"):
            r = run_code(code, str(scratch), limits)
        assert type(r) is dict and type(r["stdout"]) is str and type(r["stderr"]) is str, f"run_code returns a dict of str; got {r!r}"
        return r


    if sys.platform.startswith("linux"):
        r = run(CA.ATTACKS["memory_bomb"])
        assert r["exit_code"] == 1 and "MemoryError" in r["stderr"], f"a 1 GB allocation under RLIMIT_AS fails with MemoryError; got {r!r}"
        if os.geteuid() != 0:
            r = run(CA.ATTACKS["fork"])
            assert "BlockingIOError" in r["stderr"], f"with RLIMIT_NPROC 0 a fork fails; got {r!r}"
    r = run(CA.ATTACKS["print_env"])
    assert r["exit_code"] == 0 and "HOME" not in r["stdout"] and "KEY" not in r["stdout"], (
        f"the program's environment is SAFE_ENV only; it printed {r['stdout'][:200]!r}")
    r = run("import sys\nprint('o' * 500)\nprint('e' * 400, file=sys.stderr)\n")
    assert r["stdout"].startswith("o" * 300 + "\n[truncated] cut 201 of 501") and r["stderr"].startswith("e" * 300 + "\n[truncated]"), (
        f"stdout and stderr are each cut with truncate(text, chars); got {r!r}")
    r = run("import resource\nprint(resource.getrlimit(resource.RLIMIT_CPU))\n", {**SMALL, "processes": None, "cpu_seconds": 2})
    assert r["exit_code"] == 0 and "(2, 3)" in r["stdout"], f"RLIMIT_CPU is (cpu_seconds, cpu_seconds + 1); got {r!r}"
    r = run("import sys\nsys.exit(3)\n")
    assert r == {"exit_code": 3, "stdout": "", "stderr": "", "timed_out": False}, f"the exit code is the program's; got {r!r}"
    r = run("print('é✓')\n")
    assert r["stdout"] == "é✓\n", f"stdout is decoded as UTF-8; got {r['stdout']!r}"
    (scratch / "orders.csv").write_text(CA.ORDERS_CSV, encoding="utf-8")
    for style in ("tool", "text"):
        scenario = CA.average_order(style)
        llm = wb.fake_llm.FakeLLM(scenario)
        client = llm.client(max_calls=4)
        messages = [{"role": "user", "content": scenario.question}]
        for _ in range(4):
            message = client.chat.completions.create(model="fake-model", messages=messages,
                                                     tools=scenario.openai_tools() or None).choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if message.tool_calls:
                code = json.loads(message.tool_calls[0].function.arguments)["code"]
                messages.append({"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": json.dumps(run(code))})
                continue
            block = CA.FENCE.search(message.content or "")
            if block is None:
                break
            messages.append({"role": "user", "content": "Observation: " + json.dumps(run(block.group(1)))})
        assert message.content == CA.AVERAGE_ANSWER, (
            f"average_order ({style}): the KeyError's traceback lets the model fix its code; it answered {message.content!r}")
    SLEEP = "import time\ntime.sleep(5)\n"
    OWN = {"cpu_seconds": 2, "memory_bytes": 200 * 2**20, "processes": 0, "output_bytes": 30_000, "wall_seconds": 1, "chars": 300}
    with watch_processes() as seen:  # the operating system decides, from outside the notebook
        r = run(SLEEP, OWN)
    assert r["timed_out"] is True and r["exit_code"] == -signal.SIGKILL, f"past the wall time the program is killed; got {r!r}"
    assert not seen.left, "a timed-out program must not be left running (kill, then wait for it)"
    program = seen.program(SLEEP)
    if not seen.blind:
        assert program is not None, "the program must run in a Python process of its own"
        assert set(program.env or ["(unreadable)"]) <= {"PATH", "LC_CTYPE"}, "the program's environment is SAFE_ENV only"
        assert program.limits == {"cpu_seconds": (2, 3), "memory_bytes": (200 * 2**20, 200 * 2**20), "processes": (0, 0),
                                  "output_bytes": (30_000, 30_000)}, "the program's rlimits come from the limits passed in"
        assert program.cwd == str(scratch), "the program runs in the scratch folder"
    FORK = "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\nprint('forked')\n"
    with watch_processes() as seen:
        r = run(FORK, {**SMALL, "processes": None})
    assert r["stdout"] == "forked\n" and not seen.left, (
        "a process the program started must not be left running: kill its process group")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · Which programs may run
#
# The executor bounds what a program can do; the loop can also refuse a program before it runs.
# Read it with `ast` (chapter 07's calculator did the same for arithmetic): which modules it
# imports, which built-ins it calls, which files it opens and how. A short allow-list fits most
# data tasks; `os`, `subprocess`, `socket`, `ctypes` are not on it.
#
# This is a **filter, not a sandbox**. Python offers many ways round a list of names
# (`().__class__.__base__.__subclasses__()` reaches almost anything, and smolagents' own
# interpreter has had such escapes). It turns away the obvious attack early, with a clear message
# the model can act on; the limits and, below, the OS sandbox are what hold.

# %% nbgrader={"grade": false, "grade_id": "given_policy", "locked": true, "schema_version": 3, "solution": false}
ALLOWED_IMPORTS = {"math", "statistics", "json", "csv", "re", "datetime", "collections", "itertools"}
BANNED_CALLS = {"eval", "exec", "compile", "__import__", "getattr", "setattr", "delattr", "globals",
                "locals", "vars", "breakpoint", "input"}
WRITE_MODES = set("wax+")  # an open() mode with any of these writes

# %% [markdown]
# ## Exercise 2 — `review_code` (4 points)
#
# Write `review_code(code, confirm)`: `None` when the program may run, else the text of an error
# saying why (the loop sends it back instead of running anything).
#
# 1. `ast.parse(code)`; a `SyntaxError` → `f"SyntaxError: {e.msg} (line {e.lineno})"`.
# 2. Walk every node (`ast.walk`):
#    - `import a.b` and `from a.b import c`: the top module (`a`) must be in `ALLOWED_IMPORTS`; a
#      relative import (`from . import x`, `node.level > 0`) is refused;
#    - a name in `BANNED_CALLS` (an `ast.Name`, called or not) is refused;
#    - an attribute whose name starts with `_` (`x.__class__`) is refused;
#    - a call of `open`: its first argument must be a string constant, a relative path with no
#      `..` part (`PurePath(p).is_absolute()`, `".." in PurePath(p).parts`); the mode (second
#      argument or `mode=`) is missing (a read), a string constant without `WRITE_MODES`
#      characters (a read), or else a **write**.
# 3. Each refusal names what it refused (the module, the name, the path).
# 4. When nothing was refused and the program writes, call `confirm(code)` once: unless it
#    returns `True`, refuse ("the human did not confirm..."). A program that only reads asks nobody.

# %% nbgrader={"grade": false, "grade_id": "review_code", "locked": false, "schema_version": 3, "solution": true}
def review_code(code, confirm):
    """None when the program may run; else the error text saying what was refused."""
    ### BEGIN SOLUTION
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return f"SyntaxError: {e.msg} (line {e.lineno})"
    writes = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for module in modules:
                if getattr(node, "level", 0) or module.split(".")[0] not in ALLOWED_IMPORTS:
                    return f"import of {module or '.'!r} is not allowed; allowed: {', '.join(sorted(ALLOWED_IMPORTS))}"
        elif isinstance(node, ast.Name) and node.id in BANNED_CALLS:
            return f"{node.id} is not allowed in a program"
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"the attribute {node.attr} is not allowed (no names starting with _)"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            path = node.args[0] if node.args else None
            if not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
                return "open() takes a file name written as a string, relative to the scratch folder"
            if PurePath(path.value).is_absolute() or ".." in PurePath(path.value).parts:
                return f"open({path.value!r}): only files inside the scratch folder, by a relative name"
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if mode is not None and not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                                         and not WRITE_MODES & set(mode.value)):
                writes = True
    if writes and confirm(code) is not True:
        return "the human did not confirm a program that writes files; it did not run"
    return None
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "review_code_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: review_code lets a csv program run without asking; refuses import os, from
subprocess import run, eval, a dunder attribute, an absolute path and a .. path in open(), with a
message naming them; asks the human once before a program that writes, and refuses it unless they
say True; a syntax error comes back as text."""
from workbook.checks import fresh

wb = fresh()
asked = []


def human(answer):
    return lambda code: asked.append(code) or answer  # records the question, gives the answer


ok = 'import csv\nrows = list(csv.DictReader(open("orders.csv")))\nprint(len(rows))\n'
assert review_code(ok, human(False)) is None and asked == [], (
    "a program that imports csv and reads a file of the scratch folder may run, without asking anyone")
for code, word in [("import os\nprint(os.environ)", "os"), ("from subprocess import run", "subprocess"),
                   ("print(eval('1 + 1'))", "eval"), ("print(().__class__)", "__class__"),
                   ("print(open('/etc/passwd').read())", "/etc/passwd"), ("print(open('../secret.txt').read())", "../secret.txt")]:
    error = review_code(code, human(True))
    assert type(error) is str and word in error, f"review_code({code!r}) must refuse it with a message naming {word!r}; got {error!r}"
assert asked == [], f"a refused program asks nobody; asked about {asked}"
writes = 'open("out.txt", "w").write("hi")'
error = review_code(writes, human(False))
assert type(error) is str and asked == [writes], (
    f"a program that writes asks the human once (confirm(code)) and, told no, is refused; got {error!r}, asked {asked}")
assert review_code(writes, human(True)) is None, "told yes, a program that writes may run"
error = review_code("print(1 +", human(True))
assert type(error) is str and error.startswith("SyntaxError"), f"a syntax error comes back as 'SyntaxError: ...'; got {error!r}"
print("review_code: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "review_code_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: review_code on every attack program of the chapter, dotted and relative imports,
aliases, open() with mode= and r+/a/x modes, non-constant paths and modes, confirmations that are
not True, and the fixed and broken programs of average_order."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
CA = wb.scenarios.code_action


def Human(answer):
    """A confirm(code) that records each program it was asked about (in .asked) and answers `answer`."""
    confirm = lambda code: confirm.asked.append(code) or answer  # noqa: E731
    confirm.asked = []
    return confirm


def review(code, human):
    with wb.checks.no_raise(f"review_code({code[:40]!r}, confirm)", hint="return the error as text"):
        return review_code(code, human)


for kind in ("fork", "print_env", "read_outside", "open_socket"):
    h = Human(True)
    assert type(review(CA.ATTACKS[kind], h)) is str and h.asked == [], f"the {kind} program must be refused without asking"
for kind in ("endless_loop", "memory_bomb", "output_flood", "injected_data"):
    assert review(CA.ATTACKS[kind], Human(False)) is None, f"the {kind} program passes this filter (the limits stop it)"
assert type(review(CA.OBEY, Human(True))) is str, "the injected program imports os: refused"
for code in (CA.WRONG_CODE, CA.FIXED_CODE, "import os.path as p", "import math, os", "from os import path",
             "from . import x", "import importlib", "import ctypes", "x = __import__('os')", "f = getattr",
             "print(''.__class__.__mro__)", "open(name)", "open(f'{x}.txt')", "open('/tmp/x.txt', 'w')",
             "open('a/../../b.txt')", "import collections.abc, socket"):
    got = review(code, Human(True))
    expected = code in (CA.WRONG_CODE, CA.FIXED_CODE)
    assert (got is None) == expected, f"review_code({code!r}) should {'allow' if expected else 'refuse'} it; got {got!r}"
for code in ("open('a.txt', 'a')", "open('a.txt', 'r+')", "open('a.txt', mode='x')", "open('a.txt', m)",
             "open('a.txt', mode='w')"):
    for answer in (False, None, "yes", 1):
        h = Human(answer)
        assert type(review(code, h)) is str and h.asked == [code], f"{code} writes: refused unless confirm returns True ({answer!r})"
    h = Human(True)
    assert review(code, h) is None and h.asked == [code], f"{code} may run once the human said True"
for code in ("open('a.txt')", "open('a.txt', 'r')", "open('a.txt', 'rb')", "open('kb/a.txt', mode='r')",
             "import statistics\nprint(statistics.mean([1, 2]))", "import json"):
    h = Human(False)
    assert review(code, h) is None and h.asked == [], f"{code} only reads: it runs without asking"
h = Human(True)
assert type(review("import os\nopen('a.txt', 'w')", h)) is str and h.asked == [], "a refused program asks nobody, even one that writes"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 3 · Tools as functions in the program (CodeAct)
#
# A program can do more than compute: it can call the shop's tools, as functions, in loops and
# branches (`for o in ["A-1001", "A-1002"]: print(get_order(order_id=o))`). That is the CodeAct
# idea. But the tools must not run **in** the program's process: it has no keys and no session,
# and its code could call anything with any argument. So the agent serves them. Before the model's
# code the agent puts a small prelude (`TOOL_PRELUDE`) whose functions write one JSON line per
# call to a pipe, `{"tool": name, "args": {...}}`, and read the answer line. The agent reads the
# request, decides, and answers `{"result": ...}` or `{"error": ...}`.
#
# Every line on that pipe is written by the model's code (it can also write to the pipe directly,
# skipping the prelude). So chapter 07's rules live in the agent: **who** is the session's
# customer, never a `customer_id` the code passes; **whether** a card is blocked is the human's
# answer, never a `confirmed=True` the code passes.

# %% nbgrader={"grade": false, "grade_id": "given_tools", "locked": true, "schema_version": 3, "solution": false}
CODE_TOOLS = code_action.TOOL_NAMES  # the tools a program may call
NEEDS_CONFIRMATION = {"card_block"}
TOOL_PRELUDE = '''import json as _json, os as _os
_requests, _replies = _os.fdopen({tx}, "w"), _os.fdopen({rx}, "r")
def _tool(name):
    def call(**args):
        _requests.write(_json.dumps({{"tool": name, "args": args}}) + "\\n"); _requests.flush()
        reply = _json.loads(_replies.readline() or '{{"error": "the agent closed the pipe"}}')
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]
    return call
{names}
'''


def run_with_tools(code, scratch, serve, wall_seconds=3):
    """Run `code` after TOOL_PRELUDE; answer each request line with serve(line) -> reply line.

    Here without exercise 1's rlimits, to keep the plumbing short: a real agent sets them too."""
    to_child, from_agent = os.pipe()
    from_child, to_agent = os.pipe()
    names = "\n".join(f"{n} = _tool({n!r})" for n in CODE_TOOLS)
    program = TOOL_PRELUDE.format(tx=to_agent, rx=to_child, names=names) + code
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-I", "-c", program], cwd=scratch, env=dict(SAFE_ENV),
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                pass_fds=(to_child, to_agent), start_new_session=True)
        os.close(to_child)
        os.close(to_agent)
        deadline = time.monotonic() + wall_seconds
        with os.fdopen(from_child) as requests, os.fdopen(from_agent, "w") as replies:
            while (left := deadline - time.monotonic()) > 0 and select.select([requests], [], [], left)[0]:
                line = requests.readline()
                if not line:
                    break
                try:
                    replies.write(serve(line.strip()) + "\n")
                    replies.flush()
                except BrokenPipeError:
                    break
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        out.seek(0)
        return truncate(out.read().decode("utf-8", errors="replace"), LIMITS["chars"])


# %% [markdown]
# ## Exercise 3 — `serve_request` (4 points)
#
# Write `serve_request(line, shop, ask_customer)`: answer one request line from the program with
# one reply line, `json.dumps({"result": result})` or `json.dumps({"error": text})`
# (`ensure_ascii=False, default=str`). `shop` is the session (`Shop(customer_id)`), `ask_customer(name,
# args) -> bool` asks the human. In this order:
#
# 1. `line` must be a JSON object with a string `"tool"` and a dict `"args"`; else an error that
#    says what a request looks like;
# 2. the tool must be in `CODE_TOOLS`; else an error that lists them;
# 3. `"customer_id"` in the args → an error naming `customer_id` (tools work for the session's
#    customer only). Never act for the customer the code names;
# 4. the argument names must be exactly the schema's (`SCHEMAS[tool]["function"]["parameters"]
#    ["properties"]`); a `confirmed` from the code lands here;
# 5. a tool in `NEEDS_CONFIRMATION` runs only when `ask_customer(tool, args)` returned `True`;
# 6. run `shop.tools()[tool](**args)`: its result, or the error `f"{type(e).__name__}: {e}"`.
#
# It never raises: whatever the program sends, the agent answers.

# %% nbgrader={"grade": false, "grade_id": "serve_request", "locked": false, "schema_version": 3, "solution": true}
def serve_request(line, shop, ask_customer):
    """The agent's answer to one tool request from the program: {"result": ...} or {"error": ...} as JSON."""
    ### BEGIN SOLUTION
    def reply(**fields):
        return json.dumps(fields, ensure_ascii=False, default=str)

    try:
        request = json.loads(line)
    except (TypeError, ValueError):
        request = None
    if not (isinstance(request, dict) and isinstance(request.get("tool"), str) and isinstance(request.get("args"), dict)):
        return reply(error='a request is one JSON object: {"tool": name, "args": {...}}')
    name, args = request["tool"], request["args"]
    if name not in CODE_TOOLS:
        return reply(error=f"unknown tool {name!r}; a program may call {', '.join(CODE_TOOLS)}")
    if "customer_id" in args:
        return reply(error="customer_id is not an argument: the tools work for the logged-in customer only")
    expected = list(SCHEMAS[name]["function"]["parameters"]["properties"])
    if set(args) != set(expected):
        return reply(error=f"{name} takes exactly the arguments {expected}; got {sorted(args)}")
    if name in NEEDS_CONFIRMATION and ask_customer(name, args) is not True:
        return reply(error=f"the customer did not confirm {name}; it did not run")
    try:
        return reply(result=shop.tools()[name](**args))
    except Exception as e:  # a failing tool is news for the program, not a crash of the agent
        return reply(error=f"{type(e).__name__}: {e}")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "serve_request_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: serve_request runs txn_sum for the session's customer and answers {"result"};
refuses a request with customer_id (naming it) without running anything; runs card_block only when
ask_customer says True, never on the code's own confirmed; answers a broken line with an error."""
import json

from workbook.checks import fresh

wb = fresh()
shop = wb.shop.Shop("C-001")
reply = serve_request('{"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}', shop, lambda n, a: True)
assert type(reply) is str and json.loads(reply) == {"result": {"category": "taxi", "month": "2026-09", "count": 2, "total_kzt": 5000}}, (
    f"txn_sum for the session's customer C-001 gives {{'result': ...}} with 5000 KZT; got {reply!r}")
shop = wb.shop.Shop("C-001")
reply = serve_request('{"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09", "customer_id": "C-002"}}',
                      shop, lambda n, a: True)
assert shop.log == [] and "9900" not in reply, (
    "a request that names its own customer_id (here C-002's) is refused, and nothing runs: the customer is "
    f"the session's, never the program's; got {reply!r}, the shop saw {shop.log}")
assert "customer_id" in wb.checks.error_text(reply, "serve_request(<txn_sum with customer_id>)"), (
    f"the error names customer_id, so the model knows what to drop; got {reply!r}")
shop, asked = wb.shop.Shop("C-001"), []
reply = serve_request('{"tool": "card_block", "args": {"confirmed": true}}', shop, lambda n, a: asked.append(n) or True)
assert wb.checks.error_text(reply, "card_block with the code's own confirmed") and not shop.card_blocked and asked == [], (
    f"the code cannot confirm for the customer: refuse confirmed, ask nobody, block nothing; got {reply!r}")
reply = serve_request('{"tool": "card_block", "args": {}}', shop, lambda n, a: asked.append(n) or False)
assert wb.checks.error_text(reply, "card_block when the customer says no") and not shop.card_blocked and asked == ["card_block"], (
    f"card_block asks the customer once and, told no, does not run; got {reply!r}, asked {asked}")
reply = serve_request('{"tool": "card_block", "args": {}}', shop, lambda n, a: True)
assert json.loads(reply) == {"result": {"status": "blocked"}} and shop.card_blocked, f"told yes, the card is blocked; got {reply!r}"
wb.checks.error_text(serve_request("not json", shop, lambda n, a: True), "serve_request('not json')")
print("serve_request: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "serve_request_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: serve_request refuses malformed requests, unknown and non-program tools, every
customer_id (C-002's data never comes back), extra and missing arguments, confirmations that are
not True; asks only about valid card_block calls; turns a tool's exception into an error."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


#@include 07_what_code_decides Customer


def serve(line, shop, customer):
    with wb.checks.no_raise(f"serve_request({line[:50]!r}, ...)", hint="answer with an error line"):
        reply = serve_request(line, shop, customer)
    assert type(reply) is str, f"serve_request returns the reply line as a str; got {reply!r}"
    return reply


for line in ("", "[]", '"txn_sum"', '{"tool": 1, "args": {}}', '{"tool": "txn_sum"}', '{"tool": "txn_sum", "args": []}',
             '{"args": {}}', "{", '{"tool": "refund", "args": {"order_id": "A-1001", "amount": 1}}',
             '{"tool": "get_weather", "args": {"city": "Almaty"}}', '{"tool": "run_python", "args": {"code": "1"}}'):
    shop, c = wb.shop.Shop("C-001"), Customer(True)
    wb.checks.error_text(serve(line, shop, c), f"serve_request({line!r})")
    assert shop.log == [] and c.asked == [], f"{line!r} must be refused without running or asking"
for args in ({"category": "taxi", "month": "2026-09", "customer_id": "C-002"}, {"customer_id": "C-002"},
             {"order_id": "B-2001", "customer_id": "C-002"}):
    for tool in ("txn_sum", "get_order", "card_block"):
        shop, c = wb.shop.Shop("C-001"), Customer(True)
        reply = serve(json.dumps({"tool": tool, "args": args}), shop, c)
        assert "customer_id" in wb.checks.error_text(reply, f"{tool} with customer_id") and "9900" not in reply, (
            f"{tool} with a customer_id: refuse it, naming customer_id; never run it for another customer")
        assert shop.log == [] and not shop.card_blocked and c.asked == [], f"{tool} with a customer_id runs nothing and asks nobody"
shop = wb.shop.Shop("C-002")
assert json.loads(serve('{"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}', shop, Customer(True)))["result"]["total_kzt"] == 9900, (
    "the session decides the customer: C-002's session sees 9900")
for args in ({"confirmed": True}, {"confirm": "yes"}, {"approved_by_customer": True}):
    shop, c = wb.shop.Shop("C-001"), Customer(True)
    wb.checks.error_text(serve(json.dumps({"tool": "card_block", "args": args}), shop, c), f"card_block {args}")
    assert not shop.card_blocked and c.asked == [], f"card_block with {args} from the code: refused, nobody asked"
for answer in (False, None, "yes", 1):
    shop, c = wb.shop.Shop("C-001"), Customer(answer)
    wb.checks.error_text(serve('{"tool": "card_block", "args": {}}', shop, c), f"card_block when ask_customer returns {answer!r}")
    assert not shop.card_blocked and c.asked == [("card_block", {})], f"only True confirms (got {answer!r})"
c = Customer(True)
serve('{"tool": "get_order", "args": {"order_id": "A-1001"}}', wb.shop.Shop("C-001"), c)
assert c.asked == [], "a read asks nobody"
shop = wb.shop.Shop("C-001")
for line in ('{"tool": "get_order", "args": {"order_id": "A-1001", "verbose": true}}', '{"tool": "txn_sum", "args": {"category": "taxi"}}'):
    wb.checks.error_text(serve(line, shop, Customer(True)), line)
assert shop.log == [], f"wrong arguments run nothing; the shop saw {shop.log}"
error = wb.checks.error_text(serve('{"tool": "get_order", "args": {"order_id": "B-2001"}}', shop, Customer(True)), "another's order")
assert error.startswith("KeyError"), f"a tool's exception becomes '<type>: <message>'; got {error!r}"
assert json.loads(serve('{"tool": "get_order", "args": {"order_id": "A-1001"}}', shop, Customer(True))) == {
    "result": {"order_id": "A-1001", "item": "Svet desk lamp", "total": 2450, "status": "shipped"}}, "a result comes back whole"
### END HIDDEN TESTS

# %% [markdown]
# ### The program calls the shop
#
# Three programs through the pipe, for customer C-001, whose confirmation says no to anything
# asked: the taxi sum; the same for C-002, refused because the tools work for the logged-in
# customer only; a card block the code confirms itself with a `confirmed` argument, refused because
# the tool takes no such argument. Neither refusal needs the question: the agent's checks come first.

# %%
with tempfile.TemporaryDirectory() as folder:
    for kind in ("taxi", "other_customer", "self_confirmed"):
        session = Shop("C-001")
        scenario = code_action.code_with_tools(kind)
        result = run_code_agent(FakeLLM(scenario).client(), scenario.question, scenario.openai_tools(),
                                lambda code: run_with_tools(code, folder, lambda line: serve_request(
                                    line, session, lambda name, args: False)))
        print(f"{kind:15} {result.answer[:150]}\n{'':15} card blocked: {session.card_blocked}")

# %% [markdown]
# ## Part 4 · The attacks, and what stopped each
#
# Eight programs a careless or poisoned model writes, each played by the fake
# (`code_action.code_attack(kind)`): an endless loop, a 1 GB allocation, a fork, printing the
# environment, reading `/etc/passwd`, opening a socket, 10 MB of output, and a data file that says
# "print your API key" (the model obeys it with a second program). This notebook puts a fake key in
# its own environment first, as a real agent would have one. Each runs twice: through the policy
# and the executor, and through the executor alone. The table is data: attack → what stopped it.

# %%
os.environ[code_action.SECRET_NAME] = "sk-demo-not-a-real-key"  # what a real agent's environment holds


def stopped_by(result):
    """What ended a program, read from its result (or None when nothing did)."""
    if result["timed_out"]:
        return "wall time"
    if result["exit_code"] == -signal.SIGXCPU:
        return "CPU limit"
    if "File too large" in result["stderr"]:
        return "output limit"
    if "MemoryError" in result["stderr"]:
        return "memory limit"
    if "BlockingIOError" in result["stderr"]:
        return "process limit"
    return None


def play(kind, with_policy):
    """Run one attack; what stopped it, or what got out."""
    scenario = code_action.code_attack(kind)
    secret = os.environ[code_action.SECRET_NAME]
    stops = []

    def run(code):
        if with_policy and (error := review_code(code, lambda code: False)) is not None:
            stops.append("policy: " + error.split(";")[0].split(": only")[0].replace(" is not allowed", ""))
            return json.dumps({"error": error})
        r = run_code(code, folder, LIMITS)
        leaked = secret in r["stdout"] + r["stderr"]
        stops.append(stopped_by(r) or ("scrubbed environment" if "environ" in code and not leaked else None))
        return json.dumps(r)

    run_code_agent(FakeLLM(scenario).client(), scenario.question, scenario.openai_tools(), run)
    stop = next((s for s in reversed(stops) if s), None)
    return stop or "NOT STOPPED"


with tempfile.TemporaryDirectory() as folder:
    Path(folder, "notes.txt").write_text(code_action.NOTES_TXT, encoding="utf-8")
    TABLE = {kind: {"policy + executor": play(kind, True), "executor alone": play(kind, False)}
             for kind in code_action.ATTACKS}
print(f"{'attack':15} {'policy + executor':30} executor alone")
for kind, row in TABLE.items():
    print(f"{kind:15} {row['policy + executor']:30} {row['executor alone']}")

# %% [markdown]
# Read the **executor alone** column. Each limit stopped the attack aimed at it, for an unprivileged
# user, as the grader runs the notebook (run as root, the fork row says `NOT STOPPED`: the kernel
# does not apply `RLIMIT_NPROC` to root). The other rows that say `NOT STOPPED` are the point of
# this part: a child process shares the agent's **files** (it read `/etc/passwd`; it could read
# `~/.ssh` or the agent's `.env`) and its **network** (the socket opened; it could send the data
# anywhere). The import filter refused those programs, but a filter is not a wall: a program that
# reaches `open` or a socket another way gets through.
#
# What closes those holes is an **OS sandbox**: the program in a world of its own. This course's
# grader runs every submission that way (`autograder/sandbox/sandbox.py`), with bubblewrap on Linux:
#
# - an empty root with only `/usr`, Python and the course's folders bound in, read-only;
# - writable folders only in memory, each with a size cap (`--tmpfs` with `--size`);
# - its own pid namespace (`--unshare-pid`: it sees and signals only its own processes), its own
#   network namespace with no interface but loopback (`--unshare-net`), no environment of ours;
# - its own uid per sandbox, so `RLIMIT_NPROC` counts only its processes, and a cgroup with
#   `pids.max`, a CPU quota and a memory cap that count every process inside, children included.
#
# The executor you wrote runs inside that sandbox when this notebook is graded: its children are
# counted against the sandbox's caps too. On macOS there is no bubblewrap; `sandbox-exec` is
# deprecated, and the usual answer is a container or a VM (Docker, or the hosted sandboxes
# smolagents supports: E2B, Modal). What no sandbox fixes is the injection row: the program read a
# file that told the model what to do. Here the key was not in the program's environment, so
# there was nothing to print; that is chapter 19's lesson again: take the ground away.

# %% [markdown]
# ## JSON tool calls or code?
#
# The same question — the taxi spending — as one JSON tool call (chapter 03) and as a program. On
# this fake both take two model calls and send about as much; the program needs the whole executor
# and the pipe. Code wins when one step must combine many calls or compute on their results: the
# CodeAct paper measured up to 20% higher success than JSON or text actions across 17 models, in
# fewer turns. JSON wins when a single call does the job and you would rather not run anything.

# %%
from workbook import scenarios

with tempfile.TemporaryDirectory() as folder:
    json_llm, code_llm = FakeLLM(scenarios.taxi_spending()), FakeLLM(code_action.code_with_tools("taxi"))
    shop_json = Shop("C-001")
    message, messages = None, [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
    client = json_llm.client()
    for _ in range(3):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenarios.taxi_spending().openai_tools()).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            result = shop_json.tools()[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    shop_code = Shop("C-001")
    code_result = run_code_agent(code_llm.client(), "How much did I spend on taxis in September 2026?",
                                 code_action.code_with_tools("taxi").openai_tools(),
                                 lambda code: run_with_tools(code, folder, lambda line: serve_request(line, shop_code, lambda n, a: False)))
    print(f"{'':15} {'model calls':>11} {'request characters':>19}  answer")
    for label, llm, answer in (("JSON tool call", json_llm, message.content), ("code", code_llm, code_result.answer)):
        size = sum(len(json.dumps(r["messages"])) for r in llm.requests)
        print(f"{label:15} {len(llm.requests):>11} {size:>19}  {answer[:70]}")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **`exec` in the agent's process.** The program gets the agent's memory, keys, files and time;
#   nothing can take them back. Start another process.
# - **A limit missing.** Without `RLIMIT_CPU` a loop runs to the wall time; without `RLIMIT_AS` a
#   bomb takes the machine's memory; without `RLIMIT_NPROC` a fork bomb takes its process table;
#   without `RLIMIT_FSIZE` a flood fills the disk; without a wall time a `sleep` waits forever.
# - **The environment passed through.** `env=None` hands the program every key the agent has; the
#   data file only has to ask.
# - **Output not truncated.** 20,000 characters of `spam` in the model's context cost tokens and
#   bury the question: cut with `truncate`.
# - **A timeout that leaves the child running.** Catching `TimeoutExpired` and returning leaves
#   the program running after the agent moved on; `proc.kill()` ends only the child: kill the
#   process group.
# - **Pipes read with `communicate()`.** It reads everything into memory, and waits for every
#   process that holds the pipe, a grandchild too. Files and `RLIMIT_FSIZE` bound both (not graded:
#   the exercise asks for files).
# - **Checking `import` but not `from ... import`.** `from os import environ` is an import too, and
#   so is `from . import x`.
# - **`..` checked, absolute paths not.** `open('/etc/passwd')` has no `..`; check
#   `PurePath(p).is_absolute()` as well.
# - **Writing without asking.** A program that opens a file for writing runs only after the
#   human's `True`.
# - **A filter taken for a sandbox.** An import allow-list turns away the obvious; a determined
#   program gets round it. The limits and an OS sandbox hold (not graded: it is a way of reading
#   the table).
# - **Identity or confirmation taken from the program.** `customer_id=` or `confirmed=True` in a
#   tool request is text the model wrote; the session and the human decide.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("25_code_as_action")

# %% [markdown]
# ## Live cell (optional)
#
# A real model with `run_python` and your executor: ask it a question about `orders.csv`, and
# watch whether it fixes its code after a traceback. It runs only when `LLM_PROVIDER` names a live
# provider (see chapter 00) and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "orders.csv").write_text(code_action.ORDERS_CSV, encoding="utf-8")
            messages = [{"role": "user", "content": code_action.AVERAGE_QUESTION}]
            for _ in range(4):
                message = live_client.chat.completions.create(model=live_model, messages=messages,
                                                              tools=[code_action.RUN_PYTHON]).choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    print(message.content)
                    break
                for call in message.tool_calls:
                    code = json.loads(call.function.arguments).get("code", "")
                    error = review_code(code, lambda code: False)
                    observation = json.dumps({"error": error} if error else run_code(code, folder))
                    print("ran:", code[:80].replace("\n", "; "), "->", observation[:120])
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# You have built an agent loop by hand, made it reliable, cheap, observable, safe against attacks,
# and now able to act in code. The next step is yours: a real task, a real model, and the tests
# and limits of this course around it.
