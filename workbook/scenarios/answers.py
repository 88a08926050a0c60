"""How the shop scenarios' model answers from what the tools sent back: shared by every theme."""

from __future__ import annotations

from workbook.engine.reading import brief
from workbook.engine.replies import Reply, final
from workbook.engine.turns import Conversation

TAXI_QUESTION = "How much did I spend on taxis in September?"
TAXI_ANSWER = "Taxi in September 2026: 2 rides, 5000 KZT."
ORDER_QUESTION = "Where is my order A-1001?"
ORDER_ANSWER = "Order A-1001 (Svet desk lamp) is shipped."


def taxi_answer(conv: Conversation) -> Reply:
    """The spending answer read from the last txn_sum result, or why it could not be read (a
    result without the number of rides still gives the total)."""
    r = conv.read(total_kzt=int)
    if r is None:
        return final(f"Sorry, I could not read your spending: "
                     f"{conv.last_error() or brief(conv.last_result or '')}")
    month = "September" if r.get("month", "2026-09") == "2026-09" else r["month"]
    rides = conv.read(count=int)
    if rides is None:
        return final(f"Taxi in {month} 2026: {r['total_kzt']} KZT.")
    return final(f"Taxi in {month} 2026: {rides['count']} rides, {r['total_kzt']} KZT.")


def one_order(conv: Conversation) -> Reply:
    """The order's status read from the last get_order result."""
    r = conv.read(status=str)
    if r is None:
        return final("Sorry, I could not look up your order.")
    return final(f"Order {r.get('order_id', 'A-1001')} ({r.get('item', '?')}) is {r['status']}.")


def report(conv: Conversation) -> Reply:
    """One sentence per call of the latest tool-calling turn, each read from its own result (by
    tool_call_id, as a real model pairs them): a loop that answers the wrong id, drops a call or
    splits one reply into several turns gets a wrong answer, not a lucky right one."""
    parts = []
    for c in conv.last_calls():
        args = c.args() or {}
        order = args.get("order_id", "?")
        got = conv.read(conv.result_for(c))
        if got is None:
            parts.append(f"I could not {'refund' if c.name == 'refund' else 'look up'} order {order}")
        elif c.name == "refund":
            parts.append(f"refunded {args.get('amount')} KZT for order {order}")
        elif (status := conv.read(conv.result_for(c), status=str)) is not None:
            parts.append(f"order {order} ({got.get('item', '?')}) is {status['status']}")
        else:
            parts.append(f"I could not read the result for order {order}")
    text = "; ".join(parts) + "."
    return final(text[0].upper() + text[1:])
