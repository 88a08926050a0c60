"""`make check` ends with its verdict, not make's "*** Error 1"; CI or STRICT keeps the exit code (§9)."""

import os
import subprocess

import pytest

from workbook.paths import ROOT

ENV = {k: v for k, v in os.environ.items() if k not in ("CI", "STRICT", "MAKEFLAGS", "MAKELEVEL")}
# What `python -m autograder check` does with a missing notebook (test_autograder_cli proves the
# real one: an AutograderError, printed as one line, exit 2), without the seconds a CLI start costs.
FAILING_PYTHON = '#!/bin/sh\necho "error: no such notebook: $4 (stand-in)" >&2\nexit 2\n'


def _make(*args):
    # -o: never reinstall .venv here (another change to pyproject.toml would print pip's output)
    return subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "check", *args],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_failed_check_exits_non_zero_only_when_asked(tmp_path):
    quiet = _make("NB=no/such.ipynb")
    assert quiet.returncode == 0 and "***" not in quiet.stderr, quiet.stderr
    assert quiet.stderr.strip().endswith("no such notebook: no/such.ipynb")
    # The recipe's exit code under CI or STRICT, with a stand-in for the check that fails the same way.
    (tmp_path / "python").write_text(FAILING_PYTHON)
    (tmp_path / "python").chmod(0o755)
    for strict in ("STRICT=1", "CI=true"):
        done = _make("NB=no/such.ipynb", f"BIN={tmp_path}", strict)
        assert done.returncode != 0 and "no/such.ipynb (stand-in)" in done.stderr, (strict, done.stderr)


@pytest.mark.slow
def test_an_untouched_notebook_ends_with_the_verdict():
    done = _make("NB=tests/pilot/chapters/00_pilot/00_pilot.ipynb")
    assert done.returncode == 0 and "***" not in done.stdout + done.stderr, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "TODO" in done.stdout and lines[-1] == "0 of 3 test cell(s) passed.", done.stdout
