"""Scenarios in which the fake answers in Russian (docs/TRANSLATING.md, "Content in the language").

Each is named after its English twin with `_ru` (`scenarios.get("taxi_spending", lang="ru")`
finds it): the same tools and steps, the question, the answer, the description, the tool
descriptions and the thoughts in Russian, and Cyrillic in the arguments where the task has words (a search query), so
a loop that writes JSON with the default `ensure_ascii=True` sends `\\uXXXX` escapes (chapter 15
counts what they cost). The knowledge-base ones are the Russian course's own queries, searched in
`agent_files/ru/kb` (`kb.search(query, k, lang="ru")`).

- `taxi_spending_ru`: txn_sum, then "Такси в сентябре 2026: 2 поездки, 5000 ₸.";
- `two_orders_ru`: two get_order calls in one reply, each order's status in Russian;
- `opened_tea_ru`: rag_search(query="вскрытый чай"), then whether opened tea can be returned, with
  the sources it read;
- `lamp_warranty_ru`: rag_search(query="гарантия Свет мини"), then the warranty, with its source.

The twins of the other scenarios chapters 00-02 show in their demo cells are in `russian_loop.py`.

Like a model, the fake reads a result however it was written: JSON with or without escapes, or
text; only what it costs differs.
"""

from __future__ import annotations

import json
import re

from workbook import schemas
from workbook.engine.replies import Call, Reply, call, calls, final
from workbook.engine.turns import Conversation, json_or_none
from workbook.scenarios.base import Scenario

_STR = {"type": "string"}
TOOLS_RU = {s["function"]["name"]: s for s in (
    schemas.schema("txn_sum", "Расходы вошедшего клиента по одной категории за один месяц (ГГГГ-ММ).",
                   {"category": {"type": "string", "description": "например taxi, food"},
                    "month": {"type": "string", "description": "ГГГГ-ММ, например 2026-09"}}),
    schemas.schema("get_order", "Статус, товар и сумма одного из заказов вошедшего клиента.",
                   {"order_id": {"type": "string", "description": "например A-1001"}}),
    schemas.schema("rag_search", "Поиск по базе знаний магазина: k лучших разделов (не больше 8).",
                   {"query": _STR, "k": {"type": "integer"}}, ["query"]),
    schemas.schema("card_block", "Заблокировать карту вошедшего клиента. Меняет состояние: нужно "
                   "подтверждение клиента.", {}),
    schemas.schema("search_kb", "Поиск по справочным страницам магазина.", {"query": _STR}),
)}
TAXI_QUESTION_RU = "Сколько я потратил на такси в сентябре?"
TAXI_ANSWER_RU = "Такси в сентябре 2026: 2 поездки, 5000 ₸."
ORDERS_QUESTION_RU = "Где мои заказы A-1001 и A-1002?"
ORDERS_ANSWER_RU = ("Заказ A-1001 (настольная лампа «Свет») отправлен; "
                    "заказ A-1002 (зелёный чай, 200 г) собирается.")
TEA_QUESTION_RU = "Можно ли вернуть вскрытый чай?"
TEA_ANSWER_RU = ("Нет: вскрытый чай не возвращается (ru/kb/products/green-tea.md § Возврат). "
                 "Невскрытый чай можно вернуть в течение 14 дней (ru/kb/returns.md § Что нельзя вернуть).")
WARRANTY_QUESTION_RU = "Какая гарантия на лампу «Свет мини»?"
WARRANTY_ANSWER_RU = ("Гарантия на лампу «Свет мини» — 6 месяцев со дня доставки "
                      "(ru/kb/products/svet-mini.md § Гарантия).")

# What the shop's English data means, as a model answering in Russian would say it.
ITEMS_RU = {"Svet desk lamp": "настольная лампа «Свет»", "Green tea, 200 g": "зелёный чай, 200 г",
            "Svet mini lamp": "лампа «Свет мини»"}
STATUS_RU = {"shipped": "отправлен", "processing": "собирается", "delivered": "доставлен"}
SOURCE = re.compile(r"ru/kb/[\w/.-]+?\.md(?:\s*§\s*[^\]\n\"]+)?")
GAP = r"(?:\s|\\n)+"  # a space or a line break, also as JSON writes it inside a string
OPENED = re.compile(rf"Вскрытый{GAP}чай{GAP}(?:не{GAP}возвращается|вернуть{GAP}нельзя)")
UNOPENED_DAYS = re.compile(rf"Невскрытый{GAP}чай{GAP}возвращается{GAP}по{GAP}общему{GAP}правилу{GAP}(\d+){GAP}дн")
WARRANTY = re.compile(rf"«Свет{GAP}мини»{GAP}действует{GAP}гарантия{GAP}(\d+){GAP}месяц")


def rides(n: int) -> str:
    """'поездка', 'поездки' or 'поездок', as Russian counts them."""
    if n % 10 == 1 and n % 100 != 11:
        return "поездка"
    return "поездки" if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else "поездок"


def in_russian(name: str, policy, tool: str, answer: str | None, question: str, description: str) -> Scenario:
    """A scenario in Russian: one tool, described in Russian (a fresh copy of its schema)."""
    return Scenario(name=name, policy=policy, tools=(tool,), answer=answer, question=question,
                    description=description, tool_schemas=(json.loads(json.dumps(TOOLS_RU[tool])),))


def _readable(text: str) -> str:
    """A result as a model reads it: JSON (escaped or not) shown with its letters, else the text."""
    value = json_or_none(text)
    if value is None or isinstance(value, str):
        return text if value is None else value
    return json.dumps(value, ensure_ascii=False)


def _found(conv: Conversation, pattern: re.Pattern) -> tuple[re.Match, str | None] | None:
    """The first match of `pattern` in the search results so far, and the source cited before it."""
    for text in conv.results:  # the scenario's only tool is rag_search
        text = _readable(text)
        m = pattern.search(text)
        if m:
            sources = SOURCE.findall(text[:m.start()])
            return m, (sources[-1].strip() if sources else None)
    return None


def _search(query: str, thought: str) -> Reply:
    """rag_search for the query (3 hits), with the thought said beside the call, as a log shows it."""
    return Reply(calls=(Call("rag_search", {"query": query, "k": 3}),), text=thought)


def _cited(source: str | None) -> str:
    return f" ({source})" if source else ""


def taxi_answer_ru(conv: Conversation) -> Reply:
    """The spending answer read from the last txn_sum result, or why it could not be read."""
    r = conv.read(total_kzt=int)
    if r is None:
        said = conv.last_error() or _readable(conv.last_result or "")[:200]
        return final(f"Не получилось узнать расходы: {said}")
    month = "сентябре" if r.get("month", "2026-09") == "2026-09" else r["month"]
    count = (conv.read(count=int) or {}).get("count")
    trips = "" if count is None else f" {count} {rides(count)},"
    return final(f"Такси в {month} 2026:{trips} {r['total_kzt']} ₸.")


def order_ru(order: str, got: dict) -> str:
    """'заказ A-1001 (настольная лампа «Свет») отправлен': an order's status, as said in Russian."""
    item = ITEMS_RU.get(got.get("item", "?"), got.get("item", "?"))
    return f"заказ {order} ({item}) {STATUS_RU.get(got['status'], got['status'])}"


def taxi_spending_ru() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return taxi_answer_ru(conv)

    return in_russian("taxi_spending_ru", policy, "txn_sum", TAXI_ANSWER_RU, TAXI_QUESTION_RU,
                      "Один вызов инструмента (txn_sum), затем ответ по его результату.")


def two_orders_ru() -> Scenario:
    def policy(conv):
        if conv.called("get_order") == 0:
            return calls(Call("get_order", {"order_id": "A-1001"}), Call("get_order", {"order_id": "A-1002"}),
                         thought="Два независимых запроса: спрошу оба сразу.")
        parts = []
        for c in conv.last_calls():
            order = (c.args() or {}).get("order_id", "?")
            got = conv.read(conv.result_for(c), status=str)
            if got is None:
                parts.append(f"заказ {order} узнать не получилось")
                continue
            parts.append(order_ru(order, got))
        text = "; ".join(parts) + "."
        return final(text[0].upper() + text[1:])

    return in_russian("two_orders_ru", policy, "get_order", ORDERS_ANSWER_RU, ORDERS_QUESTION_RU,
                      "Два вызова get_order в одном ответе, затем статус каждого заказа.")


def opened_tea_ru() -> Scenario:
    def policy(conv):
        if conv.called("rag_search") == 0:
            return _search("вскрытый чай", "Ищу в базе знаний правила возврата вскрытого чая.")
        opened = _found(conv, OPENED)
        if opened is None:
            return final("В базе знаний я не нашёл, можно ли вернуть вскрытый чай.")
        answer = f"Нет: вскрытый чай не возвращается{_cited(opened[1])}."
        days = _found(conv, UNOPENED_DAYS)
        if days is not None:
            answer += f" Невскрытый чай можно вернуть в течение {days[0].group(1)} дней{_cited(days[1])}."
        return final(answer)

    return in_russian("opened_tea_ru", policy, "rag_search", TEA_ANSWER_RU, TEA_QUESTION_RU,
                      "База знаний: rag_search('вскрытый чай'), затем можно ли вернуть вскрытый чай, с источниками.")


def lamp_warranty_ru() -> Scenario:
    def policy(conv):
        if conv.called("rag_search") == 0:
            return _search("гарантия Свет мини", "Нужно найти срок гарантии лампы «Свет мини».")
        found = _found(conv, WARRANTY)
        if found is None:
            return final("В базе знаний я не нашёл гарантию на лампу «Свет мини».")
        return final(f"Гарантия на лампу «Свет мини» — {found[0].group(1)} месяцев со дня доставки"
                     f"{_cited(found[1])}.")

    return in_russian("lamp_warranty_ru", policy, "rag_search", WARRANTY_ANSWER_RU, WARRANTY_QUESTION_RU,
                      "База знаний: rag_search('гарантия Свет мини'), затем срок гарантии с источником.")
