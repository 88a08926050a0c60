"""workbook.checks: fresh() is immune to a student's monkeypatching; helpers give clear messages."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import workbook.checks as checks
from workbook.checks import fresh


def _package(tmp_path):
    """A tiny stand-in for the workbook package: b imports from a by absolute name."""
    pkg = tmp_path / "workbook"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("class Model:\n    answer = 42\n")
    (pkg / "b.py").write_text("from workbook.a import Model\n\ndef make():\n    return Model()\n")
    sub = pkg / "sub"
    sub.mkdir()
    (sub / "__init__.py").write_text("from workbook.sub.inner import VALUE\n")
    (sub / "inner.py").write_text("VALUE = 'inner'\n")
    return pkg


def test_fresh_copies_use_each_other_and_leave_sys_modules_alone(tmp_path):
    before = {k: v for k, v in sys.modules.items() if k.startswith("workbook")}
    wb = fresh(_package(tmp_path))
    assert wb.b.make().answer == 42
    assert wb.b.Model is wb.a.Model, "a fresh module must import its siblings from the same copy"
    assert wb.sub.VALUE == "inner"
    after = {k: v for k, v in sys.modules.items() if k.startswith("workbook")}
    assert after == before and all(after[k] is before[k] for k in before)


def test_fresh_ignores_monkeypatching_and_replaced_modules(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    first = fresh(pkg)
    monkeypatch.setattr(first.a.Model, "answer", 0)  # a student patches a class they can reach
    monkeypatch.setitem(sys.modules, "workbook.a", object())  # ... or replaces a module
    second = fresh(pkg)
    assert second.a.Model.answer == 42
    assert second.a.Model is not first.a.Model


def test_fresh_of_the_real_workbook_has_every_module():
    wb = fresh()
    assert "checks" in dir(wb)
    assert wb.checks is not checks and wb.checks.equal is not checks.equal
    with pytest.raises(AttributeError, match="no module 'nope'"):
        _ = wb.nope


def test_fresh_copy_survives_patching_the_real_checks(monkeypatch):
    monkeypatch.setattr(checks, "equal", lambda *a, **k: None)
    with pytest.raises(AssertionError):
        fresh().checks.equal(1, 2)


class AlwaysEqual:
    def __eq__(self, other):
        return True


@pytest.mark.parametrize(("actual", "expected", "message"), [
    ("23", 5, "add(2, 3) should be an int, got str '23'"),
    (AlwaysEqual(), 5, "should be an int, got AlwaysEqual"),
    (("tool", "x"), ("tool", "x", {}), "should have 3 items, got 2"),
    (("tool", "x", []), ("tool", "x", {}), "add(2, 3) should be ('tool', 'x', {}), got ('tool', 'x', []): "
                                            "item [2] should be a dict, got list"),
    (("yes", "done"), (None, "needs review"), "item [0] should be None, got str 'yes'"),
    ({"a": 1}, {"a": 1, "b": 2}, "missing keys"),
    (4, 5, "add(2, 3) should be 5, got 4"),
])
def test_equal_explains_what_is_wrong(actual, expected, message):
    with pytest.raises(AssertionError) as error:
        checks.equal(actual, expected, "add(2, 3)")
    assert message in str(error.value)


def test_equal_points_at_the_first_part_that_differs():
    """Long nested values: the message names the path of the first differing part and quotes only
    the two values there, not both wholes (issue 45); short ones keep the wholes first."""
    messages = [{"role": "system", "content": "You are a shop assistant. " * 4},
                {"role": "user", "content": "Where is my order A-1001?"},
                {"role": "assistant", "content": "It shipped on Monday."}]
    expected = [*messages[:2], {"role": "assistant", "content": "It shipped on Tuesday."}]
    with pytest.raises(AssertionError) as error:
        checks.equal(messages, expected, "messages")
    assert str(error.value) == ("messages: item [2]['content'] should be 'It shipped on Tuesday.', "
                                "got 'It shipped on Monday.'")
    with pytest.raises(AssertionError, match=r"^nums should be \[1, 2, 4\], got \[1, 2, 3\]: item \[2\] should be 4, got 3$"):
        checks.equal([1, 2, 3], [1, 2, 4], "nums")
    with pytest.raises(AssertionError) as error:  # two long texts: where they part, not both whole
        checks.equal("x" * 100 + "abc", "x" * 100 + "abd", "reply")
    assert "at character 102" in str(error.value) and len(str(error.value)) < 200
    with pytest.raises(AssertionError, match=r"^d: item \[0\]\['k'\]: missing keys 'b'$"):
        checks.equal([{"k": {"a": "y" * 90}}], [{"k": {"a": "y" * 90, "b": 1}}], "d")


def test_equal_passes_and_adds_a_hint():
    checks.equal(("tool", "x", {"a": [1]}), ("tool", "x", {"a": [1]}))
    with pytest.raises(AssertionError, match="— return it, do not print it"):
        checks.equal(None, 5, hint="return it, do not print it")


def test_raises_helper():
    with checks.raises(ValueError, match="unknown"):
        raise ValueError("unknown tool")
    with pytest.raises(AssertionError, match="returned normally"), checks.raises(ValueError):
        pass
    with pytest.raises(AssertionError, match="it raised KeyError"), checks.raises(ValueError):
        raise KeyError("k")
    with pytest.raises(NotImplementedError, match="not answered yet"), checks.raises(ValueError):
        raise NotImplementedError("not answered yet")  # an unfinished exercise says so itself
    with pytest.raises(NotImplementedError), checks.raises(Exception):
        raise NotImplementedError()  # a stub never passes a test that expects an error
    with checks.raises(NotImplementedError):
        raise NotImplementedError()
    with pytest.raises(AssertionError, match="should mention 'tool'"), checks.raises(ValueError, match="tool"):
        raise ValueError("bad")


def test_is_type_and_expect_and_short():
    checks.is_type(3, (int, float))
    with pytest.raises(AssertionError, match="should be a str or bytes, got int"):
        checks.is_type(3, (str, bytes), "the reply")
    with pytest.raises(AssertionError, match="fix this"):
        checks.expect(False, "fix this")
    assert checks.short("x" * 1000, 50).endswith("(1002 chars)")
    assert len(checks.short("x" * 1000, 50)) <= 50


def test_checks_module_stays_small():
    source = textwrap.dedent(open(checks.__file__).read())
    assert source.count("\n") < 300


TRACEBACK_CELLS = [
    "from workbook import checks\n"
    "def agent(q):\n    return {}[q]",
    "with checks.no_raise('agent(question, model)', hint='errors are observations'):\n    agent('k')",
    "with checks.raises(ValueError, what='agent(1)'):\n    agent(1)",
    "def stub():\n    raise NotImplementedError('not answered yet')\n"
    "with checks.no_raise('stub()'):\n    stub()",
]


def test_ipython_tracebacks_hide_the_helpers_frames():
    """IPython shows the test's line, the student's frames and the message: no contextlib, no checks.py."""
    script = ("import json, sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
              "shell = InteractiveShell.instance(colors='nocolor')\n"
              "for cell in json.loads(sys.stdin.read()):\n"
              "    shell.run_cell(cell)\n    print('=====')\n")
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(TRACEBACK_CELLS), capture_output=True,
                          text=True, timeout=60, check=True, cwd=Path(checks.__file__).parent.parent)
    shown = done.stdout.split("=====\n")
    for text, message in zip(shown[1:4], ("agent(question, model) raised KeyError: 'k' — errors are observations",
                                         "agent(1) should raise ValueError, it raised KeyError: 1",
                                         "NotImplementedError: not answered yet"), strict=True):
        assert message in text, text
        assert "contextlib" not in text and "checks.py" not in text, f"library frames shown:\n{text}"
        assert "in agent(q)" in text or "in stub()" in text, f"the student's frame is missing:\n{text}"
