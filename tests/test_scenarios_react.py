"""Chapter 13's scenarios (workbook/scenarios/react.py) behave as their descriptions say: the
text model invents an observation that only a stop sequence cuts off, it refuses native tools on
Ollama, the planner's plans and replans, the executor and the synthesizer."""

import json
import re

import openai
import pytest

from tests.reference_loop import run_agent
from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import react
from workbook.shop import Shop

NEW = ("react_taxi", "react_order", "react_errand", "native_errand", "plan_errand")


def react_loop(llm, sc, stop=("Observation:",), max_steps=6):
    """A minimal ReAct text loop (the chapter's run_react, without its checks)."""
    impl = Shop().tools()
    messages = [{"role": "system", "content": "Use Thought / Action / Action Input / Final Answer."},
                {"role": "user", "content": sc.question}]
    options = {"stop": list(stop)} if stop else {}
    for _ in range(max_steps):
        text = llm.client().chat.completions.create(model="m", messages=messages,
                                                    **options).choices[0].message.content
        messages.append({"role": "assistant", "content": text})
        action = re.search(r"Action:\s*(\S+)\s*\nAction Input:\s*", text)
        answer = text.find("Final Answer:")
        if action and (answer < 0 or action.start() < answer):
            try:
                args = json.JSONDecoder().raw_decode(text[action.end():])[0]
                obs = json.dumps(impl[action.group(1)](**args))
            except ValueError as e:
                obs = f"ERROR: {e}"
        elif answer >= 0:
            return text[answer + len("Final Answer:"):].strip(), messages
        else:
            obs = "ERROR: no Action and no Final Answer"
        messages.append({"role": "user", "content": f"Observation: {obs}"})
    return None, messages


def test_registered_and_described():
    for name in NEW:
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.description and len(sc.description) < 140
        assert (sc.answer is None) == (name == "plan_errand")
        assert [t["function"]["name"] for t in sc.openai_tools()] == list(sc.tools)


@pytest.mark.parametrize("name", ["react_taxi", "react_order", "react_errand"])
def test_react_with_stop_answers_from_the_real_observations(name):
    sc = scenarios.get(name)
    llm = FakeLLM(sc, dialect="ollama")
    answer, messages = react_loop(llm, sc)
    assert answer == sc.answer
    assert all("Observation:" not in m["content"] for m in messages if m["role"] == "assistant")
    assert llm.calls == len(react.needed(sc.question)) + 1


def test_react_without_stop_invents_the_observation_and_a_wrong_answer():
    sc = scenarios.react_taxi()
    first = FakeLLM(sc).client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": sc.question}]).choices[0]
    assert "Observation:" in first.message.content and "Final Answer:" in first.message.content
    answer, messages = react_loop(FakeLLM(sc), sc, stop=None)
    assert answer is not None and answer != sc.answer and "7400 KZT" in answer


def test_react_stop_cuts_before_the_observation_with_finish_reason_stop():
    sc = scenarios.react_order()
    choice = FakeLLM(sc).client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": sc.question}], stop=["Observation:"]).choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.content.endswith('Action Input: {"order_id": "A-1001"}\nI will wait for the result.\n')


def test_react_model_refuses_native_tools_on_ollama():
    sc = scenarios.react_taxi()
    with pytest.raises(openai.BadRequestError, match="does not support tools"):
        FakeLLM(sc, dialect="ollama").client(max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": sc.question}], tools=sc.openai_tools())


def test_sloppy_react_model_fixes_its_action_after_an_error_observation():
    sc = scenarios.react_order(sloppy=True)
    llm = FakeLLM(sc)
    answer, messages = react_loop(llm, sc)
    assert answer == sc.answer and llm.calls == 3
    assert messages[3]["content"].startswith("Observation: ERROR")


def test_native_errand_asks_both_lookups_at_once():
    sc = scenarios.native_errand()
    llm = FakeLLM(sc)
    run = run_agent(llm.client(), sc.question, sc.openai_tools(), Shop().tools())
    assert (run.answer, run.status, llm.calls) == (sc.answer, "done", 2)


def planner(sc, *user):
    messages = [{"role": "system", "content": "You are the planner. Reply with JSON."},
                *({"role": "user", "content": u} for u in user)]
    return FakeLLM(sc).client().chat.completions.create(model="m", messages=messages) \
        .choices[0].message.content


@pytest.mark.parametrize("first", sorted(react.PLANS))
def test_planner_plays_each_first_plan(first):
    assert planner(scenarios.plan_errand(first), react.ERRAND_QUESTION) == react.PLANS[first]


def test_replan_lists_only_the_steps_not_done():
    sc = scenarios.plan_errand("bad_step")
    text = planner(sc, react.ERRAND_QUESTION,
                   f"The plan failed: step 'Look up order Z-9' failed.\nDone so far:\n- {react.ORDER_STEP}")
    assert json.loads(text) == {"steps": [react.TAXI_STEP]}
    text = planner(sc, react.ERRAND_QUESTION, "Your plan was not valid.\nDone so far:\n- nothing yet")
    assert json.loads(text) == {"steps": [react.ORDER_STEP, react.TAXI_STEP]}
    stubborn = planner(scenarios.plan_errand("bad_step", "always_bad"), "x", "It failed.")
    assert stubborn == react.PLANS["always_bad"]


def test_executor_does_only_its_step_and_repeats_a_failing_call():
    sc = scenarios.plan_errand()
    shop = Shop()
    run = run_agent(FakeLLM(sc).client(), f"Task: {sc.question}\nStep: {react.TAXI_STEP}",
                    sc.openai_tools(), shop.tools())
    assert run.answer == scenarios.answers.TAXI_ANSWER and [n for n, _ in shop.log] == ["txn_sum"]
    shop = Shop()
    run = run_agent(FakeLLM(sc).client(), f"Step: {react.BAD_STEP}", sc.openai_tools(), shop.tools(),
                    max_steps=3)
    assert run.status == "STOPPED: step limit"
    assert shop.log == [("get_order", {"order_id": "Z-9"})] * 3


def test_synthesizer_combines_the_results_it_is_given():
    sc = scenarios.plan_errand()
    client = FakeLLM(sc).client()
    system = {"role": "system", "content": "Write the answer from the step results below."}
    user = {"role": "user", "content": "Task: x\nStep: a\nResult: One.\nStep: b\nResult: Two."}
    text = client.chat.completions.create(model="m", messages=[system, user]).choices[0].message.content
    assert text == f"{react.SYNTHESIS_OPENING} One. Two."
    empty = client.chat.completions.create(model="m", messages=[system, {"role": "user", "content": "x"}])
    assert empty.choices[0].message.content == "I have no step results to combine."


def test_plan_errand_refuses_an_unknown_plan_name():
    with pytest.raises(ValueError, match="plan_errand.first='nope'"):
        scenarios.plan_errand("nope")
