"""The scenarios in which the fake answers in Russian: they run on every face through a plain loop
to their Russian answers, send Cyrillic arguments unescaped, and a loop that escapes its results
(`ensure_ascii=True`) gets the same answer for more tokens."""

import json

import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import kb, scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import russian
from workbook.shop import Shop

RUSSIAN = {"taxi_spending": "taxi_spending_ru", "two_orders": "two_orders_ru",
           "opened_tea": "opened_tea_ru", "lamp_warranty": "lamp_warranty_ru"}


def loop(client, sc, ensure_ascii):
    """A plain Chat Completions loop that writes each result with json.dumps(result, ensure_ascii=...)."""
    impl, messages = tools_for(Shop()), [{"role": "user", "content": sc.question}]
    for _ in range(6):
        reply = client.chat.completions.create(model="m", messages=messages, tools=sc.openai_tools())
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, reply.usage, messages
        for c in message.tool_calls:
            result = impl[c.function.name](**json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id,
                             "content": json.dumps(result, ensure_ascii=ensure_ascii)})
    raise AssertionError("the loop did not finish")


@pytest.mark.parametrize("name", RUSSIAN.values())
@pytest.mark.parametrize("dialect", ["openai", "deepseek", "ollama"])
def test_each_reaches_its_russian_answer_through_the_reference_loop(name, dialect):
    sc = scenarios.get(name)
    result = run_agent(FakeLLM(sc, dialect).client(), sc.question, sc.openai_tools(), tools_for(Shop()))
    assert (result.status, result.answer, result.steps) == ("done", sc.answer, 2)
    assert any("а" <= ch <= "я" for ch in sc.answer.lower()) and "KZT" not in sc.answer


def test_the_answers_say_what_the_tools_found():
    assert scenarios.get("taxi_spending_ru").answer == "Такси в сентябре 2026: 2 поездки, 5000 ₸."
    assert "14 дней" in russian.TEA_ANSWER_RU and "ru/kb/returns.md § Что нельзя вернуть" in russian.TEA_ANSWER_RU
    assert "6 месяцев" in russian.WARRANTY_ANSWER_RU
    assert [russian.rides(n) for n in (1, 2, 5, 11, 12, 21, 22, 25)] == [
        "поездка", "поездки", "поездок", "поездок", "поездок", "поездка", "поездки", "поездок"]


def test_a_russian_twin_is_found_by_language():
    for english, twin in RUSSIAN.items():
        if english in scenarios.CATALOGUE:
            assert scenarios.get(english, lang="ru").name == twin
            assert scenarios.get(english, lang="en").name == english
    with pytest.raises(KeyError, match="no scenario 'weather_and_math' in language 'ru'; in that language: "
                                       "taxi_spending_ru, two_orders_ru"):
        scenarios.get("weather_and_math", lang="ru")
    with pytest.raises(KeyError, match="in that language: none"):
        scenarios.get("taxi_spending", lang="de")


def test_the_function_face_plays_taxi_in_russian():
    model = scenarios.get("taxi_spending", lang="ru").as_function()
    messages = [{"role": "user", "content": russian.TAXI_QUESTION_RU}]
    reply = model(messages, [])
    assert reply == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}
    messages += [{"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)},
                 {"role": "tool", "content": json.dumps(Shop().txn_sum(**reply["args"]), ensure_ascii=False)}]
    assert model(messages, []) == {"final": "Такси в сентябре 2026: 2 поездки, 5000 ₸."}


@pytest.mark.parametrize(("name", "query"), [("opened_tea_ru", "вскрытый чай"),
                                             ("lamp_warranty_ru", "гарантия Свет мини")])
def test_cyrillic_arguments_come_unescaped_and_escaped_results_cost_more(name, query):
    sc = scenarios.get(name)
    first = FakeLLM(sc).client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": sc.question}], tools=sc.openai_tools())
    call = first.choices[0].message.tool_calls[0]
    assert call.function.arguments == json.dumps({"query": query, "k": 3}, ensure_ascii=False)
    assert "\\u" not in call.function.arguments and first.choices[0].message.content  # a thought, in Russian
    plain = loop(FakeLLM(sc).client(), sc, ensure_ascii=False)
    escaped = loop(FakeLLM(sc).client(), sc, ensure_ascii=True)
    assert plain[0] == escaped[0] == sc.answer  # the model reads both...
    assert "\\u04" in escaped[2][2]["content"] and "\\u04" not in plain[2][2]["content"]
    assert escaped[1].prompt_tokens > 1.5 * plain[1].prompt_tokens  # ...and the escapes cost tokens


def test_the_tools_are_described_in_russian_and_keep_their_names():
    for name in RUSSIAN.values():
        sc = scenarios.get(name)
        for tool in sc.openai_tools():
            assert tool["function"]["name"] in sc.tools
            assert any("а" <= ch <= "я" for ch in tool["function"]["description"].lower())


def test_a_search_that_finds_nothing_is_answered_honestly():
    sc = scenarios.get("opened_tea_ru")
    impl = {**tools_for(Shop()), "rag_search": lambda query, k=4: ""}
    result = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), impl)
    assert result.answer == "В базе знаний я не нашёл, можно ли вернуть вскрытый чай."
    impl["rag_search"] = lambda query, k=4: [h.__dict__ for h in kb.search("гарантия Свет мини", k, lang="ru")]
    sc = scenarios.get("lamp_warranty_ru")  # hits as a JSON list: read as well, the source without its section
    result = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), impl)
    assert result.answer == "Гарантия на лампу «Свет мини» — 6 месяцев со дня доставки (ru/kb/products/svet-mini.md)."
