"""workbook.checks: fresh() is immune to a student's monkeypatching; helpers give clear messages."""

import sys
import textwrap

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
    (("tool", "x", []), ("tool", "x", {}), "add(2, 3)[2] should be a dict, got list"),
    ({"a": 1}, {"a": 1, "b": 2}, "missing keys"),
    (4, 5, "add(2, 3) should be 5, got 4"),
])
def test_equal_explains_what_is_wrong(actual, expected, message):
    with pytest.raises(AssertionError) as error:
        checks.equal(actual, expected, "add(2, 3)")
    assert message in str(error.value)


def test_equal_passes_and_adds_a_hint():
    checks.equal(("tool", "x", {"a": [1]}), ("tool", "x", {"a": [1]}))
    with pytest.raises(AssertionError, match="— return it, do not print it"):
        checks.equal(None, 5, hint="return it, do not print it")


def test_raises_helper():
    with checks.raises(ValueError, match="unknown"):
        raise ValueError("unknown tool")
    with pytest.raises(AssertionError, match="returned normally"), checks.raises(ValueError):
        pass
    with pytest.raises(AssertionError, match="it raised NotImplementedError"), checks.raises(ValueError):
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
