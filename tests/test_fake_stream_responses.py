"""Responses API streaming on the fake (issue 29): named events with sequence numbers from 0 in
OpenAI's order, no [DONE], `responses.stream(...).get_final_response()` is what `create` gives,
in-process and over HTTP with the real SDK; faults mid-stream; the raw framing."""

from __future__ import annotations

import http.client
import json
import urllib.parse

import openai
import pytest

from workbook import scenarios as S
from workbook.fake_llm import FakeLLM

UNICODE = "Zürich: 5 000 ₸ — done ✓ \"q\""
TOOLS = [{"type": "function", "name": "txn_sum", "description": "Total spending",
          "parameters": S.taxi_spending().openai_tools()[0]["function"]["parameters"], "strict": False}]


def asks(fragment, *plans):
    return S.streamed(S.scripted(S.calls(S.Call("txn_sum", {"category": UNICODE, "month": "2026-09"}),
                                         S.Call("txn_sum", {"category": "food", "month": "2026-09"})),
                                 UNICODE, tools=("txn_sum",)), *plans, fragment=fragment)


@pytest.fixture(params=["in-process", "http"])
def client_of(request):
    def make(llm, **kw):
        if request.param == "http":
            ctx = llm.serve()
            url = ctx.__enter__()
            request.addfinalizer(lambda: ctx.__exit__(None, None, None))
            return openai.OpenAI(base_url=url, api_key="k", max_retries=0, **kw)
        return llm.client(max_retries=0, **kw)
    return make


def create(client, **kw):
    return client.responses.create(model="gpt-5-mini", input="How much on taxis?", tools=TOOLS, **kw)


def dump(response):
    out = response.model_dump()
    for item in out["output"]:
        item.pop("parsed_arguments", None)
    return out


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "ollama"])
@pytest.mark.parametrize("fragment", [1, 4, None])
def test_events_in_order_and_the_final_response_is_what_create_gives(client_of, dialect, fragment):
    llm = FakeLLM(asks(fragment), dialect)
    events = list(create(client_of(llm), stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert events[0].response.status == "in_progress" and events[0].response.output == []
    whole = create(FakeLLM(asks(fragment), dialect).client())
    assert dump(events[-1].response) == dump(whole)
    for i, item in enumerate(whole.output):
        added = next(e for e in events if e.type == "response.output_item.added" and e.output_index == i)
        assert added.item.id == item.id
        if item.type == "function_call":
            assert added.item.arguments == "" and added.item.status == "in_progress"
            args = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta"
                           and e.output_index == i)
            assert args == item.arguments and json.loads(args)["month"] == "2026-09"
            done = next(e for e in events if e.type == "response.function_call_arguments.done" and e.output_index == i)
            assert done.arguments == item.arguments
    with client_of(FakeLLM(asks(fragment), dialect)).responses.stream(
            model="gpt-5-mini", input="How much on taxis?", tools=TOOLS) as stream:
        final = stream.get_final_response()
    assert dump(final) == dump(whole)


def test_a_text_reply_streams_its_parts(client_of):
    llm = FakeLLM(S.streamed(S.scripted(UNICODE), fragment=3), "ollama")  # no reasoning item
    events = list(create(client_of(llm), stream=True))
    kinds = [e.type for e in events]
    n = len(UNICODE) // 3 + (len(UNICODE) % 3 > 0)
    assert kinds == ["response.created", "response.in_progress", "response.output_item.added",
                     "response.content_part.added"] + ["response.output_text.delta"] * n + [
        "response.output_text.done", "response.content_part.done", "response.output_item.done",
        "response.completed"]
    assert "".join(e.delta for e in events if e.type.endswith("delta")) == UNICODE
    assert events[-4].text == UNICODE and events[-1].response.output_text == UNICODE


def test_raw_framing():
    llm = FakeLLM(asks(6))
    with llm.serve() as url:
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        conn.request("POST", "/v1/responses", json.dumps({"model": "gpt-5-mini", "input": "hi", "tools": TOOLS,
                                                          "stream": True}),
                     {"Content-Type": "application/json", "Authorization": "Bearer k"})
        response = conn.getresponse()
        data = response.read()
        conn.close()
    assert response.getheader("Content-Type").startswith("text/event-stream")
    frames = data.decode("utf-8").split("\n\n")
    assert frames[-1] == "" and b"[DONE]" not in data
    for n, frame in enumerate(frames[:-1]):
        event, payload = frame.split("\n")
        body = json.loads(payload.removeprefix("data: "))
        assert event == f"event: {body['type']}" and body["sequence_number"] == n


def test_faults_mid_stream(client_of):
    with pytest.raises(openai.APIConnectionError):
        list(create(client_of(FakeLLM(asks(4, S.StreamPlan(cut_after=6)))), stream=True))
    llm = FakeLLM(asks(4, S.StreamPlan(error_after=2)))
    with pytest.raises(openai.APIError, match="server had an error") as caught:
        list(create(client_of(llm), stream=True))
    assert caught.value.body["code"] == "server_error" and llm.calls == 1
    with pytest.raises(openai.APITimeoutError):
        list(create(client_of(FakeLLM(asks(4, S.StreamPlan(stall_after=3)), hang_seconds=1.0), timeout=0.3),
                    stream=True))


def test_an_incomplete_stream_ends_incomplete_and_the_helper_refuses_it(client_of):
    events = list(create(client_of(FakeLLM(asks(4, S.StreamPlan(incomplete_after=5)))), stream=True))
    last = events[-1]
    assert last.type == "response.incomplete" and last.response.incomplete_details.reason == "max_output_tokens"
    assert last.response.output[-1].status == "incomplete"
    with pytest.raises(RuntimeError, match="Didn't receive a `response.completed` event|response.completed"), \
            client_of(FakeLLM(asks(4, S.StreamPlan(incomplete_after=5)))).responses.stream(
                model="gpt-5-mini", input="How much on taxis?", tools=TOOLS) as stream:
        stream.get_final_response()


def test_each_piece_arrives_at_its_time_on_the_fakes_clock():
    """First token 200 ms + 1 ms a prompt token, then 5 ms a character: each delta when its
    characters are done, as on Chat Completions (the deltas once all came at the end)."""
    llm = FakeLLM(S.streamed(S.scripted("abcdefgh"), fragment=4))
    seen = [(llm.clock.ms, e) for e in llm.client().responses.create(model="gpt-5-mini", input="hi", stream=True)]
    first = 200 + seen[-1][1].response.usage.input_tokens
    deltas = [(ms, e.delta) for ms, e in seen if e.type == "response.output_text.delta"]
    assert deltas == [(first + 20, "abcd"), (first + 40, "efgh")]
    assert seen[0][0] == first and seen[-1][0] == first + 40
