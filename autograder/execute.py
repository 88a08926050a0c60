"""nbgrader's Execute, hardened: a sandboxed kernel, a wall-clock deadline, test cells that prove
they ran to the end, no silent zero, no stderr penalty, a guard per test cell."""

from __future__ import annotations

import ast
import re
import secrets
import subprocess
import threading
import time
from pathlib import Path

from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from nbgrader.utils import is_grade
from traitlets import Bool, Integer, List, Unicode

from autograder import caps, proof, sandbox
from autograder.judge.cells import JudgedCells
from autograder.judge.watch import CpuWatch
from autograder.feedback_filter import HIDDEN

GUARD_FILE = Path(__file__).with_name("kernel_guard.py")
TIMEOUT_ENAME = "CellTimeoutError"
NOT_RUN_ENAME = "CellNotRun"


def _package_dir() -> str:
    import workbook.checks

    return str(workbook.checks.PACKAGE_DIR)


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An error output as nbgrader scores it: any error output makes a test cell worth 0."""
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


NOTE = re.compile(r"^[\w.\[\]'\"()/ :,-]{1,160}$")


def _checked_notes(text: str) -> list[str]:
    """The guard's report, read as data; anything that does not look like one is itself tampering
    (a student can reach the guard and make it say anything, markdown and HTML included)."""
    try:
        notes = ast.literal_eval(text[:20_000])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        notes = None
    if type(notes) is not list or not all(type(n) is str and NOTE.match(n) for n in notes):
        return ["the guard's report was tampered with"]
    return notes[:50]


class SafeExecute(JudgedCells, Execute):
    """Execute that survives hostile notebooks and records what happened in the notebook metadata.

    - a cell over `timeout` is interrupted (the rest still runs); one that ignores the interrupt,
      a dead kernel (`os._exit`, a crash, out of memory) or a notebook over `notebook_timeout`
      stops the run, and every later test cell gets an explicit "not run" error, never a free pass;
    - stderr in a test cell becomes stdout (nbgrader would score the cell 0 for a warning);
    - output beyond `output_chars` per cell is dropped as it arrives;
    - before each test cell, the kernel guard restores what the tests rely on (kernel_guard.py).
    """

    notebook_timeout = Integer(300, help="seconds for the whole notebook").tag(config=True)
    output_chars = Integer(100_000, help="characters of output kept per cell").tag(config=True)
    memory_mb = Integer(4096, help="address-space limit of the kernel in MB (0: none)").tag(config=True)
    guard = Bool(True, help="run the kernel guard before each test cell").tag(config=True)
    private_paths = List(Unicode(), help="folders the kernel may not read").tag(config=True)
    sandbox = Unicode("none", help="auto | bwrap | none: the kernel's OS sandbox").tag(config=True)
    hidden_paths = List(Unicode(), help="folders the sandboxed kernel cannot see at all").tag(config=True)
    judge = Bool(False, help="grade test cells in the judge, outside the kernel").tag(config=True)
    unjudged = List(Unicode(), help="chapters still graded in the kernel").tag(config=True)
    cell_cpu = Integer(0, help="CPU seconds per cell (0: the cell timeout)").tag(config=True)
    shutdown_kernel = Unicode("immediate")  # a busy kernel is killed, not waited for

    async def async_start_new_kernel(self, **kwargs):
        # The kernel's own stdout/stderr (os.write(2, ...), launcher warnings) stay out of the
        # instructor's terminal; everything a cell prints still reaches the notebook over ZMQ.
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        return await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

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
        self._tamper: list[str] = []
        self._ended: list[str] = []
        self._stopped: str | None = None
        self._guard_name: str | None = None
        self._sandbox = None
        chapter = (resources or {}).get("nbgrader", {}).get("assignment", "")
        self._judge_on = bool(self.judge) and chapter not in self.unjudged
        self._judge_setup(self._judge_on)
        self._timed_out: dict[int, bool] = {}
        self._timed_out_why = ""
        self._current_index = -1
        self._deadline_hit = False
        self._started = time.monotonic()
        watchdog = threading.Timer(self.notebook_timeout, self._kill_at_deadline)
        watchdog.daemon = True
        watchdog.start()
        try:
            return super().preprocess(nb, resources, km)
        finally:
            watchdog.cancel()
            self._judge_close()
            nb.metadata["autograder"] = self.summary()
            if self._sandbox is not None:
                self._sandbox.close()

    def _kill_at_deadline(self) -> None:
        """Wall clock, not silence: a kernel that floods its channels still stops at the limit."""
        self._deadline_hit = True
        process = getattr(getattr(getattr(self, "km", None), "provisioner", None), "process", None)
        if process is not None:
            try:
                process.kill()  # bubblewrap: everything in the sandbox dies with it
            except OSError:
                pass

    def summary(self) -> dict:
        """What happened while the notebook ran: status, events, tamper notes, seconds."""
        kinds = {e["kind"] for e in self._events}
        status = ("dead_kernel" if "dead_kernel" in kinds else
                  "timeout" if kinds & {"timeout", "unresponsive", "notebook_timeout"} else "ok")
        ended = [g for g, ok in self._judged.items() if ok] if self._judge_on else self._ended
        return {"status": status, "events": self._events, "tamper": sorted(set(self._tamper)),
                "ended": ended, "judge": self._judge_on, "sandbox": self.sandbox,
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
        if not self._stopped and time.monotonic() - self._started > self.notebook_timeout:
            self._stopped = f"the notebook ran longer than {self.notebook_timeout} s"
            self._event("notebook_timeout", cell, index, self._stopped)
        if self._stopped:
            cell.outputs = [error_output(NOT_RUN_ENAME, f"not run: {self._stopped}")] if graded else []
            return cell, resources
        try:
            if self._judge_on and graded:  # the judge decides; the kernel only serves it
                cell = self._judge_test_cell(cell, index, bool(HIDDEN.search(cell.source)))
            elif graded:
                if self._guard_name is None:
                    self._install()
                if self.guard:
                    self._run_guard()
                cell = self._run_cell_under_cpu_limit(cell, index, self._run_test_cell)
            else:
                if self._guard_name is None and not self._judge_on:
                    self._install()
                self._check_assign_resources(resources)
                cell = self._run_cell_under_cpu_limit(cell, index)
            resources = self.resources
        except DeadKernelError:
            if self._deadline_hit:
                self._stopped = f"the notebook ran longer than {self.notebook_timeout} s"
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

    def _run_cell_under_cpu_limit(self, cell, index: int, run=None):
        """A student's cell: interrupted once its sandbox used `cell_cpu` s of CPU (locked cells,
        the course's own setup and imports, only have the notebook's limit)."""
        locked = cell.metadata.get("nbgrader", {}).get("locked", False)
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        limit = 0 if locked else float(self.cell_cpu)
        watch = CpuWatch(process.pid if process is not None else None, limit, self._interrupt_kernel)
        try:
            cell = run(cell, index) if run else self.execute_cell(cell, index, store_history=True)
        finally:
            if watch.stop():
                self._timed_out[index] = True
                self._timed_out_why = f"interrupted after {limit:g} s of CPU time"
        return cell

    def _run_test_cell(self, cell, index: int):
        """Run a test cell as the grader wrote it; record whether its code returned."""
        original, grade_id = cell.source, cell.metadata["nbgrader"]["grade_id"]
        hidden = bool(HIDDEN.search(original))
        wrapped = proof.wrap(original, grade_id, hidden, self._token)
        cell.source = wrapped.code
        try:
            cell = self.execute_cell(cell, index, store_history=False)
        finally:
            cell.source = original
        for output in cell.outputs:  # the wrapper and the runner are the grader's business
            if output.get("output_type") == "error":
                output.traceback = [t for t in output.traceback
                                    if proof.MARK not in t and "<autograder guard>" not in t]
        reply = self._silent(proof.FORGET_HIDDEN if hidden else "",
                             proof=proof.read_expression(wrapped, self._token))
        if proof.ended(reply.get("user_expressions", {})):
            self._ended.append(grade_id)
        elif not any(o.get("output_type") == "error" for o in cell.outputs):
            self._tamper.append(f"test cell {grade_id} did not reach its last line (skipped or rewritten)")
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

    # -- the kernel guard -----------------------------------------------------------------------

    def _silent(self, code: str, **user_expressions) -> dict:
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False,
                                 user_expressions=user_expressions)
        reply = self.wait_for_reply(msg_id)
        if reply is None:
            raise CellTimeoutError("the grader's guard did not answer")
        return reply["content"]

    def _install(self) -> None:
        token = self._token = secrets.token_hex(8)
        self._guard_name = f"_AutograderGuard_{token}"
        # The guard's source travels in the request: the sandboxed kernel cannot see autograder/.
        code = (
            "_m = __import__('types').ModuleType('__autograder_guard__')\n"
            f"exec(compile({GUARD_FILE.read_text(encoding='utf-8')!r}, '<autograder guard>', 'exec'), _m.__dict__)\n"
            "__import__('sys').modules['__autograder_guard__'] = _m\n"
            f"_m.install({token!r}, {_package_dir()!r}, {list(self.private_paths)!r}, {self.memory_mb})\n"
            "del _m\n")
        reply = self._silent(code)
        if reply["status"] != "ok":
            raise RuntimeError(f"could not set up the grading kernel: {reply.get('ename')}: {reply.get('evalue')}")

    def _run_guard(self) -> None:
        find = f"[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == {self._guard_name!r}]"
        # Run inside a cell (as the snapshot was taken), read the result outside it.
        reply = self._silent(f"{find}[0].last = {find}[0].run() + {find}[0].notes",
                             notes=f"{find}[0].last")
        result = reply.get("user_expressions", {}).get("notes", {})
        if result.get("status") == "ok":
            self._tamper += _checked_notes(result["data"]["text/plain"])
        else:
            self._tamper.append(f"guard failed: {result.get('ename')}: {result.get('evalue')}")
