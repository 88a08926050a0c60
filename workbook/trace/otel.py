"""OpenTelemetry's SDK for the course: spans recorded in memory, read back as plain data.

    from workbook.trace import otel, spans
    recorder = otel.Recorder()            # a TracerProvider of its own, spans kept in memory
    with recorder.tracer.start_as_current_span("invoke_agent support") as span: ...
    recorder.spans()                      # the finished spans as dicts (workbook.trace.spans)
    recorder.tree()                       # and as a span tree
    traced = recorder.tracer_for(sink.export)  # a tracer whose spans go, as dicts, to a test's sink
    with otel.official(recorder): ...     # the official OpenAI instrumentation, into the same recorder
    otel.send(recorder.spans())           # to Phoenix on 127.0.0.1 (the `traces` extra; README)

A Recorder never touches OpenTelemetry's global provider, so two recorders (a test's and a
notebook's) never see each other's spans. `tracer_for` is how a judged test receives a notebook's
spans (workbook.trace.sink): the tracer stays a real one in the notebook, where the current span
lives, and each finished span crosses to the test as plain data.
"""

from __future__ import annotations

import contextlib
import importlib

from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from workbook.trace import spans as span_data

PHOENIX = "http://127.0.0.1:6006/v1/traces"  # Phoenix's OTLP/HTTP endpoint (README, "Traces in Phoenix")
SERVICE = "agent-loop-by-hand"


def _plain(value):
    """An attribute value as JSON data: the SDK keeps sequences as tuples."""
    return list(value) if isinstance(value, tuple) else value


def as_dict(s: ReadableSpan) -> dict:
    """An SDK span as the plain dict of workbook.trace.spans."""
    ctx = s.get_span_context()
    if ctx is None:
        raise ValueError(f"span {s.name!r} has no context")
    return {"name": s.name, "trace_id": f"{ctx.trace_id:032x}", "span_id": f"{ctx.span_id:016x}",
            "parent_id": f"{s.parent.span_id:016x}" if s.parent is not None else None,
            "kind": s.kind.name, "start_ns": s.start_time, "end_ns": s.end_time,
            "attributes": {k: _plain(v) for k, v in (s.attributes or {}).items()},
            "status": s.status.status_code.name, "status_description": s.status.description,
            "events": [{"name": e.name, "time_ns": e.timestamp,
                        "attributes": {k: _plain(v) for k, v in (e.attributes or {}).items()}}
                       for e in s.events]}


def from_dict(d: dict, resource: Resource | None = None) -> ReadableSpan:
    """A span dict as an SDK span, for an exporter (the ids and times are kept)."""
    sampled = TraceFlags(TraceFlags.SAMPLED)
    ctx = SpanContext(int(d["trace_id"], 16), int(d["span_id"], 16), is_remote=False, trace_flags=sampled)
    parent = (SpanContext(int(d["trace_id"], 16), int(d["parent_id"], 16), is_remote=False, trace_flags=sampled)
              if d.get("parent_id") else None)
    events = [Event(e["name"], e.get("attributes") or {}, e.get("time_ns")) for e in d.get("events", [])]
    return ReadableSpan(name=d["name"], context=ctx, parent=parent,
                        resource=resource or Resource({"service.name": SERVICE}),
                        attributes=d.get("attributes") or {}, events=events, kind=SpanKind[d["kind"]],
                        status=Status(StatusCode[d["status"]], d.get("status_description")),
                        start_time=d["start_ns"], end_time=d["end_ns"])


class ToCallable(SpanExporter):
    """An exporter that hands each finished span, as a dict, to `export` (a test's sink, maybe
    over the judge's link): one call per span, in the thread that ended it."""

    def __init__(self, export):
        self._export = export

    def export(self, spans) -> SpanExportResult:
        for s in spans:
            self._export(as_dict(s))
        return SpanExportResult.SUCCESS


class Recorder:
    """A tracer whose finished spans are kept in memory: `recorder.tracer`, `recorder.spans()`."""

    def __init__(self, service: str = SERVICE):
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource({"service.name": service}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("agent-loop-by-hand")

    def tracer_for(self, export):
        """A tracer of a provider of its own (this recorder's service) whose finished spans go
        only to `export(span_dict)`, not into this recorder: a test's `Sink.export`."""
        return tracer_for(export, self.provider.resource)

    def spans(self) -> list[dict]:
        """Every span finished so far, as dicts, in the order they started."""
        found = [as_dict(s) for s in self.exporter.get_finished_spans()]
        return sorted(found, key=lambda s: s["start_ns"])

    def clear(self) -> None:
        """Forget the spans recorded so far."""
        self.exporter.clear()

    def tree(self, times: bool = True) -> span_data.Tree:
        """The recorded spans as a span tree (workbook.trace.spans.tree)."""
        return span_data.tree(self.spans(), times=times)

    def __repr__(self) -> str:
        return f"<Recorder: {len(self.exporter.get_finished_spans())} span(s)>"


def tracer_for(export, resource: Resource | None = None):
    """A tracer of a provider of its own whose finished spans go only to `export(span_dict)` (a
    test's `Sink.export`), never to a recorder: how a judged test gets the notebook's spans
    (`notebook_side("workbook.trace.otel:tracer_for")`)."""
    provider = TracerProvider(resource=resource or Resource({"service.name": SERVICE}))
    provider.add_span_processor(SimpleSpanProcessor(ToCallable(export)))
    return provider.get_tracer("agent-loop-by-hand")


def inside(tracer, name, fn, *args, **kwargs):
    """fn(*args, **kwargs) called inside a span named `name`: a parent, for the tests to give."""
    with tracer.start_as_current_span(name):
        return fn(*args, **kwargs)


@contextlib.contextmanager
def official(recorder: Recorder):
    """The official OpenAI instrumentation (opentelemetry-instrumentation-openai-v2) switched on
    for the block, its spans going to `recorder`; switched off again after it."""
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider)
    try:
        yield recorder
    finally:
        instrumentor.uninstrument()


def send(found: list[dict], endpoint: str = PHOENIX) -> None:
    """Send span dicts over OTLP/HTTP to a collector on this machine (Phoenix: README). Needs the
    `traces` extra (pip install -e '.[traces]'); refuses any host but 127.0.0.1 / localhost."""
    host = endpoint.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]
    if host not in ("127.0.0.1", "localhost"):
        raise ValueError(f"send() only sends to this machine (127.0.0.1), not to {host!r}")
    try:  # an optional extra (not a workbook module), so looked up only when asked for
        http = importlib.import_module("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    except ImportError as e:
        raise ImportError("sending spans needs the traces extra: pip install -e '.[traces]'") from e
    exporter = http.OTLPSpanExporter(endpoint=endpoint)
    try:
        result = exporter.export([from_dict(d) for d in found])
    finally:
        exporter.shutdown()
    if result.name != "SUCCESS":
        raise ConnectionError(f"the collector at {endpoint} did not take the spans ({result.name}); "
                              "is Phoenix running? (README, 'Traces in Phoenix')")
