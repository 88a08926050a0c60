"""workbook.trace.otel: real SDK spans in memory, the official instrumentation beside them, and the
fake provider recording each request's W3C traceparent."""

from __future__ import annotations

import importlib

import openai
import pytest
from opentelemetry import propagate
from opentelemetry.trace import SpanKind

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.trace import genai, otel, spans

TRACEPARENT = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"


def _ask(client, headers=None):
    return client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}],
                                          extra_headers=headers or {})


def test_a_recorder_gives_its_spans_as_data_and_keeps_them_to_itself():
    one, other = otel.Recorder(), otel.Recorder()
    with one.tracer.start_as_current_span("invoke_agent a") as agent:
        agent.set_attribute(genai.OPERATION_NAME, genai.INVOKE_AGENT)
        with one.tracer.start_as_current_span("chat m", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute(genai.FINISH_REASONS, ["stop"])
    found = one.spans()
    assert [s["name"] for s in found] == ["invoke_agent a", "chat m"] and other.spans() == []
    assert found[1]["parent_id"] == found[0]["span_id"] and found[1]["kind"] == "CLIENT"
    assert found[1]["attributes"][genai.FINISH_REASONS] == ["stop"]  # a list, not the SDK's tuple
    assert one.tree(times=False).text() == "invoke_agent a\n└─ chat m  CLIENT  → stop"
    assert otel.as_dict(otel.from_dict(found[1])) == found[1]
    one.clear()
    assert one.spans() == []


def test_an_exception_is_an_error_status_and_an_event():
    rec = otel.Recorder()
    with pytest.raises(KeyError):
        with rec.tracer.start_as_current_span("execute_tool x"):
            raise KeyError("x")
    (s,) = rec.spans()
    assert s["status"] == "ERROR" and [e["name"] for e in s["events"]] == ["exception"]


def test_the_fake_records_each_requests_traceparent_in_process_and_over_http():
    llm = FakeLLM(scenarios.scripted("hello"))
    _ask(llm.client(), {"traceparent": TRACEPARENT})
    _ask(llm.client())
    with llm.serve() as base_url:
        _ask(openai.OpenAI(base_url=base_url, api_key="k", max_retries=0), {"traceparent": TRACEPARENT})
    assert llm.traceparents == [TRACEPARENT, None, TRACEPARENT]


def test_a_traceparent_crosses_from_the_loops_span_to_the_provider():
    rec, llm = otel.Recorder(), FakeLLM(scenarios.scripted("hello"))
    with rec.tracer.start_as_current_span("chat fake-model", kind=SpanKind.CLIENT):
        headers: dict = {}
        propagate.inject(headers)
        _ask(llm.client(), headers)
    (s,) = rec.spans()
    version, trace_id, span_id, _flags = llm.traceparents[0].split("-")
    assert (version, trace_id, span_id) == ("00", s["trace_id"], s["span_id"])


def test_the_official_instrumentation_records_into_a_recorder_and_stops_after():
    rec, llm = otel.Recorder(), FakeLLM(scenarios.scripted("hello"))
    with otel.official(rec):
        _ask(llm.client())
    _ask(llm.client())
    (s,) = rec.spans()
    assert s["name"] == "chat fake-model" and s["kind"] == "CLIENT"
    assert s["attributes"][genai.INPUT_TOKENS] > 0 and s["attributes"][genai.FINISH_REASONS] == ["stop"]
    assert llm.traceparents == [None, None]  # it records the call; it sends no traceparent


def test_send_goes_to_this_machine_only():
    with pytest.raises(ValueError, match="127.0.0.1"):
        otel.send([], "http://collector.example.com:4318/v1/traces")
    try:
        importlib.import_module("opentelemetry.exporter.otlp.proto.http")
    except ImportError:
        with pytest.raises(ImportError, match="traces extra"):
            otel.send([])


def test_a_recorded_run_reads_back_as_a_trajectory():
    rec = otel.Recorder()
    with rec.tracer.start_as_current_span("invoke_agent a") as agent:
        agent.set_attribute(genai.OPERATION_NAME, genai.INVOKE_AGENT)
        agent.set_attribute(genai.STOP_STATUS, "done")
        with rec.tracer.start_as_current_span("chat m", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute(genai.OPERATION_NAME, genai.CHAT)
            chat.set_attribute(genai.INPUT_TOKENS, 12)
            chat.set_attribute(genai.OUTPUT_TOKENS, 3)
    traj = spans.to_trajectory(rec.spans())
    assert traj.status == "done" and traj.totals() == (12, 3) and traj.steps[0].tool is None
