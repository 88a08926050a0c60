"""Chapter 16: a long task that outgrows a small context window, and a summariser for compaction.

    from workbook.scenarios import context
    scenario = context.returns_audit()     # the long task; also scenarios.get("returns_audit")
    context.IMPL, context.order_details    # its tool, bulky results included
    context.SUMMARY_PROMPT                 # the system prompt of a compaction call

One policy, two behaviours:

- **A compaction call** is a request whose system prompt contains the words "summarise the
  conversation" (any case; `SUMMARY_PROMPT` does). The model answers one summary built from what
  it was sent: every fact sentence ("Order A-2003: returned, refund R-7731, 4990 KZT refunded.")
  found in the text of the messages it received (tool results, a transcript in a user message, an
  earlier summary), in order, each once; everything else (items, tracking history) is dropped.
  So a summary keeps exactly the ids and numbers it was shown: a compaction that does not send the
  tool results, sends only the last steps, or cuts each message short, yields a summary missing
  them.
- **Otherwise it plays the task**: the user asks about twelve orders one by one (the question
  names them and contains "which were returned"). Each step it looks up the first named order
  it has no fact sentence for anywhere in its messages, with `order_details(order_id)`, whose
  result is about 400 tokens; with a fact for every order it answers with the returned orders'
  refund ids and amounts and the total (`ANSWER`). A fact lost from the messages is looked up
  again, so a loop that only drops old steps never finishes. If no user message holds the
  question (a provider cut it), it asks what to check (`LOST`).
"""

from __future__ import annotations

import re

from workbook import schemas
from workbook.engine.replies import Reply, call, final
from workbook.engine.turns import Conversation
from workbook.scenarios.base import Scenario

ORDERS = tuple(f"A-{n}" for n in range(2001, 2013))
RETURNED = {"A-2003": ("R-7731", 4990), "A-2007": ("R-7784", 12500), "A-2011": ("R-7802", 2350)}
QUESTION_MARK = "which were returned"
QUESTION = (f"Please go through my September orders {', '.join(ORDERS)} one by one: {QUESTION_MARK}, "
            "with their refund ids, and how much was refunded in total?")
SYSTEM = ("You are the shop's support agent. Look orders up with order_details; quote order ids, "
          "refund ids and amounts exactly.")
SUMMARY_MARK = "summarise the conversation"
SUMMARY_PROMPT = ("Summarise the conversation below for the agent that will continue it. Keep every "
                  "order id, refund id and amount it found; drop everything else.")
SUMMARY_HEADER = "Summary of the earlier steps:"
LOST = "Hello! What would you like me to check for you?"

FACT = re.compile(r"Order A-\d{4}: [^.\"\\\n]*\.")  # no quotes or backslashes: survives json.dumps
ORDER_OF = re.compile(r"Order (A-\d{4}):")
REFUND = re.compile(r"Order (A-\d{4}): returned, refund (R-\d{4}), (\d+) KZT refunded\.")

TOOL_SCHEMA = schemas.schema(
    "order_details", "Everything about one of the customer's orders: items, tracking history and "
    "its outcome.", {"order_id": {"type": "string", "description": "e.g. A-2001"}})
ITEMS = (("Svet desk lamp", "LED desk lamp with a flexible neck, three colour temperatures and a "
          "USB charging port in the base; warm light for evening reading"),
         ("Kelt notebook set", "Three A5 notebooks, dotted pages, recycled paper, lay-flat binding "
          "and a ribbon bookmark in each"),
         ("Tau thermos", "Stainless steel vacuum flask, 0.75 litre, keeps tea hot for twelve hours, "
          "with a cup lid and a carry strap"))
EVENTS = ("order placed", "payment confirmed", "packed at the Almaty warehouse",
          "handed to the courier", "arrived at the sorting centre", "out for delivery",
          "delivered to the customer")


def outcome(order_id: str) -> str:
    """The order's fact sentence: the one line of its result a later step needs."""
    if order_id in RETURNED:
        refund, amount = RETURNED[order_id]
        return f"Order {order_id}: returned, refund {refund}, {amount} KZT refunded."
    return f"Order {order_id}: delivered, no refund."


def order_details(order_id: str) -> dict:
    """The tool: a bulky record of one order, its fact sentence last (as real records bury it)."""
    if order_id not in ORDERS:
        raise ValueError(f"no order {order_id!r}: order ids look like A-2001")
    day = int(order_id[-2:])
    return {
        "order_id": order_id, "placed": f"2026-09-{day:02d}",
        "items": [{"sku": f"SKU-{order_id[2:]}-{k}", "name": name, "description": text, "quantity": 1}
                  for k, (name, text) in enumerate(ITEMS, 1)],
        "tracking": [{"at": f"2026-09-{day + k // 3:02d} {9 + k}:00", "event": event}
                     for k, event in enumerate(EVENTS)],
        "outcome": outcome(order_id),
    }


IMPL = {"order_details": order_details}
ANSWER = ("Returned: " + ", ".join(f"{o} (refund {r}, {a} KZT)" for o, (r, a) in RETURNED.items())
          + f". Total refunded: {sum(a for _, a in RETURNED.values())} KZT.")


def facts_in(texts) -> list[str]:
    """The fact sentences in these texts, in order, each once."""
    found: list[str] = []
    for text in texts:
        for fact in FACT.findall(text or ""):
            if fact not in found:
                found.append(fact)
    return found


def summary(texts) -> str:
    """What the summariser answers for a compaction call that sent these texts."""
    facts = facts_in(texts)
    if not facts:
        return f"{SUMMARY_HEADER} nothing worth keeping."
    return "\n".join([SUMMARY_HEADER, *(f"- {f}" for f in facts)])


def answer(facts: list[str]) -> str:
    """The final answer from the fact sentences (the returned orders in the order found)."""
    refunds = [m.groups() for m in map(REFUND.fullmatch, facts) if m]
    if not refunds:
        return "None of these orders was returned. Total refunded: 0 KZT."
    listed = ", ".join(f"{o} (refund {r}, {a} KZT)" for o, r, a in refunds)
    return f"Returned: {listed}. Total refunded: {sum(int(a) for _, _, a in refunds)} KZT."


def _policy(conv: Conversation) -> Reply:
    if SUMMARY_MARK in (conv.system or "").lower():
        return final(summary(t.content for t in conv.turns if t.role not in ("system", "developer")))
    task = next((t.content for t in conv.turns
                 if t.role == "user" and QUESTION_MARK in (t.content or "")), None)
    if task is None:
        return final(LOST)
    facts = facts_in(t.content for t in conv.turns)
    known = {ORDER_OF.match(f).group(1) for f in facts}
    wanted = [o for o in dict.fromkeys(re.findall(r"A-\d{4}", task)) if o in ORDERS]
    missing = [o for o in wanted if o not in known]
    if missing:
        return call("order_details", order_id=missing[0])
    return final(answer([f for f in facts if ORDER_OF.match(f).group(1) in wanted]))


def returns_audit() -> Scenario:
    return Scenario(name="returns_audit", description="Looks up twelve orders one by one (about 400 "
                    "tokens a result) and answers with refund ids and amounts from early steps; "
                    "answers a compaction call with the fact sentences it was sent.",
                    policy=_policy, tools=("order_details",), answer=ANSWER, question=QUESTION,
                    system=SYSTEM, tool_schemas=(TOOL_SCHEMA,))
