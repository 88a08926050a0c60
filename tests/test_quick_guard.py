"""make quick's promise (tests/conftest.py): a test that starts a process is seen, however it
starts one, so it can be listed in tests/process_tests.txt and left to make test."""

from __future__ import annotations

from tests import conftest


def test_a_process_pools_start_is_seen(monkeypatch):
    """multiprocessing starts its forkserver and resource tracker through _posixsubprocess, which
    raises no audit event: the guard wraps the function they call."""
    monkeypatch.setattr(conftest, "_started", [])
    started = []
    pid = conftest._spawned(b"/usr/bin/python3", [b"python3", b"-c", b"pass"], [3],
                            _spawn=lambda *args: started.append(args) or 4242)
    assert pid == 4242 and started == [(b"/usr/bin/python3", [b"python3", b"-c", b"pass"], [3])]
    assert conftest._started == ["multiprocessing.spawn: b'/usr/bin/python3' b'python3' b'-c' b'pass'"]


def test_the_guard_records_process_starts_only(monkeypatch):
    monkeypatch.setattr(conftest, "_started", [])
    conftest._audit("open", ("/etc/passwd", "r", 0))
    assert conftest._started == []
    conftest._audit("multiprocessing.spawn", (b"/usr/bin/python3",))
    assert conftest._started == ["multiprocessing.spawn: b'/usr/bin/python3'"]
