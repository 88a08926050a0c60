"""Streaming on the fake (issue 29): Chat Completions and Messages streams, in-process and over
HTTP with the real SDKs, every dialect and fragment size; a streamed reply accumulates to what
the non-streamed call returns; the SSE framing byte for byte; requests a stream cannot serve."""

from __future__ import annotations

import http.client
import json
import urllib.parse

import anthropic
import openai
import pytest

from workbook import scenarios as S
from workbook.engine import stream_timing
from workbook.fake_llm import FakeLLM, anthropic_tools

QUESTION = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
UNICODE = "Zürich: 5 000 ₸ — done ✓ 🚕 \"quoted\" \\ back"
FRAGMENTS = [1, 3, None]
DIALECTS = ["openai", "deepseek", "ollama"]


def two_calls(fragment, read_bytes=None):
    """Two tool calls with non-ASCII, quoted and escaped arguments, then a text answer."""
    asks = S.scripted(S.calls(S.Call("txn_sum", {"category": "такси", "month": "2026-09"}),
                              S.Call("txn_sum", {"category": UNICODE, "month": "2026-09"})),
                      UNICODE, tools=("txn_sum",))
    plan = S.StreamPlan(fragment=fragment, read_bytes=read_bytes)
    return S.streamed(asks, *[plan] * 4, fragment=fragment)


class Faces:
    """The same fake through the in-process client or real HTTP."""

    def __init__(self, llm, http, url=None):
        self.llm, self.http, self.url = llm, http, url

    def openai(self, **kw):
        if self.http:
            return openai.OpenAI(base_url=self.url, api_key="k", max_retries=0, **kw)
        return self.llm.client(max_retries=0, **kw)

    def anthropic(self, **kw):
        if self.http:
            return anthropic.Anthropic(base_url=self.url.removesuffix("/v1"), api_key="k", max_retries=0, **kw)
        return self.llm.anthropic_client(max_retries=0, **kw)


@pytest.fixture(params=["in-process", "http"])
def face(request):
    def make(scenario, dialect="openai"):
        llm = FakeLLM(scenario, dialect)
        if request.param == "http":
            ctx = llm.serve()
            url = ctx.__enter__()
            request.addfinalizer(lambda: ctx.__exit__(None, None, None))
            return Faces(llm, True, url)
        return Faces(llm, False)
    return make


def tools():
    return S.taxi_spending().openai_tools()


def create(client, messages, stream=False, **kw):
    return client.chat.completions.create(model="fake-model", messages=messages, tools=tools(),
                                          stream=stream, **kw)


def by_index(chunks):
    """The accumulation the chapter teaches: tool calls keyed by index, arguments joined."""
    text, reasoning, calls, finish, usage = "", "", {}, None, None
    for ch in chunks:
        if ch.usage is not None:
            usage = ch.usage
        for choice in ch.choices:
            d = choice.delta
            text += d.content or ""
            reasoning += getattr(d, "reasoning_content", None) or getattr(d, "reasoning", None) or ""
            for tc in d.tool_calls or ():
                slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                slot["id"] = tc.id or slot["id"]
                slot["name"] += (tc.function.name or "") if tc.function else ""
                slot["arguments"] += (tc.function.arguments or "") if tc.function else ""
            finish = choice.finish_reason or finish
    return text, reasoning, [calls[i] for i in sorted(calls)], finish, usage


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_chat_stream_accumulates_to_the_reply_create_gives(face, dialect, fragment):
    f = face(two_calls(fragment), dialect)
    twin = FakeLLM(two_calls(fragment), dialect).client()  # the same engine state, not streamed
    whole = create(twin, QUESTION)
    chunks = list(create(f.openai(), QUESTION, stream=True, stream_options={"include_usage": True}))
    text, reasoning, calls, finish, usage = by_index(chunks)
    msg = whole.choices[0].message
    assert calls == [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                     for c in msg.tool_calls]
    assert [json.loads(c["arguments"])["category"] for c in calls] == ["такси", UNICODE]
    assert finish == whole.choices[0].finish_reason == "tool_calls"
    assert usage.model_dump() == whole.usage.model_dump()
    if dialect == "deepseek":
        assert reasoning == msg.reasoning_content and reasoning
    assert len({ch.id for ch in chunks}) == 1 and len({ch.created for ch in chunks}) == 1
    assert f.llm.requests[-1]["stream"] is True and f.llm.calls == 1


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_chat_stream_shape(face, dialect, fragment):
    chunks = list(create(face(two_calls(fragment), dialect).openai(), QUESTION, stream=True,
                         stream_options={"include_usage": True}))
    *body, usage_chunk = chunks
    assert usage_chunk.choices == [] and usage_chunk.usage.total_tokens > 0
    assert all(ch.usage is None for ch in body), "usage: null on every chunk but the last"
    assert body[0].choices[0].delta.role == "assistant"
    assert all(ch.choices[0].delta.role is None for ch in body[1:]), "role only in the first delta"
    last = body[-1].choices[0]
    assert last.finish_reason == "tool_calls" and last.delta.model_dump(exclude_none=True) == {}
    assert all(ch.choices[0].finish_reason is None for ch in body[:-1])
    fragments = [tc for ch in body for tc in ch.choices[0].delta.tool_calls or ()]
    if dialect == "ollama":  # each call whole in one chunk
        assert [tc.index for tc in fragments] == [0, 1]
        assert all(tc.id and tc.function.name and json.loads(tc.function.arguments) for tc in fragments)
        return
    for index in (0, 1):
        mine = [tc for tc in fragments if tc.index == index]
        assert mine[0].id and mine[0].type == "function" and mine[0].function.name == "txn_sum"
        assert mine[0].function.arguments == ""
        assert all(tc.id is None and tc.type is None and tc.function.name is None for tc in mine[1:])
        if fragment == 1:
            assert all(len(tc.function.arguments) == 1 for tc in mine[1:])
    if dialect == "deepseek":
        kinds = ["r" if getattr(ch.choices[0].delta, "reasoning_content", None) else "t" if ch.choices[0].delta.tool_calls
                 else "-" for ch in body]
        assert "r" in kinds and kinds.index("t") > max(i for i, k in enumerate(kinds) if k == "r")


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_chat_text_and_no_usage_without_include_usage(face, fragment):
    f = face(S.streamed(S.scripted(UNICODE), fragment=fragment))
    chunks = list(create(f.openai(), QUESTION, stream=True))
    assert "".join(ch.choices[0].delta.content or "" for ch in chunks) == UNICODE
    assert all(ch.usage is None for ch in chunks) and all(ch.choices for ch in chunks)
    assert chunks[0].choices[0].delta.content == "" and chunks[-1].choices[0].finish_reason == "stop"
    if fragment == 1:
        assert len(chunks) == len(UNICODE) + 2


@pytest.mark.parametrize("dialect", DIALECTS)
def test_chat_stream_helper_gives_the_non_streamed_completion(face, dialect):
    f = face(two_calls(4), dialect)
    with f.openai().chat.completions.stream(model="fake-model", messages=QUESTION, tools=tools(),
                                            stream_options={"include_usage": True}) as stream:
        final = stream.get_final_completion()
    whole = create(FakeLLM(two_calls(4), dialect).client(), QUESTION)
    got, want = final.choices[0].message, whole.choices[0].message
    assert [(c.id, c.function.name, c.function.arguments) for c in got.tool_calls] == \
        [(c.id, c.function.name, c.function.arguments) for c in want.tool_calls]
    assert got.content == want.content and final.choices[0].finish_reason == "tool_calls"
    assert final.usage.model_dump() == whole.usage.model_dump() and final.id == whole.id


def test_deepseek_thinking_streams_reasoning_first(face):
    f = face(S.deepseek_thinking(), "deepseek")
    chunks = list(create(f.openai(), [{"role": "user", "content": "What is 2 + 2?"}], stream=True))
    deltas = [ch.choices[0].delta for ch in chunks]
    r = [i for i, d in enumerate(deltas) if getattr(d, "reasoning_content", None)]
    assert r and all(deltas[i].content is None for i in r), "reasoning chunks carry content: null"


def anthropic_kwargs(messages=QUESTION):
    return dict(model="claude-fake", max_tokens=1000, messages=messages,
                tools=anthropic_tools(tools()))


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_messages_stream_gives_what_create_gives(face, fragment):
    f = face(two_calls(fragment))
    with f.anthropic().messages.stream(**anthropic_kwargs()) as stream:
        events = list(stream)
        final = stream.get_final_message()
    assert [e.type for e in events].count("content_block_stop") == 2
    whole = FakeLLM(two_calls(fragment)).anthropic_client().messages.create(**anthropic_kwargs())
    assert final.model_dump() == whole.model_dump()
    assert [b.input["category"] for b in final.content] == ["такси", UNICODE]
    assert f.llm.requests[-1]["stream"] is True


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_messages_raw_events(face, fragment):
    f = face(S.streamed(S.scripted(S.Reply(calls=(S.Call("txn_sum", {"category": UNICODE}),),
                                           text=UNICODE), tools=("txn_sum",)), fragment=fragment))
    raw = list(f.anthropic().messages.create(stream=True, **anthropic_kwargs()))
    types = [e.type for e in raw]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    assert raw[0].message.content == [] and raw[0].message.stop_reason is None
    starts = [e for e in raw if e.type == "content_block_start"]
    assert [s.index for s in starts] == [0, 1]
    assert starts[0].content_block.text == "" and starts[1].content_block.input == {}
    text = "".join(e.delta.text for e in raw if e.type == "content_block_delta" and e.index == 0)
    parts = [e.delta.partial_json for e in raw if e.type == "content_block_delta" and e.index == 1]
    assert text == UNICODE and parts[0] == "" and json.loads("".join(parts)) == {"category": UNICODE}
    assert raw[-2].delta.stop_reason == "tool_use" and raw[-2].usage.output_tokens > 1
    assert types.count("content_block_stop") == 2


def test_text_stream_helper(face):
    f = face(S.streamed(S.scripted(UNICODE), fragment=2))
    with f.anthropic().messages.stream(**anthropic_kwargs()) as stream:
        assert "".join(stream.text_stream) == UNICODE


def post_raw(url, path, body, headers):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **headers})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


def test_raw_bytes_of_the_framing():
    """Over HTTP: chunked text/event-stream; Chat Completions frames are `data:` lines only and
    end with [DONE]; Messages frames have `event:` lines matching the JSON's type, no [DONE]."""
    llm = FakeLLM(two_calls(5))
    with llm.serve() as url:
        response, data = post_raw(url, "/v1/chat/completions", {
            "model": "m", "messages": QUESTION, "tools": tools(), "stream": True},
            {"Authorization": "Bearer k"})
        assert response.status == 200 and response.getheader("Transfer-Encoding") == "chunked"
        assert response.getheader("Content-Type").startswith("text/event-stream")
        frames = data.decode("utf-8").split("\n\n")
        assert frames[-1] == "" and frames[-2] == "data: [DONE]"
        assert all(f.startswith("data: {") and "\n" not in f for f in frames[:-2])
        assert b"event:" not in data
        response, data = post_raw(url, "/v1/messages", {"stream": True, **anthropic_kwargs()},
                                  {"x-api-key": "k"})
        frames = data.decode("utf-8").split("\n\n")
        assert frames[-1] == "" and b"[DONE]" not in data
        assert 'event: ping\ndata: {"type": "ping"}' in frames, "a ping among the events, as Anthropic sends"
        for frame in frames[:-1]:
            event, payload = frame.split("\n")
            assert event.startswith("event: ") and payload.startswith("data: ")
            assert json.loads(payload[6:])["type"] == event[7:]


@pytest.mark.parametrize("read_bytes", [2, 7])
def test_reads_that_split_frames_and_utf8(face, read_bytes):
    """The body in reads of 2 or 7 bytes (splitting a frame and a UTF-8 sequence): the SDKs'
    decoders put it back together."""
    f = face(two_calls(2, read_bytes))
    text, _, calls, _, _ = by_index(create(f.openai(), QUESTION, stream=True))
    assert json.loads(calls[1]["arguments"])["category"] == UNICODE
    raw = list(f.anthropic().messages.create(stream=True, **anthropic_kwargs()))
    parts = [e.delta.partial_json for e in raw if e.type == "content_block_delta" and e.index == 1]
    assert json.loads("".join(parts))["category"] == UNICODE


def test_a_stream_no_provider_sends_is_a_clear_400(face):
    f = face(S.taxi_spending())
    with pytest.raises(openai.BadRequestError, match="Invalid type for 'stream': expected a boolean"):
        f.openai().chat.completions.create(model="m", messages=QUESTION, extra_body={"stream": "yes"})
    with pytest.raises(openai.BadRequestError, match="'stream_options' parameter is only allowed"):
        f.openai().chat.completions.create(model="m", messages=QUESTION,
                                           stream_options={"include_usage": True})
    with pytest.raises(anthropic.BadRequestError, match="stream: Input should be a valid boolean"):
        f.anthropic().messages.create(**anthropic_kwargs(), extra_body={"stream": "yes"})
    with pytest.raises(openai.BadRequestError, match="Invalid type for 'stream': expected a boolean"):
        f.openai().responses.create(model="m", input="hi", extra_body={"stream": 1})
    assert [b.get("stream") for b in f.llm.requests] == ["yes", None, "yes", 1], "refused, and recorded"
    assert f.llm.calls == 4 and "stream_options" in f.llm.requests[1]


def test_every_streamed_request_is_recorded_whatever_it_is_answered(face):
    f = face(S.rate_limited(failures=1))
    with pytest.raises(openai.RateLimitError):
        list(create(f.openai(), QUESTION, stream=True))
    with pytest.raises(openai.BadRequestError, match="messages"):
        f.openai().chat.completions.create(model="m", messages=[], stream=True)
    with pytest.raises(openai.BadRequestError, match="stream_options"):
        f.openai().chat.completions.create(model="m", messages=QUESTION, stream=False,
                                           stream_options={"include_usage": True})
    list(create(f.openai(), QUESTION, stream=True))
    assert [(b.get("stream"), len(b.get("messages") or [])) for b in f.llm.requests] == [
        (True, 1), (True, 0), (False, 1), (True, 1)], "a 429, a 400, a refused stream and a stream"


def test_an_error_status_on_a_streamed_request_is_json_before_any_event(face):
    f = face(S.rate_limited(failures=1))
    with pytest.raises(openai.RateLimitError, match="Rate limit reached"):
        list(create(f.openai(), QUESTION, stream=True))
    assert len(list(create(f.openai(), QUESTION, stream=True))) > 3


def test_the_clock_reads_first_token_and_whole_reply():
    """First token 200 ms + 1 ms a prompt token after the request, then 5 ms a character; a reply
    that is not streamed arrives whole at its last character."""
    llm = FakeLLM(S.streamed(S.scripted("abcdefgh"), fragment=4))
    client, seen = llm.client(), []
    for ch in create(client, QUESTION, stream=True, stream_options={"include_usage": True}):
        seen.append((llm.clock(), ch.choices[0].delta.content if ch.choices else None))
    prompt = ch.usage.prompt_tokens
    first = (stream_timing.FIRST_TOKEN_MS + prompt) / 1000
    assert seen[0] == (first, "") and seen[1] == (first + 0.02, "abcd") and seen[2] == (first + 0.04, "efgh")
    start = llm.clock()
    create(client, QUESTION)
    assert llm.clock() - start == pytest.approx(first + 0.04)


def test_stream_plan_rejects_bad_values():
    with pytest.raises(ValueError, match="fragment must be a whole number >= 1"):
        S.StreamPlan(fragment=0)
    with pytest.raises(ValueError, match="one way to end at a time"):
        S.StreamPlan(cut_after=1, stall_after=2)
    with pytest.raises(TypeError, match="must be a StreamPlan"):
        S.streamed(S.taxi_spending(), {"cut_after": 1})


def test_the_fakes_clock_moves_forward_only():
    """A notebook handed the clock could run it backwards and forge its timings (red team, issue 24):
    tests hand it `llm.clock.now`, and the clock itself refuses to go back."""
    llm = FakeLLM(S.get("two_orders"))
    llm.clock.advance(1.5)
    with pytest.raises(ValueError, match="forward only"):
        llm.clock.advance(-1)
    assert llm.clock.now() == llm.clock() == 1.5
