"""Dialects, faults with the SDK's real behaviour, usage, determinism, and the function face."""

import dataclasses
import json
import time

import openai
import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import scenarios
from workbook.fake_llm import FakeLLM, ModelError, prompt_tokens
from workbook.scenarios.faults import ASK_ORDER, SIGNATURE
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
    usage = llm.handle(llm.requests[-1]).body["usage"]  # sent again: all of it is shared...
    assert usage["prompt_tokens"] < 1024 and usage["prompt_cache_hit_tokens"] == 0  # ...below 1024
    assert usage["prompt_cache_hit_tokens"] + usage["prompt_cache_miss_tokens"] == usage["prompt_tokens"]
    assert "prompt_tokens_details" not in usage


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
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="deepseek-flash", messages=messages, tools=sc.openai_tools())
    # DeepSeek's own body, backticks included (docs/SOURCES.md).
    assert info.value.body == {"message": "The `reasoning_content` in the thinking mode must be passed "
                               "back to the API.", "type": "invalid_request_error", "param": None,
                               "code": "invalid_request_error"}


def test_deepseek_refuses_required_tool_choice_in_thinking_mode_only():
    sc = scenarios.taxi_spending()
    llm = FakeLLM(sc, dialect="deepseek")
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": sc.openai_tools(),
            "tool_choice": "required"}
    refused = llm.handle(body)
    assert refused.status == 400
    assert refused.body["error"]["message"] == "Thinking mode does not support this tool_choice"
    assert refused.body["error"]["type"] == "invalid_request_error"
    named = {"type": "function", "function": {"name": "txn_sum"}}
    assert llm.handle(body | {"tool_choice": named}).status == 400
    assert llm.handle(body | {"thinking": {"type": "disabled"}}).status == 200


def test_ollama_drops_the_oldest_history_but_keeps_system_and_latest():
    """Like Ollama's chatPrompt: whole messages go from the front; system messages and the
    latest message always stay; the user's early message (naming the order) vanishes."""
    sc = scenarios.long_chat_small_context()
    _, short = run("long_chat_small_context", "ollama")
    assert short.answer == sc.answer  # fits: nothing is cut
    opening = [{"role": "user", "content": "Hi! I have a question about my order A-1001."},
               {"role": "assistant", "content": "Of course. What would you like to know?"}]
    history = opening + scenarios.chat_history()
    follow_up = "Thanks. And my order: has it shipped yet?"
    long_llm = FakeLLM(sc, dialect="ollama")
    result = run_agent(long_llm.client(), follow_up, [], {}, system=sc.system, history=history)
    assert result.answer == f"{ASK_ORDER} {SIGNATURE}"
    sent, seen = long_llm.requests[0]["messages"], long_llm.seen[0]
    assert seen[0] == sent[0] and seen[0]["role"] == "system"  # the system prompt survives
    assert seen[-1] == sent[-1]  # so does the latest message
    assert seen[1:] == sent[len(sent) - len(seen) + 1:]  # a contiguous tail: whole messages
    assert opening[0] not in seen  # the oldest history is gone
    assert prompt_tokens(seen, None) <= 4096 < prompt_tokens(sent, None)
    # One message more would not have fitted: the cut is the smallest one.
    assert prompt_tokens([sent[0], *sent[len(sent) - len(seen):]], None) > 4096
    roomy = FakeLLM(sc, dialect="ollama", context_window=16384)
    assert run_agent(roomy.client(), follow_up, [], {}, system=sc.system,
                     history=history).answer == sc.answer
    assert roomy.seen[0] == roomy.requests[0]["messages"]


def test_ollama_keeps_every_system_message_and_the_latest_even_when_too_long():
    llm = FakeLLM(scenarios.long_chat_small_context(), dialect="ollama", context_window=64)
    messages = [{"role": "system", "content": "S1"}, {"role": "user", "content": "old " * 50},
                {"role": "system", "content": "S2"}, {"role": "user", "content": "A-1001? " * 40}]
    assert llm.handle({"model": "qwen3:4b", "messages": messages}).status == 200
    assert llm.seen[0] == [messages[0], messages[2], messages[3]]


def test_ollama_model_without_tool_support_refuses_tools():
    sc = dataclasses.replace(scenarios.taxi_spending(), supports_tools=False)
    client = FakeLLM(sc, dialect="ollama").client(max_retries=0)
    question = [{"role": "user", "content": sc.question}]
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="qwen3:4b", messages=question, tools=sc.openai_tools())
    assert info.value.body["message"] == "registry.ollama.ai/library/qwen3:4b does not support tools"
    assert info.value.body["type"] == "invalid_request_error"
    with pytest.raises(openai.BadRequestError, match="library/gemma:latest does not support tools"):
        client.chat.completions.create(model="gemma", messages=question, tools=sc.openai_tools())
    assert client.chat.completions.create(model="qwen3:4b", messages=question).choices  # no tools: fine
    for dialect in ("openai", "deepseek"):  # only Ollama's dialect knows this refusal
        assert FakeLLM(sc, dialect=dialect).handle(
            {"model": "m", "messages": question, "tools": sc.openai_tools()}).status == 200


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
