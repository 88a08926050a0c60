"""workbook.trace.sink: the spans a test holds, sent by a notebook's real tracer (recorder.tracer_for),
in this process and across the judge's link (the `ends` fixture: a JudgeEnd and a KernelEnd over a
socket pair)."""

from __future__ import annotations

import threading

import pytest
from opentelemetry import propagate
from opentelemetry.trace import SpanKind

from tests.judge_ends import in_kernel
from workbook.trace import genai, otel
from workbook.trace.sink import Sink


def two_spans(recorder, export):
    """The notebook's side: a run with a model call in it, on a tracer exporting to `export`."""
    tracer = recorder.tracer_for(export)
    with tracer.start_as_current_span("invoke_agent a"):
        with tracer.start_as_current_span("chat m", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute(genai.FINISH_REASONS, ["stop"])
            headers: dict = {}
            propagate.inject(headers)  # the kernel's own context: the tracer is a real one
    return headers["traceparent"]


def a_notebook(export):
    """A notebook with a recorder of its own: the kernel's end of the link calls this."""
    return two_spans(otel.Recorder(), export)


def test_a_sink_collects_only_inside_its_block_and_only_the_tracers_spans():
    recorder, sink = otel.Recorder(), Sink()
    two_spans(recorder, sink.export)  # before collecting(): not collected
    assert sink.late == 2 and sink.spans() == []
    with sink.collecting():
        traceparent = two_spans(recorder, sink.export)
    run, chat = sink.spans()
    assert (run["name"], chat["name"], chat["parent_id"]) == ("invoke_agent a", "chat m", run["span_id"])
    assert traceparent.split("-")[1:3] == [chat["trace_id"], chat["span_id"]]
    assert chat["attributes"][genai.FINISH_REASONS] == ["stop"] and recorder.spans() == []
    with sink.collecting():  # a new block starts empty
        pass
    assert sink.spans() == []


def test_the_kernels_tracer_exports_to_the_judges_sink_across_the_link(ends):
    judge, kernel = ends
    sink = Sink()
    with sink.collecting():
        traceparent = in_kernel(judge, kernel, a_notebook)(sink.export)
    run, chat = sink.spans("spans across the link")
    assert chat["parent_id"] == run["span_id"] and traceparent.split("-")[2] == chat["span_id"]
    assert type(chat["attributes"][genai.FINISH_REASONS]) is list


@pytest.mark.parametrize(("span", "problem"), [
    ({"name": "x"}, "must be a span dict"),
    ("not a dict", "must be a span dict"),
])
def test_a_span_that_is_not_a_span_dict_is_dropped_and_named(span, problem):
    sink = Sink()
    with sink.collecting():
        sink.export(span)  # never raises into the notebook's exporter
    with pytest.raises(AssertionError, match=f"the spans of x: .*{problem}"):
        sink.spans("the spans of x")


def test_a_sink_is_bounded_in_spans():
    recorder, sink = otel.Recorder(), Sink(max_spans=3)
    with sink.collecting():
        two_spans(recorder, sink.export)
        two_spans(recorder, sink.export)
    with pytest.raises(AssertionError, match="more than 3 spans"):
        sink.spans()


def test_spans_from_worker_threads_are_all_kept():
    recorder, sink = otel.Recorder(), Sink()
    with sink.collecting():
        threads = [threading.Thread(target=two_spans, args=(recorder, sink.export)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(sink.spans()) == 16
