"""`make check` ends with its verdict, not make's "*** Error 1"; CI or STRICT keeps the exit code (§9);
a wrong path is an error, with the path it meant (issue 45)."""

import os
import subprocess

import pytest

from autograder.notebooks import shortened
from workbook.paths import ROOT

ENV = {k: v for k, v in os.environ.items() if k not in ("CI", "STRICT", "MAKEFLAGS", "MAKELEVEL")}
# What `python -m autograder check` does when a test fails (exit 1, the verdict last), without the
# seconds a notebook's run costs.
FAILING_PYTHON = '#!/bin/sh\necho "0 of 3 test cell(s) passed. ($4, stand-in)"\nexit 1\n'


def _make(*args):
    # -o: never reinstall .venv here (another change to pyproject.toml would print pip's output)
    return subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "check", *args],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_wrong_path_fails_and_says_which_path_was_meant():
    wrong = _make("NB=chapters/01_one_step")
    assert wrong.returncode == 2, wrong.stdout + wrong.stderr
    assert ("error: chapters/01_one_step is a folder, not a notebook; "
            "did you mean chapters/01_one_step/01_one_step.ipynb?") in wrong.stderr


@pytest.mark.slow
def test_a_failed_test_exits_non_zero_only_when_asked(tmp_path):
    (tmp_path / "python").write_text(FAILING_PYTHON)
    (tmp_path / "python").chmod(0o755)
    quiet = _make("NB=some.ipynb", f"BIN={tmp_path}")
    assert quiet.returncode == 0 and "***" not in quiet.stdout + quiet.stderr, quiet.stderr
    assert quiet.stdout.strip().endswith("passed. (some.ipynb, stand-in)"), quiet.stdout
    for strict in ("STRICT=1", "CI=true"):
        done = _make("NB=some.ipynb", f"BIN={tmp_path}", strict)
        assert done.returncode != 0 and "(some.ipynb, stand-in)" in done.stdout, (strict, done.stdout)


@pytest.mark.slow
def test_an_untouched_notebook_ends_with_the_verdict():
    done = _make("NB=tests/pilot/chapters/00_pilot/00_pilot.ipynb")
    assert done.returncode == 0 and "***" not in done.stdout + done.stderr, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "TODO" in done.stdout and lines[-1] == "0 of 3 test cell(s) passed.", done.stdout


def test_a_long_failure_keeps_its_hint_and_loses_its_middle():
    """make check and grades.csv show one line per failure: the hint after " — " is what a learner
    needs, so a long quoted value goes first (a newcomer's trim_memory hint was cut off)."""
    hint = "keep the longest tail: cut at the earliest user message whose tail fits, not at the last one"
    line = shortened(f"AssertionError: trim_memory(memory, 12) should have 11 items, got 3: {'x' * 400} — {hint}")
    assert len(line) == 300 and line.endswith(f"... — {hint}") and line.startswith("AssertionError: trim_memory")
    assert shortened("short — hint") == "short — hint"
    assert shortened("y" * 500) == "y" * 297 + "..."
