"""make quick's promise (tests/conftest.py): a test that starts a process is seen, however it
starts one, so it can be listed in tests/process_tests.txt and left to make test."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests import conftest
from tests.conftest import ROOT


def test_a_process_pools_start_is_seen():
    """multiprocessing starts its forkserver and resource tracker through _posixsubprocess, which
    raises no audit event: the guard wraps the function they call."""
    spawned, noted = [], []  # the guard's own list stays empty: make quick runs this test too
    pid = conftest._spawned(b"/usr/bin/python3", [b"python3", b"-c", b"pass"], [3],
                            _spawn=lambda *args: spawned.append(args) or 4242, _started=noted)
    assert pid == 4242 and spawned == [(b"/usr/bin/python3", [b"python3", b"-c", b"pass"], [3])]
    assert noted == ["multiprocessing.spawn: b'/usr/bin/python3' b'python3' b'-c' b'pass'"]


def test_the_guard_records_process_starts_only():
    noted: list[str] = []
    conftest._audit("open", ("/etc/passwd", "r", 0), noted)
    assert noted == []
    conftest._audit("multiprocessing.spawn", (b"/usr/bin/python3",), noted)
    assert noted == ["multiprocessing.spawn: b'/usr/bin/python3'"]


def test_what_make_quick_does_not_collect_holds_no_test_it_would_run():
    """make quick leaves some modules uncollected (conftest.quick_uncollected): make quick's own
    marker expression, over those modules collected, selects nothing."""
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nquick:", 1)[1].split("\n\n", 1)[0]
    expression = re.search(r'-m "([^"]+)"', recipe).group(1)
    env = {k: v for k, v in os.environ.items() if k not in ("QUICK_TIER", "PYTEST_ADDOPTS")}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "-m", expression, *conftest.quick_uncollected()],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 5 and "no tests collected" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
