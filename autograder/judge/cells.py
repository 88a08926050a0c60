"""How `SafeExecute` grades a test cell with the judge: the kernel runs one line that serves the
judge, the judge runs the test's code, and the verdict is the judge's alone.

The cell's outputs become: what the student's code printed while the test called it (the
kernel's streams, stderr turned into stdout), what the test printed (the judge's), and, if the
test failed, one error written by the grader from the judge's verdict. Any error the kernel
reports about itself is dropped: it decides nothing.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nbformat.notebooknode import NotebookNode

from autograder import notebooks
from autograder.judge.process import JudgeProcess
from autograder.sandbox import sandbox
from autograder.sandbox.sandbox import SOCKETS, sandbox_pid

if TYPE_CHECKING:
    from jupyter_client.manager import KernelManager

SERVE = "__import__('workbook.link.kernel_side', fromlist=['serve']).serve({path!r}, {token!r})"
GRACE = 10.0  # seconds (wall) the kernel has to end its cell after the judge's verdict
SANDBOX_SOCKETS = str(SOCKETS)  # inside the sandbox: the small tmpfs that holds its sockets
ANOTHER = "another_process("  # a test that runs the notebook again (workbook.notebook_side, judge/another.py)
REPLAY = [sys.executable, "-m", "workbook.link.replay"]


def grace(verdict: dict) -> float:
    """Seconds (wall) the kernel has to end its cell once the judge's verdict is in: GRACE, but none
    for a test the judge stopped for its time, whose kernel is still in the student's code (a loop
    burning CPU for GRACE seconds, twice a cell in a class of such notebooks)."""
    return 0.0 if verdict.get("timeout") is True else GRACE


def replay_cells(nb: NotebookNode, index: int, source: NotebookNode | None) -> list[str]:
    """What another process runs before test cell `index`: the chapter's own code cells up to that
    test (the course's `source` notebook: given code as the course wrote it), each answer cell with
    the notebook's answer (the first cell of its grade_id). Cells the notebook added and its edits of
    given code are left out: such a cell could undo in advance what makes the process another (freeze
    the clock, replace `hash()`; red team, issue 44). Without a source: the notebook's answers only."""
    answers: dict[str, str] = {}
    for cell in nb.cells:
        meta = notebooks.nbmeta(cell)
        if cell.cell_type == "code" and meta.get("solution") and meta.get("grade_id"):
            answers.setdefault(meta["grade_id"], cell.source)
    target = notebooks.nbmeta(nb.cells[index]).get("grade_id")
    out = []
    for cell in source.cells if source is not None else []:
        meta = notebooks.nbmeta(cell)
        if target is not None and meta.get("grade_id") == target:
            break
        if cell.cell_type != "code" or notebooks.is_test(cell):
            continue
        out.append(answers.get(meta["grade_id"], "") if meta.get("solution") else cell.source)
    return out if source is not None else list(answers.values())


class JudgedCells:
    """Mixin for SafeExecute: test cells judged out of process."""

    if TYPE_CHECKING:  # what the mixin reads of SafeExecute (nbclient's NotebookClient and execute.py)
        km: KernelManager | None
        nb: NotebookNode
        _sandbox: sandbox.Sandbox | None
        timeout: int  # nbgrader's Execute: 30 s unless configured
        cell_cpu: int
        _timed_out: dict[int, bool]
        _timed_out_why: str

        def execute_cell(self, cell: NotebookNode, cell_index: int, execution_count: int | None = None,
                         store_history: bool = True) -> NotebookNode: ...

    def _judge_setup(self, on: bool, exercises: Sequence[str] = (), source: NotebookNode | None = None) -> None:
        self._spawned = JudgeProcess() if on else None  # it imports while the kernel starts
        self._exercises = list(exercises)
        self._source_nb = source  # the course's notebook: what another process runs (replay_cells)
        self._judge: JudgeProcess | None = None
        self._judged: dict[str, bool] = {}
        self._judge_dir: str | None = None
        self._replay_box: sandbox.Sandbox | None = None

    def _judge_start(self) -> JudgeProcess:
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        root = process.pid if process is not None else None
        pid = sandbox_pid(self.km)
        # The judge's own temporary files, wherever TMPDIR says; a sandboxed kernel's folders are made
        # in its own /tmp, on request (judge/files.py).
        self._judge_dir = tempfile.mkdtemp(prefix="agentloop-judge-")
        if pid is not None:
            host = f"/proc/{pid}/root{SANDBOX_SOCKETS}/judge.sock"
            self._kernel_socket = f"{SANDBOX_SOCKETS}/judge.sock"
        else:
            host = self._kernel_socket = os.path.join(self._judge_dir, "judge.sock")
        cpu = float(self.cell_cpu or self.timeout)
        judge, self._spawned = self._spawned or JudgeProcess(), None
        judge.start(host, root, self._judge_dir, cpu=cpu, wall=float(self.timeout),
                    kernel_root=f"/proc/{pid}/root" if pid is not None else None, exercises=self._exercises,
                    replay=self._replay_argv(cpu))
        return judge  # the judge binds the socket 0777 (runner.py): no chmod of a path here

    def _replay_argv(self, cpu: float) -> list[str]:
        """How the judge runs this notebook again (judge/another.py): in a sandbox of its own, as the
        kernel is, when the kernel is; nothing when no test of the notebook asks for it."""
        if not any(c.cell_type == "code" and notebooks.is_test(c) and ANOTHER in c.source for c in self.nb.cells):
            return []
        kernel_box = getattr(self, "_sandbox", None)
        if kernel_box is None:
            return list(REPLAY)
        limits = sandbox.SandboxLimits(memory_mb=kernel_box.limits.memory_mb, cpu_seconds=int(getattr(self, "notebook_timeout", cpu)) + 1)
        self._replay_box = sandbox.Sandbox(hidden=kernel_box.hidden, limits=limits)
        return self._replay_box.command(list(REPLAY))

    def _judge_close(self) -> None:
        spawned: JudgeProcess | None = getattr(self, "_spawned", None)
        if spawned is not None:
            spawned.close()
            self._spawned = None
        judge: JudgeProcess | None = getattr(self, "_judge", None)
        if judge is not None:
            judge.close()
            self._judge = None
        judge_dir: str | None = getattr(self, "_judge_dir", None)
        if judge_dir:
            sandbox.remove_tree(judge_dir)
        box: sandbox.Sandbox | None = getattr(self, "_replay_box", None)
        if box is not None:
            box.close()
            self._replay_box = None

    def _interrupt_kernel(self) -> None:
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None:
            try:
                os.killpg(os.getpgid(process.pid), signal.SIGINT)
            except OSError:
                pass

    def _judge_test_cell(self, cell: NotebookNode, index: int, hidden: bool) -> NotebookNode:
        if self._judge is None:
            self._judge = self._judge_start()
        judge = self._judge  # for the watcher thread (mypy does not carry the narrowing into it)
        original, grade_id = cell.source, cell.metadata["nbgrader"]["grade_id"]
        token = secrets.token_hex(8)
        self._judge.test(grade_id, original, hidden, token,
                         cells=replay_cells(self.nb, index, self._source_nb) if ANOTHER in original else None)
        verdict: dict[str, Any] = {}
        finished = threading.Event()

        def watch() -> None:
            try:
                verdict.update(judge.result(timeout=float(self.timeout) + 60))
            except RuntimeError as e:
                verdict.update(passed=False, ename="JudgeError", evalue=str(e))
            if not finished.wait(grace(verdict)):
                self._interrupt_kernel()  # the verdict is in: the kernel's cell must end

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        cell.source = SERVE.format(path=self._kernel_socket, token=token)
        try:
            cell = self.execute_cell(cell, index, store_history=False)
        finally:
            cell.source = original
            finished.set()
            self._judge.cell_done()
            watcher.join(float(self.timeout) + 90)
        if not verdict:
            verdict = {"passed": False, "ename": "JudgeError", "evalue": "the judge gave no verdict"}
        self._judged[grade_id] = bool(verdict.get("passed"))
        if verdict.get("timeout") is True:  # the judge stopped it: a timeout, whatever the kernel did after
            self._timed_out[index] = True
            self._timed_out_why = str(verdict.get("evalue", ""))[:200]
        outputs = [o for o in cell.outputs if o.get("output_type") == "stream"]
        if verdict.get("stdout"):
            outputs.append(NotebookNode(output_type="stream", name="stdout", text=verdict["stdout"]))
        if not verdict.get("passed"):
            ename, evalue = str(verdict.get("ename") or "Error"), str(verdict.get("evalue", ""))
            frames = [str(f) for f in verdict.get("traceback", [])]
            outputs.append(NotebookNode(output_type="error", ename=ename, evalue=evalue,
                                        traceback=frames + [f"{ename}: {evalue}"]))
        cell.outputs = outputs
        return cell

