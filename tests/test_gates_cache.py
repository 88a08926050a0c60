"""The gate cache cannot lie: its key covers every file the graded code imports (found by walking
the imports, not from a hand list) and every installed distribution's version."""

import shutil
import subprocess
import sys

import pytest

from autograder.course import REPO
from tests import gates


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A copy of the code the key reads: autograder/, workbook/, tests/*.py, agent_files/."""
    root = tmp_path_factory.mktemp("repo")
    skip = shutil.ignore_patterns("__pycache__", "work", "mutants", "sample_cohort", "out")
    for folder in ("autograder", "workbook", "agent_files"):
        shutil.copytree(REPO / folder, root / folder, ignore=skip)
    (root / "tests").mkdir()
    for path in (REPO / "tests").glob("*.py"):
        shutil.copy(path, root / "tests" / path.name)
    return root


@pytest.fixture(scope="module")
def key(copy):
    return gates.environment_key(copy)


def test_the_walk_finds_every_module_python_imports_for_grading():
    """Run what grading runs (imports, and the function that imports the preprocessors) and list
    our modules Python loaded: each must be in graded_files()."""
    code = ("import sys; sys.path.insert(0, '.')\n"
            "import autograder.pipeline.cohort, autograder.pipeline.grading, tests.gates, tests.fast_runner\n"
            "from autograder.settings import nbgrader_config; nbgrader_config()\n"
            "import workbook.checks\n"
            "print('\\n'.join(sorted(m.__file__ for m in list(sys.modules.values())\n"
            "                        if (getattr(m, '__file__', None) or '').startswith(sys.argv[1]))))\n")
    done = subprocess.run([sys.executable, "-c", code, str(REPO) + "/"], cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=True)
    loaded = {line for line in done.stdout.splitlines() if not line.startswith(sys.prefix + "/")}  # the venv's own
    walked = {str(p) for p in gates.graded_files()}
    assert len(loaded) > 20, done.stdout
    missing = sorted(loaded - walked)
    assert not missing, f"imported while grading but not in the gate cache key: {missing}"
    assert str(REPO / "autograder" / "sandbox" / "kernel_limits.py") in walked, "a file the grader reads by name"


def _touched(root, rel):
    path = root / rel
    before = path.read_bytes()
    path.write_bytes(before + b"\n# touched\n")
    try:
        return gates.environment_key(root)
    finally:
        path.write_bytes(before)


@pytest.mark.parametrize("rel", ["autograder/pipeline/scoring.py",  # imported inside a function
                                 "autograder/sandbox/kernel_limits.py",  # read by path, sent to the kernel
                                 "autograder/judge/runner.py",  # started as `python -m autograder.judge`
                                 "autograder/gates/variants.py", "workbook/checks.py", "tests/fast_runner.py", "tests/cell_deps.py",
                                 "agent_files/kb/returns-2025.md"])
def test_a_change_to_a_graded_file_changes_the_key(copy, key, rel):
    if not (copy / rel).is_file():
        pytest.skip(f"{rel} is not in this checkout")
    assert _touched(copy, rel) != key, f"changing {rel} keeps the gate cache key"


def test_the_key_is_a_function_of_the_files(copy, key):
    """Once for all: the copy the tests above touch and put back keys as it did (each restores
    its file before the next reads the key)."""
    assert gates.environment_key(copy) == key, "the key is not a function of the files"


def test_a_module_becomes_part_of_the_key_when_graded_code_imports_it(copy, key):
    new = copy / "autograder" / "brand_new.py"
    new.write_text("X = 1\n")
    try:
        assert new not in gates.graded_files(copy)
        assert _touched(copy, "autograder/brand_new.py") == key, "a module nothing graded imports is in the key"
        scoring = copy / "autograder" / "pipeline" / "scoring.py"
        before = scoring.read_bytes()
        scoring.write_bytes(before + b"\n\ndef _later():\n    from autograder import brand_new  # noqa\n")
        try:
            assert new in gates.graded_files(copy)
            assert _touched(copy, "autograder/brand_new.py") != gates.environment_key(copy)
        finally:
            scoring.write_bytes(before)
    finally:
        new.unlink()


def test_the_key_names_every_installed_distribution():
    names = {line.split("==")[0] for line in gates.installed()}
    assert {"nbgrader", "nbclient", "ipykernel", "openai", "anthropic", "pytest"} <= names, names


def test_a_timeout_is_cached_only_where_it_is_meant(tmp_path, monkeypatch):
    """A clock backstop reached on a busy machine must not stand for every later run."""
    monkeypatch.setattr(gates, "CACHE", tmp_path)
    records = [{"student": s, "status": status} for s, status in
               [("ok", "ok"), ("slow", "timeout"), ("loops", "timeout"), ("broke", "error")]]
    gates.remember({r["student"]: r["student"] for r in records}, records, frozenset({"loops"}))
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == ["loops", "ok"]
