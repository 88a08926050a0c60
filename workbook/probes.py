"""Instruments for test cells: which tool calls ran at the same time, which files were moved, which
responses a model client returned.

Reached as `wb.checks.Overlap` and `wb.checks.spy_moves` (docs/CHAPTERS.md, "Test helpers");
`Recorder` is imported from here (`from workbook.probes import Recorder`).
"""

from __future__ import annotations

import os
import threading
import types
from contextlib import contextmanager
from pathlib import Path


class Overlap:
    """Tools that show which calls ran at the same time, decided by latches, not by timing. A call in
    a worker thread holds until all `parties` calls have started (`hold` seconds are reached only by
    code that never runs them together); a call in the test's own thread holds nothing, since nothing
    else can start while it runs. `together`: the calls that were all running at once."""

    def __init__(self, parties, hold=5.0):
        self.parties, self.hold, self.caller = parties, hold, threading.get_ident()
        self.cv, self.running, self.together = threading.Condition(), set(), set()
        self.order, self.events, self.overlaps, self.threads = [], [], 0, set()

    def tool(self, name, fn=None, hold=True):
        def call(**kwargs):
            key = kwargs.get("order_id")
            with self.cv:
                self.order.append((name, key))
                self.events.append(("start", key))
                self.threads.add(threading.get_ident())
                self.overlaps += bool(self.running)  # another call is still running
                self.running.add(key)
                if len(self.running) >= self.parties:
                    self.together |= self.running
                self.cv.notify_all()
                if hold and threading.get_ident() != self.caller:
                    self.cv.wait_for(lambda: len(self.order) >= self.parties, timeout=self.hold)
                self.running.discard(key)
                self.events.append(("end", key))
            return fn(**kwargs) if fn else {"order_id": key, "tool": name}
        return call


class Recorder:
    """A Chat Completions client for a test: passes each request to `client`, keeps every response
    in `responses`, and refuses call `cap + 1` with an AssertionError that asks whether `what` (the
    function under test) stops at max_steps."""

    def __init__(self, client, cap, what):
        self.client, self.cap, self.what, self.responses = client, cap, what, []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        if len(self.responses) >= self.cap:
            raise AssertionError(f"more than {self.cap} model calls: does {self.what} stop at max_steps?")
        self.responses.append(self.client.chat.completions.create(**kwargs))
        return self.responses[-1]


@contextmanager
def spy_moves():
    """Record every `os.replace` / `os.rename` made while the block runs, as (source, target) Paths;
    the real functions are back afterwards whatever happens."""
    moves, real = [], (os.replace, os.rename)

    def spy(fn):
        def move(src, dst, *args, **kwargs):
            moves.append((Path(os.fsdecode(src)), Path(os.fsdecode(dst))))
            return fn(src, dst, *args, **kwargs)
        return move

    os.replace, os.rename = spy(real[0]), spy(real[1])
    try:
        yield moves
    finally:
        os.replace, os.rename = real
