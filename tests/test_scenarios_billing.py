"""Chapter 15's scenarios (workbook/scenarios/billing.py): the desk's prompt passes 1024 tokens so
the fake's prefix cache shows, the budgeting task takes 7 steps and each short question 2 (the
question found behind a date), a stable prefix is cached across customers and a timestamp at the
top is not, and the routing models answer as described."""

import datetime

import pytest

from tests.reference_loop import run_agent, tools_for
from workbook.fake_llm import FakeLLM, anthropic_tools, prompt_tokens
from workbook.scenarios import billing as B
from workbook.shop import Shop


def ask(scenario, question, system=None, dialect="openai"):
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": question}]
    reply = FakeLLM(scenario, dialect).client().chat.completions.create(model="m", messages=messages)
    return reply.choices[0].message.content


def test_the_prompt_passes_1024_tokens():
    desk = B.desk()
    first = [{"role": "system", "content": B.SYSTEM}, {"role": "user", "content": B.TASK}]
    assert prompt_tokens(first, desk.openai_tools()) > 1024 + 128
    assert list(desk.tools) != sorted(desk.tools)  # sorting them is the layout's job


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "ollama"])
def test_the_task_takes_seven_steps_and_each_question_two(dialect):
    desk = B.desk()
    llm = FakeLLM(desk, dialect, context_window=16_000)
    run = run_agent(llm.client(), B.TASK, desk.openai_tools(), tools_for(Shop()), max_steps=10,
                    system=B.SYSTEM)
    assert (run.status, run.steps, run.answer) == ("done", 7, B.TASK_ANSWER)
    for question, (_, answer) in B.QUESTIONS.items():
        dated = f"Current time: 2026-12-01 09:00 UTC\n\n{question}"
        run = run_agent(FakeLLM(desk, dialect).client(), dated, desk.openai_tools(),
                        tools_for(Shop()), system=B.SYSTEM)
        assert (run.status, run.steps, run.answer) == ("done", 2, answer)
    assert ask(desk, "Tell me a joke.") == B.UNKNOWN


def cached_tokens(system_for, n=3):
    desk, nine = B.desk(), datetime.datetime(2026, 12, 1, 9)
    client = FakeLLM(desk).client()
    out = []
    for i, question in enumerate(list(B.QUESTIONS)[:n]):
        now = nine + datetime.timedelta(minutes=7 * i)
        usage = client.chat.completions.create(model="m", tools=desk.openai_tools(), messages=[
            {"role": "system", "content": system_for(now)},
            {"role": "user", "content": question}]).usage
        out.append(usage.prompt_tokens_details.cached_tokens)
    return out


def test_a_stable_prefix_is_cached_across_customers_and_a_timestamp_first_is_not():
    stable = cached_tokens(lambda now: B.SYSTEM)
    assert stable[0] == 0 and all(c >= 1024 and c % 128 == 0 for c in stable[1:])
    assert cached_tokens(lambda now: f"Now: {now:%H:%M:%S}.\n{B.SYSTEM}") == [0, 0, 0]


def test_the_desk_on_the_messages_face_caches_at_a_breakpoint():
    desk = B.desk()
    claude = FakeLLM(desk).anthropic_client()
    tools = anthropic_tools(desk.openai_tools())
    usages = []
    for cache in (False, True, True):
        block = {"type": "text", "text": B.SYSTEM} | (
            {"cache_control": {"type": "ephemeral"}} if cache else {})
        reply = claude.messages.create(model="claude-sonnet-4-5", max_tokens=300, system=[block],
                                       tools=tools, messages=[{"role": "user", "content": B.TASK}])
        assert reply.content[0].type == "tool_use"
        usages.append(reply.usage)
    assert (usages[0].cache_creation_input_tokens, usages[0].cache_read_input_tokens) == (0, 0)
    assert usages[1].cache_creation_input_tokens > 1024 and usages[1].cache_read_input_tokens == 0
    assert usages[2].cache_read_input_tokens == usages[1].cache_creation_input_tokens


def test_the_router_says_easy_or_hard_only_under_its_prompt():
    for question in B.EASY:
        assert ask(B.router(), question, B.ROUTER) == "easy"
    for question in B.HARD:
        assert ask(B.router(), question, B.ROUTER) == "hard"
    assert ask(B.router(), "Tell me a joke.", B.ROUTER) == B.NOT_SURE
    assert ask(B.router(), next(iter(B.EASY))) == B.NOT_SURE


def test_the_small_model_is_wrong_on_the_hard_questions_only():
    for question in B.EASY:
        for model in (B.small_model(), B.large_model()):
            assert B.right(question, ask(model, question, B.SYSTEM))
    for question in B.HARD:
        assert not B.right(question, ask(B.small_model(), question, B.SYSTEM))
        assert B.right(question, ask(B.large_model(), question, B.SYSTEM))
    assert ask(B.large_model(), "Tell me a joke.") == "I am not sure."
    assert not B.right("Tell me a joke.", "I am not sure.")
