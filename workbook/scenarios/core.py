"""The scenarios of the core chapters: each a small policy, read top to bottom like a script."""

from __future__ import annotations

import json

from workbook.scenarios.base import (
    Call,
    Conversation,
    Reply,
    Scenario,
    call,
    calls,
    final,
)

TAXI_ANSWER = "Taxi in September 2026: 2 rides, 5000 KZT."


def _fields(conv: Conversation, *keys: str) -> dict | None:
    """The last tool result as a dict holding these keys, or None (a model that cannot read it)."""
    data = conv.last_json()
    return data if isinstance(data, dict) and all(k in data for k in keys) else None


def _number(text: str | None) -> float | None:
    try:
        value = json.loads(text or "")
    except ValueError:
        return None
    if isinstance(value, dict):
        value = value.get("result", value.get("value"))
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _taxi_answer(conv: Conversation) -> Reply:
    r = _fields(conv, "count", "total_kzt")
    if r is None:
        return final(f"Sorry, I could not read your spending: {conv.last_error() or conv.last_result}")
    return final(f"Taxi in {'September' if r.get('month', '2026-09') == '2026-09' else r['month']} "
                 f"2026: {r['count']} rides, {r['total_kzt']} KZT.")


def taxi_spending() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return _taxi_answer(conv)

    return Scenario("taxi_spending", "One tool call (txn_sum), then an answer built from its result.",
                    policy, ("txn_sum",), TAXI_ANSWER, "How much did I spend on taxis in September?")


def weather_and_math() -> Scenario:
    def policy(conv):
        if conv.called("get_weather") == 0:
            return call("get_weather", city="Almaty")
        if conv.called("calculate") == 0:
            w = _fields(conv, "temp_c")
            if w is None:
                return final("I could not read the weather.")
            return call("calculate", expression=f"{w['temp_c']} * 9 / 5 + 32")
        weather = json.loads(conv.results[0])
        fahrenheit = _number(conv.last_result)
        if fahrenheit is None:
            return final("I could not convert the temperature.")
        return final(f"In Almaty it is {weather['temp_c']} °C ({fahrenheit:g} °F) and {weather['sky']}.")

    return Scenario("weather_and_math", "Two tools in sequence: weather, then a calculation on it.",
                    policy, ("get_weather", "calculate"), "In Almaty it is 21 °C (69.8 °F) and sunny.",
                    "What is the weather in Almaty, in Fahrenheit?")


def _orders_answer(conv: Conversation) -> Reply:
    """Read each result by its tool_call_id, as a real model pairs them."""
    last = next(t for t in reversed(conv.turns) if t.role == "assistant")
    by_id = {t.tool_call_id: t.content for t in conv.turns if t.role == "tool"}
    parts = []
    for c in last.tool_calls:
        asked = json.loads(c.arguments).get("order_id")
        try:
            got = json.loads(by_id.get(c.id) or "")
        except ValueError:
            got = None
        if not isinstance(got, dict) or "status" not in got:
            return final(f"I could not read the result for order {asked}.")
        parts.append(f"order {asked} ({got.get('item', '?')}) is {got['status']}")
    text = "; ".join(parts) + "."
    return final(text[0].upper() + text[1:])


def two_orders() -> Scenario:
    def policy(conv):
        if conv.called("get_order") == 0:
            return calls(Call("get_order", {"order_id": "A-1001"}),
                         Call("get_order", {"order_id": "A-1002"}),
                         thought="Two independent look-ups: ask for both at once.")
        return _orders_answer(conv)

    return Scenario("two_orders", "Parallel tool calls: two get_order calls in one reply.", policy,
                    ("get_order",),
                    "Order A-1001 (Svet desk lamp) is shipped; order A-1002 (Green tea, 200 g) is processing.",
                    "Where are my orders A-1001 and A-1002?")


def _one_order(conv: Conversation) -> Reply:
    r = _fields(conv, "status")
    if r is None:
        return final("I could not look up the order.")
    return final(f"Order {r.get('order_id', 'A-1001')} ({r.get('item', '?')}) is {r['status']}.")


ORDER_ANSWER = "Order A-1001 (Svet desk lamp) is shipped."
ORDER_QUESTION = "Where is my order A-1001?"


def unknown_tool_then_recover() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("lookup_order", order_id="A-1001")
        if conv.called("get_order") == 0:
            if "get_order" in (conv.last_error() or ""):  # the error listed the real tools
                return call("get_order", order_id="A-1001")
            return final("I cannot look up orders right now.")
        return _one_order(conv)

    return Scenario("unknown_tool_then_recover", "Calls a tool that does not exist; recovers only if "
                    "the error lists the available tools.", policy, ("get_order",), ORDER_ANSWER,
                    ORDER_QUESTION)


def broken_json_then_fix() -> Scenario:
    def policy(conv):
        if not conv.results:
            return Reply(calls=(Call("get_order", '{"order_id": "A-1001"'),))
        if len(conv.results) == 1:
            if "json" in (conv.last_error() or "").lower():
                return call("get_order", order_id="A-1001")
            return final("I could not look up the order.")
        return _one_order(conv)

    return Scenario("broken_json_then_fix", "Sends arguments that are not valid JSON; fixes them "
                    "after an error that says so.", policy, ("get_order",), ORDER_ANSWER, ORDER_QUESTION)


def vague_vs_specific_error() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="September 2026")
        error = conv.last_error()
        if error is not None and conv.called("txn_sum") == 1:
            if "YYYY-MM" in error:  # only a specific message tells the model how to fix its call
                return call("txn_sum", category="taxi", month="2026-09")
            return final("Sorry, something went wrong and I could not get your spending.")
        return _taxi_answer(conv)

    return Scenario("vague_vs_specific_error", "Sends a badly formatted month; retries only when the "
                    "error says the expected format (YYYY-MM).", policy, ("txn_sum",), TAXI_ANSWER,
                    "How much did I spend on taxis in September 2026?")


TEXT_CALL = '<tool_call>{"name": "get_order", "arguments": {"order_id": "A-1001"}}</tool_call>'


def text_tool_call(recovers: bool = False) -> Scenario:
    def policy(conv):
        if conv.results:
            return _one_order(conv)
        if recovers and conv.user_turns_after_assistant() > 0:  # it was asked to call properly
            return call("get_order", order_id="A-1001")
        return final(TEXT_CALL)

    return Scenario("text_tool_call", "A small local model writes the tool call as text in `content` "
                    "instead of `tool_calls`" + (" (recovers when asked)." if recovers else " and never "
                    "learns."), policy, ("get_order",), ORDER_ANSWER if recovers else None, ORDER_QUESTION)


def repeat_forever() -> Scenario:
    return Scenario("repeat_forever", "Asks for the same call, get_order(A-1001), at every step.",
                    lambda conv: call("get_order", order_id="A-1001"), ("get_order",), None,
                    ORDER_QUESTION)


def never_finishes() -> Scenario:
    def policy(conv):
        return call("search_kb", query=f"delivery times, attempt {conv.steps + 1}")

    return Scenario("never_finishes", "Keeps searching with new queries forever: only a step limit "
                    "stops it.", policy, ("search_kb",), None, "How long does delivery take?")


def token_hog(pages: int = 40) -> Scenario:
    def policy(conv):
        if conv.called("fetch_report") < pages:
            return Reply(calls=(Call("fetch_report", {"page": conv.called("fetch_report") + 1}),),
                         text="Reading the next page of the report before I answer.")
        return final(f"I read all {pages} pages of the report.")

    return Scenario("token_hog", f"Reads a long report page by page ({pages} pages): the prompt grows "
                    "every step.", policy, ("fetch_report",), f"I read all {pages} pages of the report.",
                    "Summarise my spending report.")


def asks_other_customer() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09", customer_id="C-002")
        if conv.last_error() and conv.called("txn_sum") == 1:
            return call("txn_sum", category="taxi", month="2026-09")
        return _taxi_answer(conv)

    return Scenario("asks_other_customer", "Sends customer_id='C-002' (someone else) in the arguments; "
                    "retries without it after an error.", policy, ("txn_sum",), TAXI_ANSWER,
                    "How much did customer C-002 spend on taxis in September?")


CONFIRM_ANSWER = "To block your card I need your confirmation: reply 'yes, block my card'."


def wants_card_block() -> Scenario:
    def policy(conv):
        if not conv.results:  # tries to confirm on the customer's behalf
            return call("card_block", confirmed=True)
        if conv.last_error() is not None:
            if conv.called("card_block") == 1:
                return call("card_block")
            return final(CONFIRM_ANSWER)
        return final("Your card is now blocked.")

    return Scenario("wants_card_block", "Asks to block the card, first passing confirmed=true itself; "
                    "only the customer can confirm.", policy, ("card_block",), CONFIRM_ANSWER,
                    "Someone stole my card, block it!")
