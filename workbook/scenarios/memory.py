"""Chapter 17: a support model with long-term memory, the tools `remember`, `recall` and `forget`.

The tools take only what the model may choose (`fact`, `query`): whose memory it is comes from
the session, never from the model. The scenarios:

- `remembers_preference`: the customer asks to have deliveries left at the office reception; the
  model calls remember(fact=...) once and confirms.
- `stores_card`: the customer gives a card number and an e-mail "for next time"; the model
  passes them to remember verbatim. Only the tool can mask them before they are written.
- `recalls_other_customer`: asked about customer C-002, the model calls recall with
  `customer_id="C-002"`; after an error it recalls without it and answers from what came back.
- `resumes_tomorrow`: a new conversation ("where should my order go?"). The model recalls, then
  reads the facts as recall returns them, a list of {"date", "days_ago", "fact"}: a fact at most
  `STALE_DAYS` old it uses and names its date; an older one it asks the customer to confirm; a
  fact without a date it takes as current (which is the mistake a date prevents).
- `forgets_on_request`: "forget my delivery address": forget(query="delivery"), then it says how
  many facts went ({"forgotten": n}).
"""

from __future__ import annotations

from workbook import schemas
from workbook.engine.replies import Reply, call, final
from workbook.engine.turns import Conversation, json_or_none
from workbook.scenarios.base import Scenario

STALE_DAYS = 90  # older than this, a remembered preference is checked with the customer first
PREFERENCE = "Deliveries go to the office reception."
REMEMBER_QUESTION = "Please remember that from now on I want my deliveries left at my office reception."
REMEMBER_ANSWER = "Noted: from now on your deliveries go to the office reception."
CARD, EMAIL = "4111 1111 1111 1111", "aigerim@example.com"
CARD_QUESTION = f"My card is {CARD} and my e-mail is {EMAIL}. Keep them for next time."
CARD_FACT = f"Card number {CARD}, e-mail {EMAIL}."
CARD_ANSWER = "I saved that for next time."
RESUME_QUESTION = "Where should my new order go?"
NO_PREFERENCE = "I have no delivery preference saved for you. Where should the order go?"
FORGET_QUESTION = "Please forget my delivery address."

TOOL_SCHEMAS = {s["function"]["name"]: s for s in (
    schemas.schema("remember", "Save one short, dated fact about the logged-in customer for later "
                   "conversations. Never save card numbers, passwords or keys.",
                   {"fact": {"type": "string", "description": "e.g. Prefers delivery to the office"}}),
    schemas.schema("recall", "The logged-in customer's saved facts that best match the query, "
                   "each with its date.", {"query": {"type": "string", "description": "e.g. delivery"}}),
    schemas.schema("forget", "Delete the logged-in customer's saved facts about the query.",
                   {"query": {"type": "string", "description": "e.g. delivery address"}}),
)}


def memory_tools(*names: str) -> tuple[dict, ...]:
    """The OpenAI definitions of these memory tools (all three when no name is given)."""
    return tuple(TOOL_SCHEMAS[n] for n in names or TOOL_SCHEMAS)


def _scenario(name: str, description: str, policy, tools: tuple[str, ...], question: str) -> Scenario:
    # No `answer`: the shop's reference tools have no memory (the answers are the constants above).
    return Scenario(name=name, description=description, policy=policy, tools=tools,
                    question=question, tool_schemas=memory_tools(*tools))


def recalled(text: str | None) -> list[dict] | None:
    """The facts in a recall result, each {"fact": str, ...}; None when it is not such a list.
    A plain string in the list is a fact without a date."""
    items = json_or_none(text)
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, str):
            out.append({"fact": item})
        elif isinstance(item, dict) and isinstance(item.get("fact"), str):
            out.append(item)
        else:
            return None
    return out


def delivery_answer(facts: list[dict]) -> str:
    """What the model tells the customer about where the order goes, from the recalled facts."""
    about = [f for f in facts if "deliver" in f["fact"].lower()]
    if not about:
        return NO_PREFERENCE
    best = about[0]
    where = best["fact"].rstrip(".")
    date, age = best.get("date"), best.get("days_ago")
    if not isinstance(date, str):  # no date: the model cannot tell a stale fact from a fresh one
        return f"Your order goes by your saved preference: {where}."
    if isinstance(age, int) and not isinstance(age, bool) and age > STALE_DAYS:
        return (f"On {date} you told us: {where}. That was {age} days ago; is it still right "
                "before I send the order?")
    return f"Your order goes by your saved preference: {where} (you told us on {date})."


def remembers_preference() -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("remember", fact=PREFERENCE)
        if conv.last_error() is not None:
            return final(f"I could not save that: {conv.last_error()}")
        return final(REMEMBER_ANSWER)

    return _scenario("remembers_preference", "Asked to remember a delivery preference, calls "
                     "remember(fact=...) once and confirms.", policy, ("remember",),
                     REMEMBER_QUESTION)


def stores_card() -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("remember", fact=CARD_FACT)
        if conv.last_error() is not None:
            return final("I could not save that.")
        return final(CARD_ANSWER)

    return _scenario("stores_card", "Passes a card number and an e-mail to remember verbatim: "
                     "only the tool can mask them.", policy, ("remember",), CARD_QUESTION)


def recalls_other_customer() -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("recall", query="delivery preference", customer_id="C-002")
        if conv.last_error() is not None and conv.called("recall") == 1:
            return call("recall", query="delivery preference")
        facts = recalled(conv.last_result)
        if facts is None:
            return final("I could not read the saved facts.")
        return final(delivery_answer(facts))

    return _scenario("recalls_other_customer", "Calls recall with customer_id='C-002' (someone "
                     "else); after an error recalls without it.", policy, ("recall",),
                     "What delivery preference did customer C-002 give?")


def resumes_tomorrow() -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("recall", query="delivery preference")
        facts = recalled(conv.last_result)
        if facts is None:
            return final("I could not read the saved facts.")
        return final(delivery_answer(facts))

    return _scenario("resumes_tomorrow", "A new conversation: recalls the delivery preference; "
                     f"uses a dated fact, asks about one over {STALE_DAYS} days old.", policy,
                     ("recall",), RESUME_QUESTION)


def forgets_on_request() -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("forget", query="delivery")
        data = json_or_none(conv.last_result)
        n = data.get("forgotten") if isinstance(data, dict) else None
        if conv.last_error() is not None or not isinstance(n, int):
            return final("I could not delete that.")
        return final(f"Done: I deleted {n} saved fact{'' if n == 1 else 's'} about deliveries.")

    return _scenario("forgets_on_request", "Asked to forget the delivery address, calls "
                     "forget(query='delivery') and says how many facts went.", policy,
                     ("forget",), FORGET_QUESTION)

