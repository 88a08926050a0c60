"""The fake's prefix-cache rule (workbook/engine/caching.py), in each provider's usage shape, through
the real SDKs in-process and over HTTP."""

import os
import random
import time

import anthropic
import openai
import pytest

from workbook import scenarios
from workbook.engine.caching import PrefixCache, common_prefix, minimum, prefix_text
from workbook.fake_llm import FakeLLM, cache_rule, prompt_tokens

S = scenarios
LONG_SYSTEM = "You are the shop's support agent. " + "Policy line: refunds take 14 days. " * 160


def chat(llm, messages, **kw):
    return llm.client(max_retries=0).chat.completions.create(model="m", messages=messages, **kw)


@pytest.mark.parametrize("shared, cached", [(0, 0), (1023, 0), (1024, 1024), (1151, 1024),
                                            (1152, 1152), (5000, 4992)])
def test_cache_rule_counts_whole_128_blocks_from_1024(shared, cached):
    assert cache_rule(shared) == cached


def test_openai_shape_a_stable_prefix_hits_and_cached_is_part_of_prompt_tokens():
    llm = FakeLLM(S.scripted("ok"))
    system = {"role": "system", "content": LONG_SYSTEM}
    first = chat(llm, [system, {"role": "user", "content": "Where is A-1001?"}])
    second = chat(llm, [system, {"role": "user", "content": "And A-1002?"}])
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    shared = len(prefix_text([system], None)) // 4  # the system message, whole, and a little more
    got = second.usage.prompt_tokens_details.cached_tokens
    assert got == cache_rule(shared) or got == cache_rule(shared + 4), (got, shared)
    assert 1024 <= got <= second.usage.prompt_tokens and got % 128 == 0
    assert second.usage.prompt_tokens == prompt_tokens(
        [system, {"role": "user", "content": "And A-1002?"}], None)


def test_a_timestamp_at_the_top_of_the_system_prompt_kills_the_cache():
    llm = FakeLLM(S.scripted("ok"))
    for minute in range(3):
        stamped = {"role": "system", "content": f"Now: 2026-12-01 10:0{minute}. {LONG_SYSTEM}"}
        r = chat(llm, [stamped, {"role": "user", "content": "hi"}])
        assert r.usage.prompt_tokens_details.cached_tokens == 0
    last = {"role": "system", "content": LONG_SYSTEM}  # the same text, the timestamp moved last
    for minute in range(2):
        r = chat(llm, [last, {"role": "user", "content": f"Now: 2026-12-01 10:0{minute}. hi"}])
    assert r.usage.prompt_tokens_details.cached_tokens >= 1024


def test_tools_are_part_of_the_prefix():
    tools = S.two_orders().openai_tools()
    llm = FakeLLM(S.scripted("ok"))
    system = {"role": "system", "content": LONG_SYSTEM}
    chat(llm, [system, {"role": "user", "content": "a"}], tools=tools)
    other = [dict(t, function=dict(t["function"], description="changed")) for t in tools]
    r = chat(llm, [system, {"role": "user", "content": "a"}], tools=other)
    assert r.usage.prompt_tokens_details.cached_tokens == 0  # tools come first: they differ early


def test_deepseek_shape_hit_plus_miss_is_prompt_and_ollama_has_no_cache_fields():
    system = {"role": "system", "content": LONG_SYSTEM}
    llm = FakeLLM(S.scripted("ok"), dialect="deepseek")
    chat(llm, [system, {"role": "user", "content": "a"}])
    usage = llm.handle({"model": "m", "messages": [system, {"role": "user", "content": "b"}]}).body["usage"]
    assert usage["prompt_cache_hit_tokens"] >= 1024
    assert usage["prompt_cache_hit_tokens"] + usage["prompt_cache_miss_tokens"] == usage["prompt_tokens"]
    assert "prompt_tokens_details" not in usage
    local = FakeLLM(S.scripted("ok"), dialect="ollama", context_window=100_000)
    for text in "ab":
        usage = local.handle({"model": "m", "messages": [system, {"role": "user", "content": text}]}).body["usage"]
    assert set(usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_the_cache_is_per_fake_and_over_http_the_same():
    system = {"role": "system", "content": LONG_SYSTEM}
    a, b = FakeLLM(S.scripted("ok")), FakeLLM(S.scripted("ok"))
    chat(a, [system, {"role": "user", "content": "x"}])
    assert chat(b, [system, {"role": "user", "content": "y"}]).usage.prompt_tokens_details.cached_tokens == 0
    with a.serve() as url:
        client = openai.OpenAI(base_url=url, api_key="fake", max_retries=0)
        r = client.chat.completions.create(model="m", messages=[system, {"role": "user", "content": "y"}])
    assert r.usage.prompt_tokens_details.cached_tokens >= 1024


# ------------------------------------------------------------------ Anthropic: breakpoints

def ask(claude, system, text, model="claude-sonnet-4-5", **kw):
    return claude.messages.create(model=model, max_tokens=200, system=system,
                                  messages=[{"role": "user", "content": text}], **kw)


def test_anthropic_caches_only_at_cache_control_breakpoints():
    claude = FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0)
    for text in ("a", "b"):
        r = ask(claude, LONG_SYSTEM, text)
        assert (r.usage.cache_read_input_tokens, r.usage.cache_creation_input_tokens) == (0, 0)
    marked = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
    first = ask(claude, marked, "a")
    second = ask(claude, marked, "b")
    u1, u2 = first.usage, second.usage
    assert u1.cache_read_input_tokens == 0 and u1.cache_creation_input_tokens >= 1024
    assert u2.cache_read_input_tokens == u1.cache_creation_input_tokens
    assert u2.cache_creation_input_tokens == 0
    total = u1.input_tokens + u1.cache_creation_input_tokens  # input_tokens excludes both
    assert total == u2.input_tokens + u2.cache_read_input_tokens


def test_anthropic_moving_breakpoint_reads_the_earlier_prefix_and_writes_the_rest():
    claude = FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0)
    mark = {"type": "ephemeral"}
    history = [{"role": "user", "content": [{"type": "text", "text": LONG_SYSTEM, "cache_control": mark}]}]
    first = claude.messages.create(model="m", max_tokens=50, messages=history)
    history = [{"role": "user", "content": [{"type": "text", "text": LONG_SYSTEM}]},
               {"role": "assistant", "content": "ok"},
               {"role": "user", "content": [{"type": "text", "text": "more " * 200, "cache_control": mark}]}]
    second = claude.messages.create(model="m", max_tokens=50, messages=history)
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens > 0
    assert second.usage.cache_creation_input_tokens > 0


def test_a_small_prefix_is_never_cached():
    cache = PrefixCache()
    small = [{"role": "user", "content": "hi"}]
    assert [cache.chat(small, None, 10) for _ in range(3)] == [0, 0, 0]
    body = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]}
    assert [cache.messages(body) for _ in range(2)] == [(0, 0, "5m"), (0, 0, "5m")]


def test_each_anthropic_model_caches_from_its_own_minimum():
    """The 1440-token prefix is cached on Sonnet 4.5 (1024) and not on Haiku 4.5 (4096)."""
    assert (minimum("claude-haiku-4-5"), minimum("claude-haiku-4-5-20251001"), minimum("claude-sonnet-4-5"),
            minimum("claude-opus-4-7"), minimum("claude-opus-4-8"), minimum("claude-3-haiku-20240307"),
            minimum("claude-fake")) == (4096, 4096, 1024, 4096, 1024, 2048, 1024)
    marked = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
    for model, cached in (("claude-haiku-4-5", False), ("claude-sonnet-4-5", True)):
        claude = FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0)
        usages = [ask(claude, marked, text, model=model).usage for text in ("a", "b")]
        assert (usages[1].cache_read_input_tokens > 0) is cached, (model, usages)
    big = [{"type": "text", "text": LONG_SYSTEM * 4, "cache_control": {"type": "ephemeral"}}]
    claude = FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0)
    usages = [ask(claude, big, text, model="claude-haiku-4-5").usage for text in ("a", "b")]
    assert usages[0].cache_creation_input_tokens >= 4096 and usages[1].cache_read_input_tokens >= 4096


def test_automatic_caching_marks_the_last_block_and_a_1h_write_is_reported_apart():
    claude = FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0)
    long = "question " * 1200
    first = ask(claude, "Be brief.", long, cache_control={"type": "ephemeral"}).usage
    second = ask(claude, "Be brief.", long, cache_control={"type": "ephemeral"}).usage
    assert first.cache_creation_input_tokens > 1024 and first.input_tokens <= 10
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert (first.cache_creation.ephemeral_5m_input_tokens, first.cache_creation.ephemeral_1h_input_tokens) == \
        (first.cache_creation_input_tokens, 0)
    hour = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    written = ask(FakeLLM(S.scripted("ok")).anthropic_client(max_retries=0), hour, "a").usage
    assert (written.cache_creation.ephemeral_5m_input_tokens, written.cache_creation.ephemeral_1h_input_tokens) == \
        (0, written.cache_creation_input_tokens)
    assert written.cache_creation_input_tokens > 0


def test_anthropic_over_http_reports_the_same_usage():
    llm = FakeLLM(S.scripted("ok"))
    marked = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
    with llm.serve() as url:
        claude = anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="fake", max_retries=0)
        ask(claude, marked, "a")
        r = ask(claude, marked, "b")
    assert r.usage.cache_read_input_tokens >= 1024


@pytest.mark.parametrize("system", [5, {"a": 1}, ["a"], [{"type": "image"}], [{"type": "text", "text": 3}]])
def test_a_malformed_system_is_a_400_not_the_fakes_own_500(system):
    out = FakeLLM(S.scripted("ok")).handle({"model": "m", "max_tokens": 5, "system": system,
                                            "messages": [{"role": "user", "content": "hi"}]}, api="messages")
    assert out.status == 400 and out.body["error"]["message"].startswith("system"), out.body


def test_the_sorted_lookup_finds_the_same_longest_prefix_as_comparing_with_every_text():
    rng = random.Random(7)
    cache, texts = PrefixCache(), []
    for _ in range(120):
        words = [rng.choice(["alpha ", "beta ", "gamma "]) * rng.randint(50, 400) for _ in range(3)]
        messages = [{"role": "user", "content": w} for w in words[:rng.randint(1, 3)]]
        text = prefix_text(messages, None)
        best = max((len(os.path.commonprefix([text, t])) for t in texts), default=0)
        assert cache.chat(messages, None, 10**6) == cache_rule(best // 4)
        texts.append(text)


MARK = {"type": "ephemeral"}


def usage_of(body, llm=None):
    llm = llm or FakeLLM(S.scripted("ok"))
    out = llm.handle(dict({"model": "m", "max_tokens": 10}, **body), api="messages")
    assert out.status == 200, out.body
    return out.body["usage"]


def test_input_tokens_are_the_tokens_after_the_last_breakpoint_whatever_the_blocks():
    """Many small blocks before the breakpoint: the split is counted as the prompt is."""
    first = {"role": "user", "content": [{"type": "text", "text": "a"}] * 300
             + [{"type": "text", "text": "b", "cache_control": MARK}]}
    after = [{"role": "assistant", "content": "x" * 4000}, {"role": "user", "content": "y" * 4000}]
    u = usage_of({"messages": [first, *after]})
    assert u["input_tokens"] == sum(prompt_tokens([m], None) - 3 for m in after) + 3
    total = u["input_tokens"] + u["cache_creation_input_tokens"]
    plain = [dict(first, content=[{"type": "text", "text": "a"}] * 300 + [{"type": "text", "text": "b"}])]
    assert total == prompt_tokens(plain + after, None)


def test_a_breakpoint_costs_no_tokens():
    text = "Policy line: refunds take 14 days. " * 160
    totals = []
    for extra in ({}, {"cache_control": MARK}, {"cache_control": {"type": "ephemeral", "ttl": "1h"}}):
        u = usage_of({"system": [{"type": "text", "text": text, **extra}],
                      "messages": [{"role": "user", "content": "hi"}]})
        totals.append(u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"])
    assert len(set(totals)) == 1, totals


@pytest.mark.parametrize("value, match", [("yes", "system.0.cache_control: Input should be a valid dictionary"),
                                          (5, "system.0.cache_control: Input should be a valid dictionary")])
def test_a_malformed_breakpoint_is_a_400(value, match):
    out = FakeLLM(S.scripted("ok")).handle({
        "model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "x", "cache_control": value}],
        "messages": [{"role": "user", "content": "hi"}]}, api="messages")
    assert out.status == 400 and out.body["error"]["message"] == match


def test_more_than_four_breakpoints_is_anthropics_400_and_null_is_none():
    blocks = [{"type": "text", "text": f"part {i}", "cache_control": MARK} for i in range(5)]
    out = FakeLLM(S.scripted("ok")).handle({"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": blocks}]}, api="messages")
    assert out.status == 400
    assert out.body["error"]["message"] == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    nulls = [dict(b, cache_control=None) for b in blocks]
    assert usage_of({"messages": [{"role": "user", "content": nulls}]})["cache_creation_input_tokens"] == 0


def test_common_prefix_agrees_with_a_character_loop():
    rng = random.Random(3)
    for _ in range(500):
        a = "".join(rng.choice("ab") for _ in range(rng.randint(0, 40)))
        b = a[:rng.randint(0, len(a))] + "".join(rng.choice("ab") for _ in range(rng.randint(0, 5)))
        assert common_prefix(a, b) == len(os.path.commonprefix([a, b]))


def test_many_long_requests_to_one_fake_stay_fast():
    cache, system = PrefixCache(), {"role": "system", "content": "policy " * 7000}  # ~48 KB
    started = time.perf_counter()
    for i in range(300):
        cache.chat([system, {"role": "user", "content": f"question {i}"}], None, 10**6)
    assert time.perf_counter() - started < 5, "300 requests of 48 KB took over 5 s"
