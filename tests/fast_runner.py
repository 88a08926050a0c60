"""The gates' fast trusted runner: solutions, stubs and mutants are our own code, so they need no
sandbox. One process per chapter (forked from a template that has only imported this module:
tests/fast_template.py; a private HOME, /tmp and agent_files/out) runs the chapter's solved
notebook once in an IPython shell; where a variant's first code cell
differs from it, the process forks and the child runs the variant from that cell on, so the
prefix is never run twice. Test cells are graded as the grader grades them: by a judge
(autograder/judge/), forked for each run (the solved notebook's, and each variant's) by a zygote
branched for this chapter, while the notebook's shell only serves it (the grader's one line,
judge/cells.py). A test passes when the judge says its code ran to its end (autograder/pipeline/scoring.py's
rule); stderr is an event, not a loss (execute.py). So the fast runner is the grader's judge with an
unsandboxed kernel, and `make test-real` proves the two pipelines equal on every variant.

Limits are CPU time per cell and per notebook (`ITIMER_PROF`), with a wall backstop ten times the
cell limit for a cell that sleeps or blocks, and a parent that kills a child that stops reporting.
A variant is re-run from scratch when the prefix left threads running (a fork copies only one).
`python -m tests.fast_runner JOB OUT ZYGOTE` runs one chapter job (as a template's child does);
tests/fast_results.py runs them all and turns what they report into result records.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import secrets
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

from autograder import notebooks
from autograder.course import REPO
from autograder.judge.cells import ANOTHER, REPLAY, SERVE, replay_cells
from autograder.judge.process import command, request_judge
from autograder.judge.zygote import warm
from workbook.process_watch import adopt_orphans

BACKSTOP = 10  # wall seconds per CPU second of a cell's limit, for a cell that sleeps or blocks
EXERCISES: list[str] = []  # the chapter's exercise names: the only names its judges ask of the kernel
SLACK = 30  # more wall seconds before the parent kills a child that stopped reporting


class CellTimeoutError(KeyboardInterrupt):
    """A cell over its CPU (or wall backstop) limit, raised in it as the kernel's interrupt is."""


def cells_of(nb, source_nb) -> list[dict]:
    """The code cells as the grader runs them: test and locked cells from the source notebook."""
    given = {notebooks.nbmeta(c)["grade_id"]: c.source for c in source_nb.cells
             if notebooks.nbmeta(c).get("grade_id") and not notebooks.nbmeta(c).get("solution")}
    out = []
    for index, cell in enumerate(nb.cells):
        meta = notebooks.nbmeta(cell)
        grade_id = meta.get("grade_id")
        source = given.get(grade_id, cell.source) if grade_id and not meta.get("solution") else cell.source
        if cell.cell_type == "code" and source.strip():
            out.append({"index": index, "source": source, "grade_id": grade_id,
                        "graded": bool(meta.get("grade")), "hidden": "BEGIN HIDDEN TESTS" in source})
            if out[-1]["graded"] and ANOTHER in source:  # what another process runs, as the grader sends it
                out[-1]["replay"] = replay_cells(nb, index, source_nb)
    return out


def first_difference(cells: list[dict], base: list[dict]) -> int:
    """Where a variant's cells first differ from the solved notebook's: where its fork starts."""
    return next((i for i, (a, b) in enumerate(zip(cells, base, strict=False)) if a != b), min(len(cells), len(base)))


def through_last_test(cells: list[dict]) -> list[dict]:
    """The cells up to the last test cell: what runs after it (the quiz, a live cell, what to read
    next) cannot change a score, so a variant whose gates read scores only need not run it (about
    a second of CPU per mutant: the quiz imports its widgets in every fork)."""
    last = max((i for i, c in enumerate(cells) if c["graded"]), default=len(cells) - 1)
    return cells[:last + 1]


# ---------------------------------------------------------------- inside the chapter process


class _Stream:
    """sys.stdout/sys.stderr for the whole run: what a cell writes is counted against that cell."""

    encoding, errors = "utf-8", "replace"

    def __init__(self, name: str):
        self.name, self.text = name, ""

    def write(self, s) -> int:
        if len(self.text) < 2000:
            self.text += str(s)[:2000]
        return len(s)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 1 if self.name == "stdout" else 2

    def writable(self) -> bool:
        return True


def _on_timer(signum, frame):
    raise CellTimeoutError("cell over its CPU time limit" if signum == signal.SIGPROF else
                           "cell over its wall-clock backstop")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Judge:
    """The judge of one run, forked by the chapter's zygote; fed and read here with no thread (a
    thread would stop the next fork), as JudgeProcess does for the grader."""

    def __init__(self, control: socket.socket, root: Path, limit: float, exercises: list[str]):
        self.proc = request_judge(control)
        if self.proc is None:
            raise RuntimeError("the chapter's zygote made no judge")
        self.dir = Path(tempfile.mkdtemp(dir=root.parent))  # its scratch, and the socket the kernel calls
        self.socket, self.buffer, self.dead = str(self.dir / "judge.sock"), b"", ""
        self.send({"op": "start", "socket": self.socket, "kernel_pid": os.getpid(), "scratch": str(self.dir),
                   "cpu": limit, "wall": limit * BACKSTOP, "exercises": exercises, "replay": REPLAY})
        self.expect("started", 120)

    def send(self, msg: dict) -> None:
        command(self.proc, msg)

    def expect(self, op: str, timeout: float) -> dict:
        """The judge's next line, which must be `op`; its end (dead, silent) is remembered."""
        if self.dead:
            raise RuntimeError(f"the judge stopped earlier in this notebook ({self.dead})")
        fd, deadline = self.proc.stdout.fileno(), time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                self.dead = f"it did not answer in {timeout:g} s"
                self.proc.kill()
                raise RuntimeError(self.dead)
            chunk = os.read(fd, 65536)
            if not chunk:
                self.dead = "it ended before its verdict"
                raise RuntimeError(self.dead)
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("op") != op:
            self.dead = f"it said {msg.get('op')!r} for {op!r}"
            raise RuntimeError(self.dead)
        return msg

    def close(self) -> None:
        self.send({"op": "quit"})
        shutil.rmtree(self.dir, ignore_errors=True)


def _linked_threads_ended() -> None:
    """The link's reader thread ends once the judge hangs up: wait for it, so the next fork can."""
    for thread in threading.enumerate():
        if thread.name == "link-reader":
            thread.join(SLACK)


def run_cell(shell, cell: dict, limit: float, judge: Judge) -> dict:
    """Run one code cell as the grader does (a test cell: the judge runs it); what happened to it.
    A test that runs the notebook again sends what the grader sends (the cell's "replay")."""
    out, err = sys.stdout, sys.stderr
    out.text = err.text = ""
    graded = cell["graded"]
    if graded:
        token = secrets.token_hex(8)
        msg = {"op": "test", "grade_id": cell["grade_id"], "source": cell["source"], "hidden": cell["hidden"],
               "token": token}
        if ANOTHER in cell["source"]:
            msg["cells"] = cell["replay"]
        judge.send(msg)
        code, history = SERVE.format(path=judge.socket, token=token), False
    else:
        code, history = cell["source"], True
    started, wall = _cpu(), time.monotonic()
    # A test cell's own limit is the judge's (the kernel's and the judge's CPU): this one only ends
    # a kernel that the judge left busy after its verdict, as the grader's interrupt does.
    signal.setitimer(signal.ITIMER_PROF, limit * 2 + 1 if graded else limit)
    signal.setitimer(signal.ITIMER_REAL, limit * BACKSTOP)
    try:
        result = shell.run_cell(code, store_history=history)
    except CellTimeoutError as e:  # raised outside the cell's own code (IPython's bookkeeping)
        result = types.SimpleNamespace(error_before_exec=None, error_in_exec=e)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
    error = result.error_before_exec or result.error_in_exec
    step = {"index": cell["index"], "cpu": _cpu() - started, "stderr": err.text[:200] if graded else "",
            "timeout": isinstance(error, CellTimeoutError)}
    if graded:
        _linked_threads_ended()
        judge.send({"op": "cell_done"})
        try:
            verdict = judge.expect("result", limit * BACKSTOP + SLACK)
        except RuntimeError as e:
            verdict = {"passed": False, "ename": "JudgeError", "evalue": str(e)}
        step["timeout"] = step["timeout"] or verdict.get("timeout") is True
        step["cpu"] = max(step["cpu"], float(verdict.get("cpu") or 0))
        error = None if verdict.get("passed") else types.SimpleNamespace(
            name=str(verdict.get("ename") or "Error"), text=str(verdict.get("evalue", "")))
        step["ended"] = bool(verdict.get("passed"))
    else:
        step["ended"] = error is None
        if error is not None:
            error = types.SimpleNamespace(name=type(error).__name__, text=str(error))
    step["error"] = None if error is None else notebooks.first_error({"outputs": [
        {"output_type": "error", "ename": error.name, "evalue": error.text}]})
    step["wall"] = time.monotonic() - wall
    return step


def _restore(root: Path, snapshot: Path) -> None:
    for name in ("home", "tmp", "out"):
        shutil.rmtree(root / name, ignore_errors=True)
        shutil.copytree(snapshot / name, root / name, symlinks=True)


def _child(shell, cells: list[dict], start: int, limit: float, budget: float, w: int, root: Path,
           skip: frozenset = frozenset()) -> None:
    """In the forked child: run `cells[start:]` (a position in `skip` only says so), one JSON line
    per cell on fd `w`, then exit. Its test cells go to a judge of its own."""
    os.setpgid(0, 0)
    adopt_orphans()  # not inherited by a fork: the judge sees what this variant's code left running
    judge = Judge(CONTROL, root, limit, EXERCISES)
    for position, cell in enumerate(cells[start:], start):
        if budget <= 0:
            break
        if position in skip:
            os.write(w, (json.dumps({"index": cell["index"], "skipped": True}) + "\n").encode())
            continue
        step = run_cell(shell, cell, min(limit, budget), judge)
        budget -= step["cpu"]
        os.write(w, (json.dumps(step) + "\n").encode())
    os.write(w, b'{"done": true}\n')
    os._exit(0)


def fork_run(shell, cells, start, limit, budget, root: Path, skip=frozenset()) -> tuple[list[dict], str]:
    """Run a variant from `start` in a forked child; its steps and how it ended (ok | dead | hung)."""
    snapshot = Path(tempfile.mkdtemp(dir=root.parent))
    for name in ("home", "tmp", "out"):
        shutil.copytree(root / name, snapshot / name, symlinks=True)
    r, w = os.pipe()
    gc.freeze()  # the child's collections never walk (and so copy) the prefix's objects: ~15 % of its CPU
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _child(shell, cells, start, limit, budget, w, root, skip)
        finally:
            os._exit(1)
    os.close(w)
    steps, buffer, ending = [], b"", "dead"
    wait = limit * BACKSTOP + SLACK
    while True:
        ready, _, _ = select.select([r], [], [], wait)
        if not ready:
            ending = "hung"
            break
        chunk = os.read(r, 65536)
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            message = json.loads(line)
            if message.get("done"):
                ending = "ok"
            else:
                steps.append(message)
    os.close(r)
    for sig in (signal.SIGKILL,):  # the child and anything it started
        try:
            os.killpg(pid, sig)
        except OSError:
            pass
    os.waitpid(pid, 0)
    _restore(root, snapshot)
    shutil.rmtree(snapshot, ignore_errors=True)
    return steps, ending


def setup(root: Path):
    """A private HOME, /tmp and agent_files; a clean environment; an IPython shell as a kernel has."""
    for name in ("home", "tmp"):
        (root / name).mkdir(parents=True)
    shutil.copytree(REPO / "agent_files", root / "files", ignore=shutil.ignore_patterns("out", "__pycache__"))
    (root / "out").mkdir()
    (root / "files" / "out").symlink_to(root / "out")
    os.environ.clear()
    os.environ.update({"HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "LANG": "C.UTF-8",
                       "IPYTHONDIR": str(root / "home" / ".ipython"), "PYTHONDONTWRITEBYTECODE": "1",
                       "MPLCONFIGDIR": str(root / "tmp" / "matplotlib"),
                       "MPLBACKEND": "module://matplotlib_inline.backend_inline",
                       "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
                       "WORKBOOK_AGENT_FILES": str(root / "files")})
    tempfile.tempdir = None
    os.chdir(root / "home")
    adopt_orphans()  # as the sandbox's pid namespace does (workbook/process_watch.py)
    sys.stdout, sys.stderr = _Stream("stdout"), _Stream("stderr")
    signal.signal(signal.SIGPROF, _on_timer)
    signal.signal(signal.SIGALRM, _on_timer)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4096 * 2**20, hard))
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    # A cell's error is read from the exception (run_cell), never from its display: the plain
    # traceback costs ~0.1 s of CPU less than IPython's coloured, source-quoting one, per error.
    shell.InteractiveTB.set_mode(mode="Plain")
    import workbook.checks  # noqa: F401  (the guard imports it before any cell, so here too)

    return shell


# The SDKs' imports cost seconds of CPU (anthropic ~3 s): a chapter whose cells name one imports it
# before its first cell, once, so a variant forked before the cell that imports it need not; with
# the resources the SDK imports only when a client first uses them (`client.chat`, ~0.1 s a fork).
PRELOAD = {"openai": ("openai", "openai.resources.chat", "openai.resources.responses"),
           "anthropic": ("anthropic", "anthropic.resources.messages")}
CONTROL: socket.socket  # this chapter's zygote (the gates' worker branched it: fast_results.grade)


def preload(cells: list[dict]) -> None:
    text = "\n".join(c["source"] for c in cells)
    for name, modules in PRELOAD.items():
        if name in text:
            for module in modules:
                importlib.import_module(module)
    if any(name in text for name in PRELOAD):
        warm()  # the SDKs' first use, through a throwaway copy of the workbook, as the zygote does


def run_job(job: dict, out: Path) -> None:
    """Run one chapter: the base cells once, each variant forked where it first differs."""
    t0 = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix=f"fast-{job['chapter']}-")) / "run"
    shell = setup(root)
    base, variants = job["base"], job["variants"]
    preload(base)
    importlib.import_module("workbook.link.kernel_side")  # what the grader's line imports, once
    EXERCISES[:] = job["exercises"]  # the forked children's judges are told them too
    judge = Judge(CONTROL, root, job["base_limit"], EXERCISES)
    starts = {}
    for student, v in variants.items():
        cells = v["cells"]
        start = first_difference(cells, base)
        starts.setdefault(start, []).append(student)
    done, prefix = {}, []
    for i in range(len(base) + 1):
        for student in starts.get(i, []):
            v = variants[student]
            used = sum(s["cpu"] for s in prefix)
            slow = [s for s in prefix if s["cpu"] > v["cell_limit"]]
            if slow:
                done[student] = {"steps": prefix, "ending": "error", "message":
                                 f"cell {slow[0]['index']} of the solved notebook took {slow[0]['cpu']:.1f} s "
                                 f"of CPU, over this variant's {v['cell_limit']} s cell limit"}
            elif threading.active_count() > 1:
                done[student] = {"ending": "retry"}
            else:
                steps, ending = fork_run(shell, v["cells"], i, v["cell_limit"], v["notebook_limit"] - used, root,
                                         frozenset(v.get("skip", ())))
                done[student] = {"steps": prefix + steps, "ending": ending}
            with open(out, "a", encoding="utf-8") as f:
                f.write(json.dumps({"student": student, "at": round(time.monotonic() - t0, 2),
                                    "fork": i, **done[student]}) + "\n")
        if i < len(base):
            prefix.append(run_cell(shell, base[i], job["base_limit"], judge))
    judge.close()
    with open(out, "a", encoding="utf-8") as f:  # what a variant's skipped cells are given
        f.write(json.dumps({"base": True, "steps": prefix}) + "\n")
    shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    CONTROL = socket.socket(fileno=int(sys.argv[3]))
    run_job(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")), Path(sys.argv[2]))
