"""A sink for spans that a test holds: a notebook's tracer sends it each finished span, as a dict.

    sink = wb.trace.sink.Sink()
    traced = recorder.tracer_for(sink.export)     # a real tracer in the notebook, exporting here
    with sink.collecting():                       # only the spans that end inside the block count
        traced_chat(traced, client, ...)
    found = sink.spans("the spans of one traced_chat")

When a notebook is graded, a test cell runs in the judge, outside the notebook's kernel: the
sink lives there and `sink.export` crosses to the kernel as a handle, so the kernel's
TracerProvider calls it back with plain data. What the asserts read is then the judge's own:
nothing the notebook keeps (a `recorder` it rebinds, spans it made earlier) can stand in for the
spans of the call under test. In the kernel, for learning, the same lines run as they read.

Each span is checked as it arrives (`spans.checked`) and the sink is bounded in spans and in
characters; a span that breaks a rule is dropped and the first problem is what `spans()` raises.
A span that ends outside `collecting()` is not collected.
"""

from __future__ import annotations

import contextlib
import json
import threading

from workbook.trace.spans import checked

MAX_SPANS = 1_000
MAX_CHARS = 20_000_000  # of every collected span's JSON together


class Sink:
    """Span dicts sent by a tracer's exporter (`export`), kept only while `collecting()`."""

    def __init__(self, max_spans: int = MAX_SPANS, max_chars: int = MAX_CHARS):
        self.max_spans, self.max_chars = max_spans, max_chars
        self._lock = threading.Lock()
        self._spans: list[dict] = []
        self._chars = 0
        self._open = False
        self._problem: str | None = None
        self.late = 0  # spans that ended outside collecting(): not collected

    def export(self, span: dict) -> None:
        """Take one finished span (a dict, as `workbook.trace.otel.as_dict` makes it). Never raises:
        a span that breaks a rule is dropped, and spans() reports the first such problem."""
        with self._lock:
            if not self._open:
                self.late += 1
                return
            if self._problem is not None:
                return
            try:
                (span,) = checked([span], "a span the notebook's tracer exported")
                size = len(json.dumps(span))
            except (AssertionError, TypeError, ValueError) as e:
                self._problem = str(e)[:500]
                return
            if len(self._spans) >= self.max_spans or self._chars + size > self.max_chars:
                self._problem = (f"the notebook's tracer exported more than {self.max_spans} spans or "
                                 f"{self.max_chars} characters of them in one call")
                return
            self._spans.append(span)
            self._chars += size

    @contextlib.contextmanager
    def collecting(self):
        """Collect the spans that end inside the block, and only those (the earlier ones go)."""
        with self._lock:
            self._spans, self._chars, self._problem, self._open = [], 0, None, True
        try:
            yield self
        finally:
            with self._lock:
                self._open = False

    def spans(self, what: str = "the spans") -> list[dict]:
        """The collected spans, earliest start first; an AssertionError naming `what` if one was
        dropped (not a span dict, or over the bounds)."""
        with self._lock:
            if self._problem is not None:
                raise AssertionError(f"{what}: {self._problem}")
            return sorted(self._spans, key=lambda s: s["start_ns"])

    def __repr__(self) -> str:
        return f"<Sink: {len(self._spans)} span(s)>"
