"""make quick's promise (tests/conftest.py): a test that starts a process is seen, however it
starts one, so it can be listed in tests/process_tests.txt and left to make test."""

from __future__ import annotations

from tests import conftest


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
