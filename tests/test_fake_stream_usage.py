"""A streamed reply's usage is the non-streamed call's, caching figures included (issue 29): the
same two requests (the second sharing a long prefix with the first) sent to two fakes, the second
streamed on one and not on the other, in-process and over HTTP; on Chat Completions (every
dialect's usage shape), Messages (a cache_control breakpoint, read and written) and Responses."""

from __future__ import annotations

import anthropic
import openai
import pytest

from workbook import scenarios as S
from workbook.fake_llm import FakeLLM

LONG_SYSTEM = "You are the shop's support agent. " + "Policy line: refunds take 14 days. " * 160
FIRST, SECOND = "Where is A-1001?", "And A-1002?"


def answers():
    return S.streamed(S.scripted("It ships tomorrow.", "It shipped."), fragment=4)


@pytest.fixture(params=["in-process", "http"])
def clients(request):
    """(openai client, anthropic client) for a fake, through the chosen face."""
    def make(llm):
        if request.param == "in-process":
            return llm.client(max_retries=0), llm.anthropic_client(max_retries=0)
        ctx = llm.serve()
        url = ctx.__enter__()
        request.addfinalizer(lambda: ctx.__exit__(None, None, None))
        return (openai.OpenAI(base_url=url, api_key="k", max_retries=0),
                anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="k", max_retries=0))
    return make


def chat_messages(question):
    return [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": question}]


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "ollama"])
def test_chat_usage_streamed_is_the_usage_not_streamed(clients, dialect):
    usages = []
    for streamed in (False, True):
        client, _ = clients(FakeLLM(answers(), dialect))
        client.chat.completions.create(model="m", messages=chat_messages(FIRST))
        if streamed:
            chunks = list(client.chat.completions.create(model="m", messages=chat_messages(SECOND), stream=True,
                                                         stream_options={"include_usage": True}))
            usages.append(chunks[-1].usage.model_dump())
        else:
            usages.append(client.chat.completions.create(model="m", messages=chat_messages(SECOND)).usage.model_dump())
    whole, streamed_usage = usages
    assert streamed_usage == whole
    cached = {"openai": (whole.get("prompt_tokens_details") or {}).get("cached_tokens"),
              "deepseek": whole.get("prompt_cache_hit_tokens"), "ollama": 0}[dialect]
    assert (cached or 0) >= 1024 or dialect == "ollama", f"the second request hits the cache: {whole}"


def test_messages_usage_streamed_is_the_usage_not_streamed(clients):
    system = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]

    def ask(claude, question, stream):
        kw = dict(model="claude-sonnet-4-5", max_tokens=500, system=system,
                  messages=[{"role": "user", "content": question}])
        if not stream:
            return claude.messages.create(**kw)
        with claude.messages.stream(**kw) as s:
            return s.get_final_message()

    for question in (FIRST, SECOND):  # the first writes the cache, the second reads it
        _, one = clients(FakeLLM(answers()))
        _, two = clients(FakeLLM(answers()))
        if question == SECOND:
            ask(one, FIRST, False), ask(two, FIRST, False)
        whole, streamed = ask(one, question, False), ask(two, question, True)
        assert streamed.usage.model_dump() == whole.usage.model_dump()
        figure = "cache_creation_input_tokens" if question == FIRST else "cache_read_input_tokens"
        assert getattr(whole.usage, figure) >= 1024, f"{question}: {whole.usage}"


def test_responses_usage_streamed_is_the_usage_not_streamed(clients):
    usages = []
    for streamed in (False, True):
        client, _ = clients(FakeLLM(answers()))
        client.responses.create(model="gpt-5-mini", instructions=LONG_SYSTEM, input=FIRST)
        if streamed:
            with client.responses.stream(model="gpt-5-mini", instructions=LONG_SYSTEM, input=SECOND) as s:
                usages.append(s.get_final_response().usage.model_dump())
        else:
            usages.append(client.responses.create(model="gpt-5-mini", instructions=LONG_SYSTEM,
                                                  input=SECOND).usage.model_dump())
    assert usages[1] == usages[0]
    assert usages[0]["input_tokens_details"]["cached_tokens"] >= 1024, usages[0]
