"""Scenarios of chapters 04 (parallel tool calls) and 05 (errors are observations).

Like the core ones, each is a small policy read top to bottom. The model reads every result by
its tool_call_id, as a real model pairs them, so a loop that answers the wrong id, drops a call
or splits one reply into several turns gets a wrong answer, not a lucky right one.
"""

from __future__ import annotations

import json

from workbook.scenarios.base import Call, Conversation, Reply, Scenario, call, calls, final

REFUNDS_ANSWER = "Refunded 2450 KZT for order A-1001; refunded 1290 KZT for order A-1002."
MIXED_ANSWER = "Refunded 1290 KZT for order A-1002; order A-1001 (Svet desk lamp) is shipped."
ORDER_ANSWER = "Order A-1001 (Svet desk lamp) is shipped."
MISSING_ANSWER = "I could not find order A-1003 in your account. Could you check the order number?"


def _json(text: str | None):
    try:
        return json.loads(text or "")
    except ValueError:
        return None


def _report(conv: Conversation) -> Reply:
    """One sentence per call of the latest tool-calling turn, each read from its own result."""
    last = next(t for t in reversed(conv.turns) if t.role == "assistant" and t.tool_calls)
    by_id = {t.tool_call_id: t.content for t in conv.turns if t.role == "tool"}
    parts = []
    for c in last.tool_calls:
        args = _json(c.arguments) or {}
        order = args.get("order_id", "?")
        got = _json(by_id.get(c.id))
        if not isinstance(got, dict) or "error" in got:
            parts.append(f"I could not {'refund' if c.name == 'refund' else 'look up'} order {order}")
        elif c.name == "refund":
            parts.append(f"refunded {args.get('amount')} KZT for order {order}")
        elif "status" in got:
            parts.append(f"order {order} ({got.get('item', '?')}) is {got['status']}")
        else:
            parts.append(f"I could not read the result for order {order}")
    text = "; ".join(parts) + "."
    return final(text[0].upper() + text[1:])


def two_refunds() -> Scenario:
    def policy(conv):
        if conv.called("refund") == 0:
            return calls(Call("refund", {"order_id": "A-1001", "amount": 2450}),
                         Call("refund", {"order_id": "A-1002", "amount": 1290}),
                         thought="Two refunds: both change the customer's money.")
        return _report(conv)

    return Scenario("two_refunds", "Two state-changing calls in one reply: refund A-1001, then A-1002.",
                    policy, ("refund",), REFUNDS_ANSWER,
                    "Please refund my orders A-1001 (2450 KZT) and A-1002 (1290 KZT).")


def refund_and_status() -> Scenario:
    def policy(conv):
        if conv.called("refund") == 0:
            return calls(Call("refund", {"order_id": "A-1002", "amount": 1290}),
                         Call("get_order", {"order_id": "A-1001"}),
                         thought="A refund and an unrelated look-up: ask for both at once.")
        return _report(conv)

    return Scenario("refund_and_status", "A write and a read in one reply: refund A-1002, look up "
                    "A-1001.", policy, ("refund", "get_order"), MIXED_ANSWER,
                    "Please refund order A-1002 (1290 KZT). And where is my order A-1001?")


def _one_order(conv: Conversation) -> Reply:
    got = _json(conv.last_result)
    if not isinstance(got, dict) or "status" not in got:
        return final("Sorry, I could not look up your order.")
    return final(f"Order {got.get('order_id', 'A-1001')} ({got.get('item', '?')}) is {got['status']}.")


def wrong_field_then_fix() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("get_order", id="A-1001")  # the schema says order_id
        error = conv.last_error()
        if error is not None and conv.called("get_order") == 1:
            if "order_id" in error or "'id'" in error:  # the error named the field: fix the call
                return call("get_order", order_id="A-1001")
            return final("Sorry, I could not look up your order.")
        return _one_order(conv)

    return Scenario("wrong_field_then_fix", "Sends get_order(id=...) instead of order_id; fixes the "
                    "call only when the error names the field.", policy, ("get_order",), ORDER_ANSWER,
                    "Where is my order A-1001?")


def missing_order() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("get_order", order_id="A-1003")
        if conv.last_error() is not None:
            return final(MISSING_ANSWER)
        got = _json(conv.last_result)
        if isinstance(got, dict) and "status" in got:
            return final(f"Order A-1003 ({got.get('item', '?')}) is {got['status']}.")
        # Nobody said the look-up failed, so the model fills the gap with a plausible guess.
        return final("Order A-1003 is on its way and should arrive in 2-3 days.")

    return Scenario("missing_order", "Asks for an order that does not exist; answers honestly only "
                    "when the error reaches it, else it guesses.", policy, ("get_order",),
                    MISSING_ANSWER, "Where is my order A-1003?")
