"""A learner's test cell runs as the grader runs it: through the link's two ends, in the kernel.

Graded, a test cell runs in the judge, outside the notebook, and reaches the notebook only by
calling the chapter's exercises over the link (workbook/link). In a learner's kernel (the lab,
Validate, `make check`) the same cell runs through the same two ends, here in one process: its
code in a `Namespace` of its own, each exercise it names a `KernelRef` whose calls cross a
`LoopChannel` as the same JSON frames. So what a test sees of the notebook (values as copies,
records, exceptions as data, in-place changes read with `after`, the test's objects as the
notebook's code sees them) is what the grader sees, by construction, not by a rule an author keeps.

`import workbook` installs the hook in an IPython kernel (`workbook.test_cells`): a cell whose
first statement is a test's docstring ("Visible tests: ..." or "Hidden tests: ...":
`tests/test_loopback.py` keeps every test cell so, and no other) runs through `run`. The test's
names stay its own, as graded: a name it defines (an `#@include`d class, `messages`) never
replaces the notebook's. Only what is shown differs: an error the notebook's code raised is shown
with its own lines, as the cause of the test's error. A cell run before `workbook` was imported in
the kernel runs as plain code.
"""

from __future__ import annotations

import builtins
import functools
import json
import sys
import types
from pathlib import Path

from workbook import notebook_side
from workbook.checks import frames_without
from workbook.link.channel import LoopChannel
from workbook.link.heard import Heard
from workbook.link.judge_end import JudgeEnd
from workbook.link.kernel_side import KernelEnd, user_namespace
from workbook.link.names import Namespace, defined_names, read_names
from workbook.test_cells import ipython

LINK_FILES = (str(Path(__file__).resolve().parent / "link"), __file__)  # frames a learner is not shown


class _Kernel(KernelEnd):
    """The kernel's end, which also keeps the last exception the notebook's code raised (shown)."""

    raised: BaseException | None = None

    def exc_reply(self, e: BaseException) -> dict:
        self.raised = e
        return super().exc_reply(e)


class Loop:
    """The two ends of the link in this kernel, and the test cells' names (one for the kernel, as
    the judge keeps one for a notebook)."""

    def __init__(self):
        self.judge, self.kernel = JudgeEnd(), _Kernel()
        self.judge.channel = LoopChannel(self.kernel.serve)
        self.kernel.channel = LoopChannel(self.judge.serve)
        self.judge.greeted.set()
        self.names = Namespace(self.judge)
        self.names["__name__"] = "__test__"

    def another(self, seconds: float) -> _Replayed:
        """`another_process(seconds)`: the notebook's exercise run by `elsewhere`, called across."""
        return _Replayed(self, seconds)

    def run(self, code: types.CodeType) -> None:
        """Run a test cell's code here as the judge runs it."""
        __tracebackhide__ = True
        self.names.forget_kernel()  # the notebook may have redefined anything since the last test
        self.names.exercises = exercise_names()
        self.kernel.raised = None
        saved = notebook_side.REMOTE, notebook_side.AFTER, notebook_side.ANOTHER
        notebook_side.REMOTE, notebook_side.AFTER, notebook_side.ANOTHER = (
            self.judge.given, self.judge.after, self.another)
        try:
            exec(code, self.names)
        except BaseException as e:
            raise shown(e, code.co_filename, self.kernel.raised)  # noqa: B904 - the same error, shown
        finally:
            notebook_side.REMOTE, notebook_side.AFTER, notebook_side.ANOTHER = saved
            self.judge.forget_test()
            self.judge.heard = Heard()  # what a hidden test's message may not say: graded only
            self.kernel.forget_test()


class _Replayed(notebook_side.Elsewhere):
    """The notebook's exercises run by `elsewhere`, each a KernelRef: calls cross the link. Graded,
    another process runs the chapter's cells with the notebook's answers, never a cell the learner
    added: an exercise that reads a name only such a cell defines fails there with a NameError
    (red team 16), so it does here too, saying why."""

    def __init__(self, loop: Loop, seconds: float):
        super().__init__(seconds)
        self._loop = loop

    def __getattr__(self, name: str):
        fn = vars(sys.modules["__main__"]).get(name)
        meta, code = _saved()
        course = set(meta.get("cells") or ())
        its_cells = [src for cid, src in code if cid in course and name in defined_names(src)]
        read = _read_names(getattr(fn, "__code__", None)).union(*map(read_names, its_cells))  # decorators too
        missing = sorted(read & added_only(meta, code))
        if missing:
            def fn(*args, **kwargs):
                raise NameError(f"name {missing[0]!r} is not defined in another process: only a cell you "
                                "added defines it, and another process runs the chapter's cells with your "
                                "answers, not the cells you added (move it into the answer cell)")
        else:
            fn = super().__getattr__(name)
        return self._loop.judge.decode(self._loop.kernel.encode(fn))


def _read_names(code: types.CodeType | None) -> set[str]:
    """The global names a function's code reads, its nested functions' too."""
    if code is None:
        return set()
    return set(code.co_names).union(*(_read_names(c) for c in code.co_consts if isinstance(c, types.CodeType)))


def _saved() -> tuple[dict, list[tuple[str | None, str]]]:
    """This kernel's notebook as saved (its folder's notebook of the folder's name,
    `01_one_step/01_one_step.ipynb`): what the release wrote in its metadata (`{"workbook": ...}`),
    and (id, source) of its code cells; nothing where there is none."""
    path = Path.cwd() / f"{Path.cwd().name}.ipynb"
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        ours = nb["metadata"].get("workbook", {})
        code = [(c.get("id"), "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
                for c in nb["cells"] if c.get("cell_type") == "code"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, []
    return (ours, code) if isinstance(ours, dict) else ({}, code)


def added_only(meta: dict, code: list[tuple[str | None, str]]) -> set[str]:
    """The names only the learner's own cells define: code cells whose ids are not among the
    course's (the release lists them: `{"workbook": {"cells": [...]}}`), in the saved notebook."""
    ours = set(meta.get("cells") or ())
    if not ours:
        return set()
    course = set().union(*(defined_names(src) for cid, src in code if cid in ours))
    return set().union(*(defined_names(src) for cid, src in code if cid not in ours)) - course


def exercise_names() -> frozenset[str]:
    """The names a test may reach, as the grader reads them from the course: the release writes them
    into the chapter's notebook (`{"workbook": {"exercises": [...]}}`). Where it has none, every name
    of the notebook: a test cell reads no name but the exercises' (`tests/test_gates_names.py`), so
    the two are the same for the course's tests."""
    names = _saved()[0].get("exercises")
    if type(names) is list and names and all(type(n) is str for n in names):
        return frozenset(names)
    return frozenset(k for k in user_namespace() if k.isidentifier() and not hasattr(builtins, k))


def shown(error: BaseException, filename: str, raised: BaseException | None) -> BaseException:
    """`error` as the learner sees it: the test's own lines and the student's, not the link's nor
    the cell's one line that called `run`, and where the notebook's code raised it, that exception
    (its own lines) as its cause."""
    tb = _kept(error.__traceback__, filename)
    if getattr(error, "from_other_side", False) and raised is not None and \
            type(raised).__name__ == getattr(error, "notebook_class", type(error).__name__):  # a stand-in's too
        error.__cause__ = raised.with_traceback(_kept(raised.__traceback__, filename))
    shell = ipython()
    if shell is not None:  # IPython's display hook: this traceback, whatever frames it gains above
        error._render_traceback_ = functools.partial(  # type: ignore[attr-defined]
            shell.InteractiveTB.structured_traceback, type(error), error, tb, tb_offset=0)
    return error.with_traceback(tb)


def _kept(tb: types.TracebackType | None, filename: str) -> types.TracebackType | None:
    """`tb` without the link's frames and those that hide themselves (`__tracebackhide__`)."""
    return frames_without(tb, lambda frame: frame.f_code.co_filename != filename and (
        frame.f_code.co_filename.startswith(LINK_FILES) or frame.f_locals.get("__tracebackhide__")))


_LOOP: list[Loop] = []


def run(source: str) -> None:
    """Run the test cell `source` through the loop (the transformer's one line)."""
    __tracebackhide__ = True
    shell = ipython()
    if shell is not None:  # IPython's own name for the cell: its traceback says "Cell In[n]"
        filename = shell.compile.cache(source, shell.execution_count)
    else:
        filename = "<test cell>"
    if not _LOOP:
        _LOOP.append(Loop())
    _LOOP[0].run(compile(source, filename, "exec", dont_inherit=True))
