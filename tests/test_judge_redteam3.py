"""Red team 3 (issue 44): what another process runs, and the names a quiet test shows.

- ch08: a cell of the notebook's own that froze the clock, or made `hash()` stable, ran again in
  "another process" and undid what made it another: a key of the date or of `hash()` scored 3/3.
  Another process now runs the chapter's own cells with the notebook's answers only
  (`replay_cells`), then puts the moved clock and the real `hash` back (tests/attacks.py
  `clock_frozen`, `hash_replaced`; tests/test_judge_boundary.py).
- Any chapter: an AssertionError subclass named after a hidden test's inputs carried them into the
  feedback as the error's name. A quiet test names the nearest class the notebook did not name.
"""

from __future__ import annotations

import nbformat

from autograder.judge.cells import replay_cells
from workbook.link.exc_classes import foreign_exception, known_name
from workbook.link.heard import Heard


def _cell(source: str, grade_id: str | None = None, solution: bool = False, test: bool = False):
    meta = {"nbgrader": {"grade_id": grade_id, "solution": solution, "grade": test, "locked": test,
                         "schema_version": 3}} if grade_id else {}
    return nbformat.v4.new_code_cell(source, metadata=meta)


def _notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def test_another_process_runs_the_chapters_cells_with_the_notebooks_answers_only():
    source = _notebook(_cell("import time\nGIVEN = 1"), _cell("raise NotImplementedError", "key", solution=True),
                       _cell("demo = GIVEN"), _cell("another_process(1).key(1)", "key_tests", test=True),
                       _cell("def later(): pass", "later", solution=True))
    submitted = _notebook(_cell("import time\nGIVEN = 2  # edited given code"),
                          _cell("time.time = lambda: 0  # a cell of its own"),
                          _cell("def key(x):\n    return x", "key", solution=True),
                          _cell("demo = GIVEN"), _cell("whatever the notebook holds", "key_tests", test=True),
                          _cell("def later(): return 1", "later", solution=True))
    got = replay_cells(submitted, 4, source)
    assert got == ["import time\nGIVEN = 1", "def key(x):\n    return x", "demo = GIVEN"], got


def test_an_answer_cell_the_notebook_deleted_runs_as_nothing_and_without_a_source_answers_only():
    source = _notebook(_cell("x = 1"), _cell("...", "key", solution=True), _cell("t", "key_tests", test=True))
    submitted = _notebook(_cell("x = 1"), _cell("t", "key_tests", test=True))
    assert replay_cells(submitted, 1, source) == ["x = 1", ""]
    assert replay_cells(_notebook(_cell("def key(): 1", "key", solution=True), _cell("t", "t", test=True)), 1, None) \
        == ["def key(): 1"]


def test_a_quiet_test_names_the_nearest_class_the_notebook_did_not_name():
    leak = foreign_exception("__main__:LEAK_call_7Qd0m2__A_1001__2450", ["LEAK_call_7Qd0m2__A_1001__2450",
                                                                         "AssertionError", "Exception"])
    assert issubclass(leak, AssertionError) and leak.__name__.startswith("LEAK_")
    assert known_name(leak) == "AssertionError"
    assert known_name(KeyError) == "KeyError"


def test_a_class_path_the_notebook_sent_is_heard_name_by_name():
    heard = Heard()
    heard.add({"$e": "__main__:SRC_registry_for_locals_crash_Always_fails"})
    assert "SRC_registry" not in heard.redact("run_tool raised SRC_registry_for_locals_crash_Always_fails: x")


# -- red team 4: a short class name and message, quoted by a test's own check -------------------------

def test_a_quiet_check_quotes_no_class_name_or_message_of_the_notebooks(monkeypatch):
    """no_raise wrote "{name}: {message}" of what it caught; an exception named `call_7Qd0m2`
    with the message `A-1001` (each under heard.MIN_CHARS) carried hidden inputs out. In a quiet
    test (the judge sets QUIET) a check names the nearest built-in class only."""
    import pytest

    from workbook import checks
    from workbook.link.exc_classes import QUIET, said

    leak = type("call_7Qd0m2", (ValueError,), {})
    assert said(leak, leak("A-1001")) == "call_7Qd0m2: A-1001", "a learning run, a visible test: all of it"
    monkeypatch.setenv(QUIET, "1")
    assert said(leak, leak("A-1001")) == "ValueError"
    with pytest.raises(AssertionError) as caught:
        with checks.no_raise("idempotency_key(...)", hint="derive it from the request"):
            raise leak("A-1001")
    assert "call_7Q" not in str(caught.value) and "A-1001" not in str(caught.value), caught.value
    assert "raised ValueError — derive it from the request" in str(caught.value)


def test_an_exception_from_the_other_side_is_marked():
    from workbook.link.errors import make_exception

    err = make_exception({"$e": "builtins:ValueError", "msg": "A-1001", "mro": ["ValueError", "Exception"]},
                         lambda v: v)
    assert type(err) is ValueError and err.from_other_side is True
