"""Chapter 12's models: by_prompt answers by the system prompt; support_desk plays every workflow step."""

import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import workflows


def ask(llm, system, user):
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    response = llm.client().chat.completions.create(model="m", messages=messages)
    return response.choices[0].message.content


def test_registered_and_described():
    sc = scenarios.get("support_desk")
    assert sc.name == "support_desk" and sc.question and sc.description
    assert ("support_desk", sc.description) in scenarios.catalogue()


def test_by_prompt_picks_the_first_key_the_system_prompt_contains():
    llm = FakeLLM(scenarios.by_prompt({"classify": "refunds", "extract": "A-1001", "": "other"}))
    assert ask(llm, "Classify this message.", "x") == "refunds"
    assert ask(llm, "EXTRACT the order id", "x") == "A-1001"
    assert ask(llm, "Anything else", "x") == "other"


def test_by_prompt_list_is_played_by_attempt_and_function_by_conversation():
    llm = FakeLLM(scenarios.by_prompt({"vote": ["yes", "no", "yes."], "echo": lambda c: c.question.upper()}))
    assert [ask(llm, "Vote", "q") for _ in range(4)] == ["yes", "no", "yes.", "yes."]
    assert ask(llm, "Vote", "another question") == "yes"  # other messages: their own count
    assert ask(llm, "echo it", "hello") == "HELLO"


def test_by_prompt_without_a_matching_key_says_so_in_its_reply():
    """Never the fake's own 500 (tests/test_fake_fuzz.py): the model's text names the keys it plays."""
    llm = FakeLLM(scenarios.by_prompt({"classify": "refunds"}))
    reply = ask(llm, "Write a poem", "x")
    assert "only system prompts that contain one of ['classify']" in reply and "write a poem" in reply
    with pytest.raises(ValueError):
        scenarios.by_prompt({})
    with pytest.raises(TypeError):
        scenarios.by_prompt({"x": 42})


def test_classifier_answers_a_listed_class_or_invents_one():
    llm = FakeLLM(scenarios.support_desk())
    system = "Classify the message. Classes:\n- refunds\n- orders\n- faq"
    assert ask(llm, system, "My lamp arrived broken, I want a refund") == "refunds"
    assert ask(llm, system, "Where is my order A-1002?") == "orders"
    assert ask(llm, system, "How long do I have to return a lamp?") == "faq"
    assert ask(llm, system, "Change my delivery address") == "other"
    assert ask(llm, system, "URGENT: refund me now") == "urgent_refunds"
    assert ask(llm, "Classify. Classes: faq", "where is my order?") == "other"  # not listed


def test_extractor_and_writer_and_reviewer():
    llm = FakeLLM(scenarios.support_desk(missing=2))
    assert ask(llm, "Extract the order id", "My lamp A-1001 broke, also A-1002") == "A-1001"
    assert "could not find" in ask(llm, "Extract the order id", "My lamp broke")
    task = "Facts: Refunded 2450 KZT for order A-1001."
    draft = ask(llm, "Write the reply", task)
    assert "Refunded 2450 KZT for order A-1001." in draft and "sorry" not in draft
    assert draft.endswith("Kind regards, Northwind support.")
    note = ask(llm, "Review the reply", draft)
    assert note == "FIX: " + workflows.WANTS[0][1]
    draft = ask(llm, "Write the reply", f"{task}\n\nDraft:\n{draft}\n\nNotes:\n{note}")
    assert "We are sorry" in draft and "5 working days" not in draft
    note = ask(llm, "Review the reply", draft)
    assert note == "FIX: " + workflows.WANTS[1][1]
    draft = ask(llm, "Write the reply", f"{task}\n\nDraft:\n{draft}\n\nNotes:\n{note}")
    assert "We are sorry" in draft and "5 working days" in draft  # earlier fixes are kept
    assert ask(llm, "Review the reply", draft) == "PASS"
    picky = FakeLLM(scenarios.support_desk(missing=0, picky=True))
    assert ask(picky, "Review the reply", draft).startswith("FIX:")
    with pytest.raises(ValueError):
        scenarios.support_desk(missing=4)


def test_workers_report_the_first_subtask_they_see():
    llm = FakeLLM(scenarios.support_desk())
    plan = ask(llm, "Plan the subtasks", "Where are A-1001 and A-1002?").splitlines()
    assert plan == ["Report the status of order A-1001", "Report the status of order A-1002"]
    assert ask(llm, "Worker", plan[1]) == "Order A-1002 (Green tea, 200 g) is processing."
    shared = [{"role": "system", "content": "Worker"}, {"role": "user", "content": plan[0]},
              {"role": "assistant", "content": "Order A-1001 ..."}, {"role": "user", "content": plan[1]}]
    leaked = llm.client().chat.completions.create(model="m", messages=shared).choices[0].message.content
    assert leaked.startswith("Order A-1001")  # a worker that sees another's messages is wrong
    both = "Order A-1001 (Svet desk lamp) is shipped.\nOrder A-1002 (Green tea, 200 g) is processing."
    assert ask(llm, "Combine the workers' reports", both) == both.replace("\n", " ")


def test_writer_without_facts_names_the_order():
    llm = FakeLLM(scenarios.support_desk(missing=0))
    assert "about A-1001." in ask(llm, "Write the reply", "A-1001")
