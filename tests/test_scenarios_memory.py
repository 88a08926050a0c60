"""Chapter 17's scenarios (workbook/scenarios/memory.py) behave as their descriptions say, played
by the reference loop with a small reference memory: the customer comes from the session, a card
number reaches the tool verbatim, a model that names another customer retries without it, and a
resumed conversation uses a dated fact, questions a stale one and trusts an undated one."""

import json

import pytest

from tests.reference_loop import run_agent
from workbook import kb, scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import memory

NEW = ("remembers_preference", "stores_card", "recalls_other_customer", "resumes_tomorrow",
       "forgets_on_request")


def reference_memory(facts, customer="C-001", dated=True):
    """Memory tools over a list of (customer, date, days_ago, fact), bound to one customer."""
    seen = []

    def remember(fact):
        seen.append(fact)
        facts.append((customer, "2026-12-01", 0, fact))
        return {"remembered": fact}

    def recall(query):
        mine = [f for f in facts if f[0] == customer and set(kb.tokens(query)) & set(kb.tokens(f[3]))]
        return [{"date": d, "days_ago": a, "fact": t} if dated else t for _, d, a, t in mine]

    def forget(query):
        gone = [f for f in facts if f[0] == customer and set(kb.tokens(query)) <= set(kb.tokens(f[3]))]
        for f in gone:
            facts.remove(f)
        return {"forgotten": len(gone)}

    return {"remember": remember, "recall": recall, "forget": forget}, seen


def play(sc, impl):
    return run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), impl, max_steps=5)


def test_registered_and_described():
    for name in NEW:
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.description and len(sc.description) < 140
        tools = sc.openai_tools()
        assert [t["function"]["name"] for t in tools] == list(sc.tools)
        for t in tools:  # the model may choose what to remember or look for, never whose memory
            assert "customer_id" not in t["function"]["parameters"]["properties"]


def test_remembers_preference_once():
    impl, seen = reference_memory([])
    run = play(scenarios.remembers_preference(), impl)
    assert (run.answer, run.status, run.steps) == (memory.REMEMBER_ANSWER, "done", 2)
    assert seen == [memory.PREFERENCE]


def test_stores_card_passes_the_secrets_verbatim():
    impl, seen = reference_memory([])
    run = play(scenarios.stores_card(), impl)
    assert run.answer == memory.CARD_ANSWER and seen == [memory.CARD_FACT]
    assert memory.CARD in seen[0] and memory.EMAIL in seen[0]


def test_recalls_other_customer_retries_without_the_id():
    facts = [("C-001", "2026-11-30", 1, memory.PREFERENCE), ("C-002", "2026-11-30", 1, "Deliveries go to the neighbour.")]
    impl, _ = reference_memory(facts)
    run = play(scenarios.recalls_other_customer(), impl)
    asked = [json.loads(c["function"]["arguments"]) for m in run.messages for c in m.get("tool_calls") or ()]
    assert asked == [{"query": "delivery preference", "customer_id": "C-002"}, {"query": "delivery preference"}]
    assert "office reception" in run.answer and "neighbour" not in run.answer


@pytest.mark.parametrize(("days_ago", "dated", "says"), [
    (1, True, "(you told us on 2026-11-30)"),
    (200, True, "is it still right"),
    (200, False, "Your order goes by your saved preference: Deliveries go to the office reception."),
])
def test_resumes_tomorrow_reads_the_date(days_ago, dated, says):
    impl, _ = reference_memory([("C-001", "2026-11-30", days_ago, memory.PREFERENCE)], dated=dated)
    run = play(scenarios.resumes_tomorrow(), impl)
    assert run.status == "done" and says in run.answer, run.answer
    if not dated:
        assert "?" not in run.answer  # without a date a stale fact looks current


def test_resumes_tomorrow_without_facts_asks():
    impl, _ = reference_memory([("C-002", "2026-11-30", 1, "Deliveries go to the neighbour.")])
    assert play(scenarios.resumes_tomorrow(), impl).answer == memory.NO_PREFERENCE


def test_forgets_on_request_counts():
    facts = [("C-001", "2026-11-30", 1, memory.PREFERENCE), ("C-002", "2026-11-30", 1, "Deliveries go to the neighbour.")]
    impl, _ = reference_memory(facts)
    run = play(scenarios.forgets_on_request(), impl)
    assert run.answer == "Done: I deleted 1 saved fact about deliveries." and len(facts) == 1


def test_recalled_reads_dicts_and_strings_and_refuses_the_rest():
    assert memory.recalled('[{"fact": "a", "date": "2026-11-30"}, "b"]') == [
        {"fact": "a", "date": "2026-11-30"}, {"fact": "b"}]
    for text in ('{"fact": "a"}', "[1]", "not json", None):
        assert memory.recalled(text) is None
