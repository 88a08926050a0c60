"""Faults in the middle of a stream (issue 29), the same in-process and over HTTP with the real
SDKs: a cut connection, an error event after the 200, a stall past the read timeout, a reply that
ends at its token limit; what each SDK raises, after how many events, and that nothing retries."""

from __future__ import annotations

import anthropic
import httpx2
import openai
import pytest

from workbook import scenarios as S
from workbook.fake_llm import FakeLLM, anthropic_tools

QUESTION = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
TOOLS = S.taxi_spending().openai_tools()

# fault -> (what the openai SDK raises, what the anthropic SDK raises) while iterating
RAISES = {
    "stream_cut": (openai.APIConnectionError, httpx2.RemoteProtocolError),
    "stream_overloaded": (openai.APIError, anthropic.APIStatusError),
    "stream_stall": (openai.APITimeoutError, httpx2.ReadTimeout),
}


def chat_events(client):
    return client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True)


def messages_events(client):
    return client.messages.create(model="c", max_tokens=500, messages=QUESTION,
                                  tools=anthropic_tools(TOOLS), stream=True)


def run(name, api, http, retries=2):
    """(events before the error, the error or None, the fake) for one streamed request."""
    llm = FakeLLM(name, hang_seconds=2.0)
    seen, error = [], None

    def consume(client):
        nonlocal error
        try:
            for e in (chat_events if api == "chat" else messages_events)(client):
                seen.append(e)
        except Exception as e:  # noqa: BLE001 - the test records what was raised
            error = e

    if http:
        with llm.serve() as url:
            if api == "chat":
                consume(openai.OpenAI(base_url=url, api_key="k", max_retries=retries, timeout=0.5))
            else:
                consume(anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="k",
                                            max_retries=retries, timeout=0.5))
    else:
        maker = llm.client if api == "chat" else llm.anthropic_client
        consume(maker(max_retries=retries, timeout=0.5))
    return seen, error, llm


FACES = [("chat", False), ("chat", True), ("messages", False), ("messages", True)]


@pytest.mark.parametrize(("api", "http"), FACES)
@pytest.mark.parametrize("name", sorted(RAISES))
def test_a_fault_mid_stream_raises_after_the_events_sent_and_is_not_retried(name, api, http):
    seen, error, llm = run(name, api, http)
    expected = RAISES[name][api == "messages"]
    assert type(error) is expected, f"{name} on {api}: {type(error).__name__}: {error}"
    kept = {"stream_cut": 5, "stream_overloaded": 5, "stream_stall": 3}[name]
    kept -= api == "messages"  # the anthropic SDK does not yield the ping among them
    assert len(seen) == kept, "every event before the fault reaches the loop"
    assert llm.calls == 1, "the SDK retries the request, never a stream that broke after its 200"


@pytest.mark.parametrize("http", [False, True])
def test_the_overloaded_event_is_a_status_error_with_status_200(http):
    _, error, _ = run("stream_overloaded", "messages", http)
    assert error.status_code == 200 and error.body["error"]["type"] == "overloaded_error"
    _, error, _ = run("stream_overloaded", "chat", http)
    assert "server had an error" in error.message and error.body["type"] == "server_error"


@pytest.mark.parametrize(("api", "http"), FACES)
def test_an_incomplete_reply_ends_at_its_token_limit(api, http):
    seen, error, _ = run("stream_incomplete", api, http)
    assert error is None
    if api == "chat":
        assert seen[-1].choices[0].finish_reason == "length"
        args = "".join(tc.function.arguments or "" for ch in seen for tc in ch.choices[0].delta.tool_calls or ())
        with pytest.raises(ValueError):  # half a call: never to be run
            __import__("json").loads(args)
    else:
        assert seen[-2].delta.stop_reason == "max_tokens" and seen[-1].type == "message_stop"


@pytest.mark.parametrize("api", ["chat", "messages"])
def test_the_retry_after_a_fault_streams_whole(api):
    llm = FakeLLM("stream_cut")
    maker = llm.client if api == "chat" else llm.anthropic_client
    client = maker(max_retries=0)
    with pytest.raises((openai.APIConnectionError, httpx2.RemoteProtocolError)):
        list((chat_events if api == "chat" else messages_events)(client))
    events = list((chat_events if api == "chat" else messages_events)(client))
    end = events[-1].choices[0].finish_reason if api == "chat" else events[-1].type
    assert end == ("tool_calls" if api == "chat" else "message_stop") and llm.calls == 2


def test_a_stall_moves_the_clock_by_the_read_timeout():
    llm = FakeLLM("stream_stall")
    with pytest.raises(openai.APITimeoutError):
        list(chat_events(llm.client(max_retries=0, timeout=1.5)))
    assert llm.clock() > 1.5


def test_the_stream_helpers_raise_the_same_way():
    llm = FakeLLM("stream_overloaded")
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"), \
            llm.anthropic_client(max_retries=0).messages.stream(
                model="c", max_tokens=500, messages=QUESTION, tools=anthropic_tools(TOOLS)) as stream:
        stream.get_final_message()
    llm = FakeLLM("stream_cut")
    with pytest.raises(openai.APIConnectionError), llm.client(max_retries=0).chat.completions.stream(
            model="m", messages=QUESTION, tools=TOOLS) as stream:
        stream.get_final_completion()
