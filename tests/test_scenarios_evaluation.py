"""Chapter 20's scenarios (workbook/scenarios/evaluation.py): the seeded agent is deterministic per
seed and varies across seeds, PROMPT_B beats PROMPT_A by a small margin, and the judge picks the
right answer, Answer 1 on a tie, and grades by shared words when it sees the reference."""

import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import evaluation as E


def ask(sc, question, system=None):
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": question}]
    return sc.as_function()(messages, [])["final"]


def judge(prompt):
    return ask(scenarios.biased_judge(), prompt)


def pair(question, first, second):
    return f"Question: {question}\n\nAnswer 1:\n{first}\n\nAnswer 2:\n{second}"


def test_registered_and_described():
    for name in ("seeded_agent", "biased_judge"):
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and len(sc.description) < 140 and sc.answer is None
    with pytest.raises(TypeError, match="seed"):
        scenarios.seeded_agent("3")


def test_same_seed_same_run_other_seeds_vary():
    for task in E.TASKS:
        runs = [ask(scenarios.seeded_agent(s), task.question, E.PROMPT_A) for s in range(40)]
        again = [ask(scenarios.seeded_agent(s), task.question, E.PROMPT_A) for s in range(40)]
        assert runs == again
        assert {E.right(task, r) for r in runs} == {True, False}, task.name
        assert all(r in task.right + task.wrong for r in runs)
    # the client face gives the same answer as the function face
    llm = FakeLLM(scenarios.seeded_agent(7))
    reply = llm.client().chat.completions.create(model="m", messages=[
        {"role": "system", "content": E.PROMPT_B}, {"role": "user", "content": E.ORDER_QUESTION}])
    assert reply.choices[0].message.content == E.run_answer(E.TASKS[1], 7, E.PROMPT_B)


def test_right_and_wrong_answers_are_what_the_task_says():
    for task in E.TASKS:
        assert all(E.right(task, a) for a in task.right + (task.reference,)), task.name
        assert not any(E.right(task, a) for a in task.wrong), task.name


def test_prompt_b_is_better_by_a_small_margin():
    def rate(system, n=2000):
        return sum(E.right(t, ask(scenarios.seeded_agent(s), t.question, system))
                   for t in E.TASKS for s in range(n)) / (n * len(E.TASKS))
    a, b = rate(E.PROMPT_A), rate(E.PROMPT_B)
    assert 0.66 < a < 0.74 and 0.73 < b < 0.81 and 0.03 < b - a < 0.12, (a, b)


def test_unknown_question_gets_a_refusal():
    assert "only answer" in ask(scenarios.seeded_agent(), "What is the weather?")


def test_judge_picks_the_right_answer_in_either_position():
    t = E.TASKS[0]
    assert judge(pair(t.question, t.right[0], t.wrong[0])) == "Winner: 1"
    assert judge(pair(t.question, t.wrong[0], t.right[0])) == "Winner: 2"


def test_judge_has_a_position_bias_on_a_tie():
    t = E.TASKS[2]
    assert judge(pair(t.question, t.right[0], t.right[1])) == "Winner: 1"
    assert judge(pair(t.question, t.right[1], t.right[0])) == "Winner: 1"
    assert judge(pair(t.question, t.wrong[0], t.wrong[1])) == "Winner: 1"


def test_judge_that_sees_the_reference_grades_by_shared_words():
    t = E.TASKS[0]  # the wrong answer copies the reference's words, with 15000 for 5000
    prompt = pair(t.question, t.right[1], t.wrong[0])
    assert judge(prompt) == "Winner: 1"
    assert judge(prompt + f"\n\nReference answer: {t.reference}") == "Winner: 2"


def test_judge_survives_junk():
    assert judge("no format at all") == "Winner: 1"
    assert judge(pair("Unknown?", "a", "b")) == "Winner: 1"
