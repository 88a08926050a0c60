"""`make check` ends with its verdict, not make's "*** Error 1"; CI or STRICT keeps the exit code (§9)."""

import os
import subprocess

import pytest

from workbook.paths import ROOT

ENV = {k: v for k, v in os.environ.items() if k not in ("CI", "STRICT", "MAKEFLAGS", "MAKELEVEL")}


def _make(*args):
    # -o: never reinstall .venv here (another change to pyproject.toml would print pip's output)
    return subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "check", *args],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_failed_check_exits_non_zero_only_when_asked():
    quiet = _make("NB=no/such.ipynb")
    assert quiet.returncode == 0 and "***" not in quiet.stderr, quiet.stderr
    assert quiet.stderr.strip().endswith("no such notebook: no/such.ipynb")
    for strict in ("STRICT=1", "CI=true"):
        assert _make("NB=no/such.ipynb", strict).returncode != 0, strict


@pytest.mark.slow
def test_an_untouched_notebook_ends_with_the_verdict():
    done = _make("NB=tests/pilot/chapters/00_pilot/00_pilot.ipynb")
    assert done.returncode == 0 and "***" not in done.stdout + done.stderr, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "TODO" in done.stdout and lines[-1] == "0 of 3 test cell(s) passed.", done.stdout
