"""A streamed reply under the judge (chapter 22): the notebook's SDK client reads a stream from the
judge's fake piece by piece, so the fake's clock moves as the notebook reads, a fault mid-stream
raises where it happens (the same exception as in-process), and a stream the notebook closes
early is recorded as closed early. The two ends run in this process over a socket pair."""

from __future__ import annotations

import pytest

from tests.judge_ends import in_kernel
from workbook import scenarios as S
from workbook.fake_llm import FakeLLM, anthropic_tools

QUESTION = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
TOOLS = S.taxi_spending().openai_tools()


def read_chat(client, clock):
    """The notebook's side: stream, noting the fake's time at each chunk."""
    assert type(client).__module__.startswith("openai") and type(client._client._transport).__name__ == "JudgeTransport"
    out = []
    for ch in client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True):
        args = "".join(tc.function.arguments or "" for tc in ch.choices[0].delta.tool_calls or ())
        out.append([clock(), args, ch.choices[0].finish_reason])
    return out


def test_a_stream_crosses_piece_by_piece(ends):
    judge, kernel = ends
    llm = FakeLLM(S.streamed(S.taxi_spending(), fragment=4))
    got = in_kernel(judge, kernel, read_chat)(llm.client(), llm.clock)
    times = [t for t, _, _ in got]
    assert times == sorted(times) and times[0] < times[-1], "each chunk read at its own time"
    assert "".join(a for _, a, _ in got) == '{"category": "taxi", "month": "2026-09"}'
    assert got[-1][2] == "tool_calls" and llm.stream_state.deliveries[0].status == "done"


def fail_chat(client):
    n = 0
    try:
        for _ in client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS, stream=True):
            n += 1
    except Exception as e:  # noqa: BLE001 - what the notebook sees
        return [n, type(e).__module__.split(".")[0], type(e).__name__]
    return [n, None, None]


def fail_messages(client):
    n = 0
    try:
        for _ in client.messages.create(model="c", max_tokens=500, messages=QUESTION,
                                        tools=anthropic_tools(TOOLS), stream=True):
            n += 1
    except Exception as e:  # noqa: BLE001 - what the notebook sees
        return [n, type(e).__module__.split(".")[0], type(e).__name__]
    return [n, None, None]


@pytest.mark.parametrize(("name", "chat", "messages"), [
    ("stream_cut", ["openai", "APIConnectionError"], ["httpx2", "RemoteProtocolError"]),
    ("stream_overloaded", ["openai", "APIError"], ["anthropic", "APIStatusError"]),
    ("stream_stall", ["openai", "APITimeoutError"], ["httpx2", "ReadTimeout"]),
])
def test_a_fault_mid_stream_raises_in_the_notebook_as_in_process(ends, name, chat, messages):
    judge, kernel = ends
    kept = {"stream_cut": 5, "stream_overloaded": 5, "stream_stall": 3}[name]
    llm = FakeLLM(name)
    assert in_kernel(judge, kernel, fail_chat)(llm.client(max_retries=0, timeout=0.5)) == [kept, *chat]
    llm = FakeLLM(name)
    got = in_kernel(judge, kernel, fail_messages)(llm.anthropic_client(max_retries=0, timeout=0.5))
    assert got == [kept - 1, *messages]
    assert llm.calls == 1


def stop_early(client):
    with client.messages.stream(model="c", max_tokens=500, messages=QUESTION,
                                tools=anthropic_tools(TOOLS)) as stream:
        for n, _ in enumerate(stream):
            if n == 2:
                break
    return n


def test_a_stream_closed_early_is_recorded(ends):
    judge, kernel = ends
    llm = FakeLLM(S.streamed(S.taxi_spending(), fragment=1))
    assert in_kernel(judge, kernel, stop_early)(llm.anthropic_client()) == 2
    delivery = llm.stream_state.deliveries[0]
    assert delivery.status == "closed early" and delivery.sent < len(delivery.frames)


def test_a_reply_that_is_not_streamed_still_crosses_whole(ends):
    judge, kernel = ends

    def ask(client):
        return client.chat.completions.create(model="m", messages=QUESTION, tools=TOOLS).choices[0].finish_reason

    assert in_kernel(judge, kernel, ask)(FakeLLM("taxi_spending").client()) == "tool_calls"
    with pytest.raises(Exception, match="Invalid type for 'stream'"):
        in_kernel(judge, kernel, lambda c: c.chat.completions.create(
            model="m", messages=QUESTION, extra_body={"stream": 1}))(FakeLLM("taxi_spending").client())
