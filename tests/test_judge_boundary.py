"""The judge's boundary (issue 44): what a test reaches of the notebook, what the notebook can
write into the test, and what it learns when the test's own code fails under its call.

1. Names: a test cell sees the notebook's names only for the chapter's exercises; a given name
   the notebook defines (`elsewhere`, `rag_search`, `exchange`) is never looked up, so rebinding it
   changes nothing a test reads. Given code that must run beside the student's is named by path
   (`workbook.notebook_side`).
2. In place: a call's changes come back into the lists, dicts and sets the test handed over
   (the course's `messages.append`), never into a record, a tuple or what they hold.
3. Exceptions: the judge's code that raised under the notebook's call crosses with its message only
   when it raised on purpose (a test's tool that fails); an assert or the test's own error crosses
   as its type and a fixed text, with no frames.
The two ends run in this process over a socket pair, as the judge and a kernel do.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest

from tests.judge_ends import in_kernel
from workbook import checks, notebook_side
from workbook.link.judge_end import FIXED
from workbook.link.names import Namespace
from workbook.trace import otel  # noqa: F401 - the notebook's given cells import it


def test_a_given_name_is_never_asked_of_the_kernel(ends, monkeypatch):
    judge, _ = ends
    main = vars(sys.modules["__main__"])
    monkeypatch.setitem(main, "solve", lambda x: x * 2)
    monkeypatch.setitem(main, "elsewhere", lambda fn, *a, **k: "rebound by the notebook")
    ns = Namespace(judge, exercises=["solve"])
    exec("got = solve(21)", ns)
    assert ns["got"] == 42, "an exercise name is the notebook's function"
    with pytest.raises(NameError, match="elsewhere"):
        exec("elsewhere(solve, 1)", ns)
    with pytest.raises(NameError):
        exec("__main__", ns)


def test_given_code_beside_the_students_is_named_by_path(ends, monkeypatch):
    judge, _ = ends
    monkeypatch.setattr(notebook_side, "REMOTE", judge.given)
    ref = notebook_side.notebook_side("workbook.trace.otel:inside")  # imported here, as a given cell does
    assert repr(ref) == "<the notebook's function inside>", "the kernel's own copy, by its path"
    with pytest.raises(ValueError, match="not given code"):
        notebook_side.notebook_side("workbook.probes:in_place")
    with pytest.raises(ValueError, match="not given code"):
        judge.given("os:system")


@dataclasses.dataclass(frozen=True)
class Task:
    question: str
    wrong: list


def blank(task, seen):
    """A notebook's function that blanks what it is handed, wherever it can."""
    task.wrong.clear()
    seen.append("blanked")
    seen[0]["n"] = 2
    return "done"


def test_changes_in_place_come_back_as_data_never_into_the_tests_objects(ends, monkeypatch):
    judge, kernel = ends
    monkeypatch.setattr(notebook_side, "AFTER", judge.after)
    task, seen = Task("refund?", ["yes", "no"]), [{"n": 1}]
    assert in_kernel(judge, kernel, blank)(task, seen) == "done"
    assert seen == [{"n": 1}] and task.wrong == ["yes", "no"], "nothing the kernel sends is written into them"
    after = notebook_side.after(seen)
    assert after == [{"n": 2}, "blanked"] and after is not seen, "what the list became, as a copy (after)"
    assert notebook_side.after(task) is task, "a record the test made is not an argument after() knows"


def judge_code(source: str) -> dict:
    """Functions as a hidden test cell defines them in the judge (module `__test__`)."""
    ns = {"__name__": "__test__"}
    exec(compile(source, "<hidden test t>", "exec"), ns)
    return ns


HIDDEN = judge_code("""
def hidden_helper(expected_secret, answer):
    assert answer == expected_secret, f"expected {expected_secret!r}"

def check(answer):
    hidden_helper("the hidden answer", answer)

def crash(order_id):
    raise RuntimeError(f"the warehouse is closed for {order_id}")
""")


def test_the_tests_own_errors_cross_as_their_type_and_a_fixed_text(ends):
    judge, kernel = ends

    def student(helper):
        try:
            helper("guess")
        except AssertionError as e:
            return ("assert", str(e), e.__traceback__ is not None)
        return ("passed",)

    def student_bad_args(helper):
        try:
            helper()
        except TypeError as e:
            return ("type", str(e))

    got = in_kernel(judge, kernel, student)(HIDDEN["check"])
    assert got[0] == "assert" and got[1] == FIXED.format(name="AssertionError"), got
    assert "hidden" not in repr(got)
    got = in_kernel(judge, kernel, student_bad_args)(HIDDEN["hidden_helper"])
    assert got == ("type", FIXED.format(name="TypeError")), "no helper name, no parameters"


def test_a_tool_that_fails_on_purpose_crosses_with_its_message(ends):
    judge, kernel = ends

    def student(tool):
        try:
            tool("A-1")
        except RuntimeError as e:
            return f"{type(e).__name__}: {e}"

    assert in_kernel(judge, kernel, student)(HIDDEN["crash"]) == "RuntimeError: the warehouse is closed for A-1"


def test_another_process_in_a_notebook_runs_the_function_elsewhere(monkeypatch):
    """In a learning run, `another_process` is `workbook.probes.elsewhere` around the notebook's function."""
    import sys
    import time
    import types

    main = types.ModuleType("__main__")
    exec("import time\ndef now():\n    return time.time()\n", vars(main))
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(notebook_side, "ANOTHER", None)
    later = notebook_side.another_process(seconds=7200)
    assert 7190 < later.now() - time.time() < 7210
    with pytest.raises(AttributeError, match="no function 'nope'"):
        later.nope  # noqa: B018
    with pytest.raises(ValueError, match="seconds"):
        notebook_side.another_process(seconds="soon")


def test_an_exercise_is_the_notebooks_own_whatever_path_it_claims(ends, monkeypatch):
    """Red team 17: an exercise class that called itself `workbook.checks:CappedClient` was the
    judge's own class in the test; an exercise is always the notebook's object."""
    judge, _ = ends

    class Budget:
        def __init__(self, max_steps):
            self.max_steps = max_steps

    Budget.__module__, Budget.__qualname__ = checks.CappedClient.__module__, "CappedClient"  # loaded, as graded
    monkeypatch.setitem(vars(sys.modules["__main__"]), "Budget", Budget)
    ns = Namespace(judge, exercises=["Budget"])
    exec("b = Budget(max_steps=3)", ns)
    assert type(ns["Budget"]).__name__ == "KernelRef" and ns["b"].max_steps == 3, ns["Budget"]
