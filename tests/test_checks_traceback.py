"""workbook.checks failures read as the test's own assert in a notebook: IPython's display of a
helper's AssertionError ends at the test's line (or the student's code), never in checks.py."""

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell

import workbook.checks as checks


@pytest.fixture(scope="module")
def shell():
    return InteractiveShell.instance()


def shown(shell, source):
    """The text IPython shows for the error `source` raises when run as a cell."""
    result = shell.run_cell(source)
    assert result.error_in_exec is not None, "the cell should fail"
    error = result.error_in_exec
    assert hasattr(error, "_render_traceback_"), "a helper's failure carries IPython's display hook"
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error._render_traceback_()))


CELLS = {
    "equal": "wb.checks.equal(1 + 1, 3, 'one plus one')",
    "expect": "wb.checks.expect(False, 'not so')",
    "is_type": "wb.checks.is_type(1, str, 'the answer')",
    "error_text": "wb.checks.error_text('fine', 'the observation')",
    "raises": "with wb.checks.raises(ValueError, what='int(3)'):\n    int(3)",
    "no_raise": "def boom():\n    return 1 / 0\nwith wb.checks.no_raise('boom()'):\n    boom()",
}


@pytest.mark.parametrize("helper", sorted(CELLS))
def test_a_helper_failure_ends_in_the_test_not_in_checks_py(shell, helper):
    shell.run_cell("from workbook.checks import fresh\nwb = fresh()")
    text = shown(shell, CELLS[helper])
    assert "checks.py" not in text and "__tracebackhide__" not in text, text
    assert "AssertionError" in text and "Cell In[" in text, text
    if helper == "no_raise":
        assert "return 1 / 0" in text, "the student's frame, where the error happened, stays shown"


def test_without_the_hook_ipython_would_show_the_helper_frame(shell):
    """The check of the check: IPython alone keeps the innermost (the helper's) frame."""
    shell.run_cell("from workbook.checks import fresh\nwb = fresh()")
    result = shell.run_cell("wb.checks.expect(False, 'not so')")
    error = result.error_in_exec
    stb = shell.InteractiveTB.structured_traceback(type(error), error, error.__traceback__)
    assert "checks.py" in re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(stb))


def test_failure_is_a_plain_assertion_error():
    error = checks.failure("msg")
    assert type(error) is AssertionError and str(error) == "msg"
