"""nbgrader's Execute, hardened: a sandboxed kernel, test cells graded by the judge outside it, a
time limit per cell and per notebook, no silent zero, no stderr penalty, bounded outputs."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from nbgrader.utils import is_grade
from traitlets import Bool, Integer, List, Unicode

from autograder import notebooks
from autograder.sandbox import caps, kernel_limits, sandbox
from autograder.course import AutograderError
from autograder.judge.cells import JudgedCells
from autograder.judge.watch import CpuWatch, NotebookWatch
from autograder.pipeline.feedback_filter import HIDDEN
from workbook import test_cells

LIMITS_FILE = Path(kernel_limits.__file__)  # sent to the kernel as source, never imported there
TIMEOUT_ENAME = "CellTimeoutError"
NOT_RUN_ENAME = "CellNotRun"


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An error output as nbgrader scores it: any error output makes a test cell worth 0."""
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


class SafeExecute(JudgedCells, Execute):
    """Execute that survives hostile notebooks and records what happened in the notebook metadata.

    - a cell over `timeout` is interrupted (the rest still runs); one that ignores the interrupt,
      a dead kernel (`os._exit`, a crash, out of memory) or a notebook over `notebook_timeout`
      (CPU seconds of the sandbox, the clock as a backstop: NotebookWatch)
      stops the run, and every later test cell gets an explicit "not run" error, never a free pass;
    - stderr in a test cell becomes stdout (nbgrader would score the cell 0 for a warning);
    - output beyond `output_chars` per cell is dropped as it arrives;
    - when grading, a test cell never runs in the kernel: the judge runs it (judge/cells.py), and
      its verdict alone scores the cell (`judge=False`, for `check`: in the kernel, as Run All);
    - before the first cell the kernel gets its limits (kernel_limits.py).
    """

    notebook_timeout = Integer(300, help="CPU seconds for the whole notebook (the clock: x WALL_FACTOR)").tag(config=True)
    output_chars = Integer(100_000, help="characters of output kept per cell").tag(config=True)
    memory_mb = Integer(4096, help="address-space limit of the kernel in MB (0: none)").tag(config=True)
    private_paths = List(Unicode(), help="folders the kernel may not read").tag(config=True)
    sandbox = Unicode("none", help="auto | bwrap | none: the kernel's OS sandbox").tag(config=True)
    hidden_paths = List(Unicode(), help="folders the sandboxed kernel cannot see at all").tag(config=True)
    judge = Bool(True, help="grade test cells in the judge (False: in the kernel, as Run All does; "
                 "`check`, a student's own run)").tag(config=True)
    cell_cpu = Integer(0, help="CPU seconds per cell (0: the cell timeout)").tag(config=True)
    source_directory = Unicode("", help="the course's source folder: a chapter's exercise names are read "
                               "from its notebook there (the only names a judged test asks of the kernel)"
                               ).tag(config=True)
    shutdown_kernel = Unicode("immediate")  # a busy kernel is killed, not waited for

    async def async_start_new_kernel(self, **kwargs):
        # The kernel's own stdout/stderr (os.write(2, ...), launcher warnings) stay out of the
        # instructor's terminal; everything a cell prints still reaches the notebook over ZMQ.
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        if self.judge:  # graded, a test cell never runs in the kernel: no hook for one (workbook/test_cells.py)
            kwargs["env"] = {**(kwargs.get("env") or os.environ), test_cells.OFF: "0"}
        return await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", caps.CappedKernelManager)  # no message part over caps.MAX_MESSAGE
        super().__init__(*args, **kwargs)

    def create_kernel_manager(self):
        if sandbox.resolve(self.sandbox) != "bwrap":
            return super().create_kernel_manager()
        self._sandbox = sandbox.Sandbox(hidden=[Path(p) for p in self.hidden_paths + self.private_paths],
                                        limits=sandbox.SandboxLimits(memory_mb=self.memory_mb or 4096))
        kernel_name = self.kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "python3")
        self.km = sandbox.kernel_manager(self._sandbox, kernel_name, self.config)
        return self.km

    def preprocess(self, nb, resources=None, km=None):
        self._events: list[dict] = []
        self._stopped: str | None = None
        self._limited = False
        self._sandbox = None
        source = self._source_notebook(resources)
        self._judge_setup(self.judge, notebooks.exercise_names(source) if source is not None else [], source)
        self._timed_out: dict[int, bool] = {}
        self._timed_out_why = ""
        self._current_index = -1
        self._deadline_hit = False
        self._started = time.monotonic()
        self._watch = NotebookWatch(self.notebook_timeout, self._kernel_process, self._kill_at_deadline,
                                    float(self.cell_cpu or self.timeout), lambda: self._current_index,
                                    self._judge_pid)
        try:
            return super().preprocess(nb, resources, km)
        except DeadKernelError:  # killed at the limit before its first cell (a kernel slow to start)
            if not self._deadline_hit:
                raise
            self._stop_at_deadline(nb)
            return nb, self.resources
        finally:
            self._watch.stop()
            try:
                self._judge_close()
            finally:  # whatever the judge's folder held, the sandbox and its cgroups go
                nb.metadata["autograder"] = self.summary()
                if self._sandbox is not None:
                    self._sandbox.close()

    def _source_notebook(self, resources):
        """The course's own notebook of this chapter (never the submission's): its exercise names
        are the only names a test reaches, and its code cells what another process runs. None when
        it cannot be read: a test then reaches no name of the notebook at all."""
        info = (resources or {}).get("nbgrader", {})
        assignment, notebook = str(info.get("assignment", "")), str(info.get("notebook", ""))
        if not (self.source_directory and assignment and notebook):
            return None
        try:
            return notebooks.read(Path(self.source_directory) / assignment / f"{notebook}.ipynb")
        except AutograderError:
            return None

    def _kernel_process(self):
        """The sandbox's first process (bubblewrap, or the kernel itself without a sandbox), once started."""
        return getattr(getattr(getattr(self, "km", None), "provisioner", None), "process", None)

    def _judge_pid(self) -> int | None:
        """The judge's process (a kernel serving a test waits on it), once there is one."""
        judge = getattr(self, "_judge", None) or getattr(self, "_spawned", None)
        return getattr(getattr(judge, "proc", None), "pid", None)

    def _kill_at_deadline(self) -> bool:
        """Not silence: a kernel that floods its channels still stops at the limit. True once killed."""
        self._deadline_hit = True
        process = self._kernel_process()
        if process is None:
            return False
        try:
            process.kill()  # bubblewrap: everything in the sandbox dies with it
        except OSError:
            pass
        return True

    def _stop_at_deadline(self, nb) -> None:
        """The kernel was stopped before any cell ran: every test cell is marked not run."""
        self._stopped = self._watch.why
        self._events.append({"kind": "notebook_timeout", "cell": 0, "grade_id": None,
                             "detail": self._stopped + " and was stopped"})
        for cell in nb.cells:
            if cell.cell_type == "code" and is_grade(cell):
                cell.outputs = [error_output(NOT_RUN_ENAME, f"not run: {self._stopped}")]

    def summary(self) -> dict:
        """What happened while the notebook ran: status, events, the tests the judge passed, seconds."""
        kinds = {e["kind"] for e in self._events}
        status = ("dead_kernel" if "dead_kernel" in kinds else
                  "timeout" if kinds & {"timeout", "unresponsive", "notebook_timeout"} else "ok")
        ended = [g for g, ok in self._judged.items() if ok]
        return {"status": status, "events": self._events, "ended": ended, "sandbox": self.sandbox,
                "sandbox_world": self._sandbox.describe() if self._sandbox is not None else "",
                "seconds": round(time.monotonic() - self._started, 2)}

    def _event(self, kind: str, cell, index: int, detail: str = "") -> None:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id") if is_grade(cell) else None
        self._events.append({"kind": kind, "cell": index, "grade_id": grade_id, "detail": detail})

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell, resources
        graded = is_grade(cell)
        self._current_index = index
        if not self._stopped and self._deadline_hit:
            self._stopped = self._watch.why
            self._event("notebook_timeout", cell, index, self._stopped)
        if self._stopped:
            cell.outputs = [error_output(NOT_RUN_ENAME, f"not run: {self._stopped}")] if graded else []
            return cell, resources
        try:
            if not self._limited:
                self._install_limits()
            if graded and self.judge:  # the judge decides; the kernel only serves it
                cell = self._judge_test_cell(cell, index, bool(HIDDEN.search(cell.source)))
            else:
                self._check_assign_resources(resources)
                cell = self._run_cell_under_cpu_limit(cell, index)
                if graded and not any(o.get("output_type") == "error" for o in cell.outputs):
                    self._judged[cell.metadata["nbgrader"]["grade_id"]] = True  # a student's own run
            resources = self.resources
        except DeadKernelError:
            if self._deadline_hit:
                self._stopped = self._watch.why
                self._event("notebook_timeout", cell, index, self._stopped + " and was stopped")
                cell.outputs.append(error_output(TIMEOUT_ENAME, self._stopped))
            else:
                self._stopped = f"the kernel died while running cell {index} (os._exit, a crash or out of memory)"
                self._event("dead_kernel", cell, index, self._stopped)
                cell.outputs.append(error_output("DeadKernelError", self._stopped))
        except CellTimeoutError:
            self._stopped = f"cell {index} ignored the interrupt after {self.timeout} s"
            self._event("unresponsive", cell, index, self._stopped)
            cell.outputs.append(error_output(TIMEOUT_ENAME, self._stopped))
        else:  # the grader's own records say so, never an output's name (a student can raise anything)
            if self._timed_out.pop(index, None):
                self._event("timeout", cell, index, self._timed_out_why)
        if graded:
            self._quiet_stderr(cell, index)
        return cell, resources

    async def _async_handle_timeout(self, timeout, cell=None):
        """nbclient's wall-clock limit (the backstop): recorded by the grader itself."""
        self._timed_out[self._current_index] = True
        self._timed_out_why = f"interrupted after {timeout} s by the clock"
        return await super()._async_handle_timeout(timeout, cell)

    def _run_cell_under_cpu_limit(self, cell, index: int):
        """A student's cell: interrupted once its sandbox used `cell_cpu` s of CPU, or waited
        `cell_cpu` + IDLE_GRACE s using none (watch.py; locked cells, the course's own setup and
        imports, only have the notebook's limits)."""
        locked = cell.metadata.get("nbgrader", {}).get("locked", False)
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        limit = 0 if locked else float(self.cell_cpu)
        watch = CpuWatch(process.pid if process is not None else None, limit, self._interrupt_kernel)
        try:
            cell = self.execute_cell(cell, index, store_history=True)
        finally:
            if watch.stop():
                self._timed_out[index] = True
                self._timed_out_why = watch.why
        return cell

    def _quiet_stderr(self, cell, index: int) -> None:
        """nbgrader gives 0 to a test cell with any stderr output: keep the text, as stdout."""
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                output.name = "stdout"
                if not any(e["kind"] == "stderr" and e["cell"] == index for e in self._events):
                    self._event("stderr", cell, index, output.text[:200])

    def _update_display_id(self, display_id, msg):
        """Never: an update by display id would rewrite outputs of earlier cells (after the cap was
        counted, and around the feedback's withholding, which goes by cell)."""

    def output(self, outs, msg, display_id, cell_index):
        """Every output is cut field by field and charged to its cell (`output_chars`, as bytes)
        and to the notebook (caps.py); past a cap the cell gets one marker. A cell's first error
        is always kept (it decides the score), cut short once the cell is over its limit."""
        if getattr(self, "_caps_nb", None) is not self.nb:  # a fresh ledger per notebook
            self._caps, self._caps_nb = caps.Ledger(cell_bytes=self.output_chars), self.nb
        kept, marker = self._caps.admit(cell_index, msg["msg_type"], msg.get("content"), len(outs))
        out = None if kept is None else super().output(outs, {**msg, "content": kept}, display_id, cell_index)
        if marker:
            outs.append(NotebookNode(output_type="stream", name="stdout", text=marker))
        return out

    def on_cell_executed(self, **kwargs):
        """nbgrader copies the reply's error into the cell when no output has its name: cut it too."""
        reply = kwargs.get("execute_reply") or {}
        if reply.get("content", {}).get("status") == "error":
            content = caps.reply_error(reply["content"], kwargs["cell"].outputs)
            kwargs["execute_reply"] = {**reply, "content": content}
        return super().on_cell_executed(**kwargs)

    def _install_limits(self) -> None:
        """Before the submission's first cell: the kernel's memory limit and read protection
        (kernel_limits.py; its source travels in the request, as the kernel cannot see autograder/)."""
        self._limited = True
        code = (
            "_m = __import__('types').ModuleType('__autograder_limits__')\n"
            f"exec(compile({LIMITS_FILE.read_text(encoding='utf-8')!r}, '<autograder limits>', 'exec'), _m.__dict__)\n"
            f"_m.install({list(self.private_paths)!r}, {self.memory_mb})\n"
            "del _m\n")
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False)
        reply = self.wait_for_reply(msg_id)
        if reply is None or reply["content"]["status"] != "ok":
            content = (reply or {}).get("content", {})
            raise RuntimeError(f"could not set up the grading kernel: {content.get('ename')}: {content.get('evalue')}")
        sandbox.seal_sockets(self.km)  # before the submission's first cell
