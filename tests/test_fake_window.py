"""The context window (workbook/engine/window.py): a cloud dialect's 400 in the provider's words,
Anthropic's, Ollama's silent cut, and the defaults."""

import http.client

import anthropic
import openai
import pytest

from workbook import scenarios
from workbook.fake_llm import WINDOWS, FakeLLM, prompt_tokens

S = scenarios
BIG = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "word " * 400}]


def refuse(llm, messages, **kw):
    with pytest.raises(openai.BadRequestError) as e:
        llm.client(max_retries=0).chat.completions.create(model="m", messages=messages, **kw)
    return e.value


def test_openai_says_context_length_exceeded_in_its_words():
    llm = FakeLLM(S.scripted("ok"), context_window=300)
    p = prompt_tokens(BIG, None)
    e = refuse(llm, BIG)
    assert e.code == "context_length_exceeded" and e.body["param"] == "messages"
    assert e.body["message"] == (f"This model's maximum context length is 300 tokens. However, your "
                                 f"messages resulted in {p} tokens. Please reduce the length of the "
                                 f"messages.")
    e = refuse(llm, BIG[:1], max_tokens=400)
    small = prompt_tokens(BIG[:1], None)
    assert e.body["message"].endswith(f"However, you requested {small + 400} tokens ({small} in the "
                                      "messages, 400 in the completion). Please reduce the length of "
                                      "the messages or completion.")
    assert llm.seen == [] and len(llm.requests) == 2  # the model never saw a refused request


def test_deepseek_names_messages_and_completion_with_its_own_code():
    llm = FakeLLM(S.scripted("ok"), dialect="deepseek", context_window=300)
    p = prompt_tokens(BIG, None)
    e = refuse(llm, BIG)
    assert e.code == "invalid_request_error" and e.body["param"] is None
    assert e.body["message"] == (f"This model's maximum context length is 300 tokens. However, you "
                                 f"requested {p} tokens ({p} in the messages, 0 in the completion). "
                                 "Please reduce the length of the messages or completion.")


def test_tools_count_toward_the_window_and_a_request_that_fits_is_answered():
    tools = S.two_orders().openai_tools()
    msgs = BIG[:1] + [{"role": "user", "content": "hi"}]
    fits = prompt_tokens(msgs, tools)
    llm = FakeLLM(S.scripted("ok"), context_window=fits)
    assert llm.client().chat.completions.create(model="m", messages=msgs, tools=tools).usage.prompt_tokens == fits
    assert refuse(FakeLLM(S.scripted("ok"), context_window=fits - 1), msgs, tools=tools).status_code == 400


def test_ollama_never_refuses_it_drops_the_oldest_and_can_lose_the_question():
    llm = FakeLLM(S.scripted("ok"), dialect="ollama", context_window=300)
    history = [{"role": "system", "content": "Be brief."},
               {"role": "user", "content": "QUESTION: where is A-1001? " + "detail " * 100},
               {"role": "assistant", "content": "Looking."},
               {"role": "user", "content": "go on " * 150}]
    r = llm.client().chat.completions.create(model="m", messages=history)
    assert r.choices[0].message.content == "ok"
    seen = llm.seen[-1]
    assert seen[0]["role"] == "system" and seen[-1] == history[-1]
    assert not any("QUESTION" in str(m.get("content")) for m in seen)


def test_anthropic_prompt_too_long_and_max_tokens_over_the_limit():
    claude = FakeLLM(S.scripted("ok"), context_window=300).anthropic_client(max_retries=0)
    user = [{"role": "user", "content": "word " * 400}]
    with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 300 maximum"):
        claude.messages.create(model="m", max_tokens=10, messages=user)
    with pytest.raises(anthropic.BadRequestError,
                       match=r"input length and `max_tokens` exceed context limit: \d+ \+ 290 > 300"):
        claude.messages.create(model="m", max_tokens=290, messages=[{"role": "user", "content": "hi"}])


def test_defaults_are_each_providers_and_a_bad_window_is_a_clear_error():
    assert WINDOWS == {"openai": 128_000, "deepseek": 1_048_576, "ollama": 4096, "messages": 200_000}
    huge = [{"role": "user", "content": "word " * 110_000}]  # about 137k tokens
    assert refuse(FakeLLM(S.scripted("ok")), huge).code == "context_length_exceeded"
    assert FakeLLM(S.scripted("ok"), dialect="deepseek").handle({"model": "m", "messages": huge}).status == 200
    over = [{"role": "user", "content": "word " * 850_000}]  # about 1.06M tokens: over DeepSeek's 1M
    assert "1048576 tokens" in refuse(FakeLLM(S.scripted("ok"), dialect="deepseek"), over).body["message"]
    medium = [{"role": "user", "content": "word " * 100_000}]  # about 125k: under both
    assert FakeLLM(S.scripted("ok")).client().chat.completions.create(model="m", messages=medium)
    for bad in (0, -5, 2.5, "4096", True):
        with pytest.raises(ValueError, match="context_window must be a whole number"):
            FakeLLM(S.scripted("ok"), context_window=bad)


def test_over_http_the_same_400():
    llm = FakeLLM(S.scripted("ok"), context_window=300)
    with llm.serve() as url:
        client = openai.OpenAI(base_url=url, api_key="fake", max_retries=0)
        with pytest.raises(openai.BadRequestError) as e:
            client.chat.completions.create(model="m", messages=BIG)
    assert e.value.code == "context_length_exceeded"


@pytest.mark.parametrize("key", ["max_tokens", "max_completion_tokens"])
@pytest.mark.parametrize("value, code", [("1000", "invalid_type"), (1.5, "invalid_type"), (True, "invalid_type"),
                                         (0, "integer_below_min_value"), (-5, "integer_below_min_value")])
def test_a_bad_max_tokens_is_refused_as_openai_does(key, value, code):
    out = FakeLLM(S.scripted("ok")).handle({"model": "m", "messages": BIG[:1], key: value})
    assert out.status == 400 and out.body["error"]["code"] == code and out.body["error"]["param"] == key


def test_deepseek_and_anthropic_refuse_a_bad_max_tokens_in_their_words_and_ollama_ignores_it():
    out = FakeLLM(S.scripted("ok"), dialect="deepseek").handle({"model": "m", "messages": BIG[:1], "max_tokens": 0})
    assert out.status == 400 and out.body["error"]["message"].startswith("Invalid max_tokens value")
    assert FakeLLM(S.scripted("ok"), dialect="ollama").handle(
        {"model": "m", "messages": BIG[:1], "max_tokens": "50"}).status == 200
    for value, text in (("50", "valid integer"), (0, "greater than or equal to 1"), (True, "valid integer")):
        out = FakeLLM(S.scripted("ok")).handle({"model": "m", "max_tokens": value, "messages": [
            {"role": "user", "content": "hi"}]}, api="messages")
        assert out.status == 400 and text in out.body["error"]["message"], out.body


@pytest.mark.parametrize("length", ["-1", "abc"])
def test_a_bad_content_length_is_a_400_not_a_hang(length):
    with FakeLLM(S.scripted("ok")).serve() as url:
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.putrequest("POST", "/v1/chat/completions")
        conn.putheader("Authorization", "Bearer x")
        conn.putheader("Content-Length", length)
        conn.endheaders()
        assert conn.getresponse().status == 400
