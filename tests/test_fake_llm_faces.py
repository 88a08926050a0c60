"""Dialects, faults with the SDK's real behaviour, usage, determinism, and the function face."""

import json
import time

import openai
import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import scenarios
from workbook.fake_llm import FakeLLM, ModelError
from workbook.fake_llm.engine import prompt_tokens
from workbook.shop import Shop


def run(name, dialect="openai", client_kwargs=None, **kw):
    sc = scenarios.get(name)
    llm = FakeLLM(sc, dialect=dialect)
    result = run_agent(llm.client(**(client_kwargs or {})), sc.question, sc.openai_tools(),
                       tools_for(Shop()), system=sc.system, **kw)
    return llm, result


# ------------------------------------------------------------------ dialects

def test_deepseek_replies_carry_reasoning_and_cache_usage():
    llm, result = run("deepseek_thinking", "deepseek")
    assert result.status == "done" and result.answer == scenarios.deepseek_thinking().answer
    first = llm.requests[1]["messages"][1]
    assert first["reasoning_content"].startswith("I need the taxi total")
    usage = llm.handle(llm.requests[-1]).body["usage"]
    assert usage["prompt_cache_hit_tokens"] > 0
    assert usage["prompt_cache_hit_tokens"] + usage["prompt_cache_miss_tokens"] == usage["prompt_tokens"]


def test_deepseek_400_when_reasoning_content_is_dropped():
    sc = scenarios.deepseek_thinking()
    llm = FakeLLM(sc, dialect="deepseek")
    client = llm.client(max_retries=0)
    messages = [{"role": "user", "content": sc.question}]
    reply = client.chat.completions.create(model="deepseek-flash", messages=messages,
                                           tools=sc.openai_tools())
    call = reply.choices[0].message.tool_calls[0]
    messages += [{"role": "assistant", "content": None,  # reasoning_content forgotten
                  "tool_calls": [call.model_dump()]},
                 {"role": "tool", "tool_call_id": call.id, "content": "{}"}]
    with pytest.raises(openai.BadRequestError, match="reasoning_content in the thinking mode must"):
        client.chat.completions.create(model="deepseek-flash", messages=messages, tools=sc.openai_tools())


def test_deepseek_refuses_required_tool_choice_in_thinking_mode_only():
    sc = scenarios.taxi_spending()
    llm = FakeLLM(sc, dialect="deepseek")
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": sc.openai_tools(),
            "tool_choice": "required"}
    assert llm.handle(body).status == 400
    assert llm.handle(body | {"thinking": {"type": "disabled"}}).status == 200


def test_ollama_silently_cuts_the_system_prompt_first():
    sc = scenarios.long_chat_small_context()
    _, short = run("long_chat_small_context", "ollama")
    assert short.answer == sc.answer  # fits: the system prompt's rule is followed
    long_llm = FakeLLM(sc, dialect="ollama")
    history = scenarios.chat_history()
    result = run_agent(long_llm.client(), sc.question, [], {}, system=sc.system, history=history)
    assert result.status == "done" and not result.answer.endswith("Northwind support")
    sent, seen = long_llm.requests[0]["messages"], long_llm.seen[0]
    assert sent[0]["role"] == "system" and seen[0]["role"] != "system"
    assert prompt_tokens(seen, None) <= 4096 < prompt_tokens(sent, None)
    roomy = FakeLLM(sc, dialect="ollama", context_window=16384)
    assert run_agent(roomy.client(), sc.question, [], {}, system=sc.system,
                     history=history).answer == sc.answer


# ------------------------------------------------------------------ faults

def test_rate_limit_is_retried_by_the_sdk_in_milliseconds():
    start = time.perf_counter()
    llm, result = run("rate_limited")
    assert result.answer == scenarios.rate_limited().answer
    assert llm.calls == 4  # 2 × 429, then two successful steps
    assert time.perf_counter() - start < 1.0


def test_rate_limit_without_sdk_retries_raises_with_retry_after():
    sc = scenarios.rate_limited()
    client = FakeLLM(sc).client(max_retries=0)
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.response.headers["retry-after"] == "1"
    assert info.value.response.headers["retry-after-ms"] == "1"


def test_server_errors_500_then_503():
    sc = scenarios.flaky_server()
    client = FakeLLM(sc).client(max_retries=0)
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    for status in (500, 503):
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(**body)
        assert info.value.status_code == status
    assert client.chat.completions.create(**body).choices[0].finish_reason == "tool_calls"


def test_timeout_in_process_and_over_http():
    sc = scenarios.slow_provider()
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    with pytest.raises(openai.APITimeoutError):
        FakeLLM(sc).client(max_retries=0).chat.completions.create(**body)
    llm = FakeLLM(sc, hang_seconds=2)
    with llm.serve() as base_url:
        client = openai.OpenAI(api_key="k", base_url=base_url, timeout=0.2, max_retries=0)
        with pytest.raises(openai.APITimeoutError):
            client.chat.completions.create(**body)
        assert client.chat.completions.create(**body).choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize("name,expected", [
    ("text_tool_call", "STOPPED: text tool call"),
    ("repeat_forever", "STOPPED: step limit"),
    ("never_finishes", "STOPPED: step limit"),
])
def test_misbehaving_scenarios_do_what_they_promise(name, expected):
    llm, result = run(name, max_steps=6)
    assert result.status == expected
    calls = [json.dumps([c["function"] for c in m.get("tool_calls", [])])
             for m in result.messages if m["role"] == "assistant"]
    if name == "repeat_forever":
        assert len(set(calls)) == 1 and len(calls) == 6
    if name == "never_finishes":
        assert len(set(calls)) == 6


def test_text_tool_call_can_recover_when_asked():
    sc = scenarios.text_tool_call(recovers=True)
    llm = FakeLLM(sc)
    result = run_agent(llm.client(), sc.question, sc.openai_tools(), tools_for(Shop()))
    assert result.answer == sc.answer and result.steps == 3


def test_length_finish_reason_and_broken_json_arguments():
    sc = scenarios.Scenario("cut", "cut", lambda conv: scenarios.final("The answer is", "length"))
    reply = FakeLLM(sc).client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x"}])
    assert reply.choices[0].finish_reason == "length"
    broken = FakeLLM(scenarios.broken_json_then_fix()).client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken.choices[0].message.tool_calls[0].function.arguments)


# ------------------------------------------------------------------ usage and determinism

def test_usage_grows_with_the_history():
    llm, result = run("token_hog", max_steps=10)
    prompts = [prompt_tokens(m["messages"], m.get("tools")) for m in llm.requests]
    assert prompts == sorted(prompts) and prompts[-1] > 3 * prompts[0]
    steps = [b - a for a, b in zip(prompts, prompts[1:], strict=False)]
    assert min(steps) > 0  # each step re-sends everything before it


def test_same_scenario_twice_gives_byte_identical_transcripts():
    def transcript():
        llm, _ = run("two_orders")
        replies = [llm.handle(body).body for body in list(llm.requests)]
        return json.dumps([llm.requests, replies], sort_keys=True)

    assert transcript() == transcript()


# ------------------------------------------------------------------ function face

def test_function_face_records_and_answers():
    model = scenarios.taxi_spending().as_function()
    messages = [{"role": "user", "content": "taxi?"}]
    reply = model(messages, [{"name": "txn_sum"}])
    assert reply == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}
    messages += [{"role": "assistant", "content": json.dumps(reply)},
                 {"role": "tool", "content": json.dumps(Shop().txn_sum(**reply["args"]))}]
    assert model(messages, []) == {"final": scenarios.taxi_spending().answer}
    assert model.calls == 2 and model.requests[0] == [{"role": "user", "content": "taxi?"}]


def test_function_face_clear_errors():
    with pytest.raises(TypeError, match="messages must be a list"):
        scenarios.taxi_spending().as_function()("hello")
    with pytest.raises(ModelError, match="several tools at once"):
        scenarios.two_orders().as_function()([{"role": "user", "content": "x"}])


def test_unknown_scenario_and_dialect():
    with pytest.raises(KeyError, match="unknown scenario 'nope'"):
        FakeLLM("nope")
    with pytest.raises(ValueError, match="unknown dialect"):
        FakeLLM("taxi_spending", dialect="claude")
