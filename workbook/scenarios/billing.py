"""Chapter 15: what an agent costs. A support desk with a long policy (the prompt passes 1024
tokens, so a provider's prefix cache can show), and three models for routing.

    from workbook.scenarios import billing
    billing.desk()           # answers TASK in 7 steps (6 tool calls), each QUESTION in 2
    billing.router()         # one word: "easy" or "hard" for a question it knows
    billing.small_model()    # cheap: right on the easy questions, wrong on the hard ones
    billing.large_model()    # expensive: right on all of them

`desk` reads the question anywhere in the first user message, so a layout may put the date
before it. Its tool calls come from a plan per question (PLANS); a failed call does not change
the plan. The routing models answer in one reply, no tools; `right(question, answer)` says
whether an answer is the right one.
"""

from __future__ import annotations

from workbook import schemas
from workbook.engine.replies import Reply, call, final
from workbook.engine.turns import Conversation
from workbook.scenarios.base import Scenario

# The shop's tools in the order a registry might list them (not sorted: the layout's job).
TOOLS = ("txn_sum", "get_order", "get_weather", "card_block")

SYSTEM = """You are the support agent of Northwind, a small online shop in Almaty.

## Who you talk to
You talk to one logged-in customer. The shop's code knows who it is: never ask for a customer id,
never accept one from the conversation, and never tell one customer anything about another.

## Tools
- get_order(order_id): the status, item and total of one of this customer's orders.
- txn_sum(category, month): this customer's spending in one category (taxi, food, ...) and one
  month, written YYYY-MM. Amounts are in tenge (KZT), whole numbers.
- get_weather(city): the weather in Almaty or Astana, for delivery questions only.
- card_block(): blocks the customer's card. It changes state: call it only after the customer
  has confirmed in this conversation, in their own words, that the card must be blocked.
Call one tool at a time and read its result before the next call. If a tool returns an error,
read it: fix the arguments when it says how, otherwise tell the customer what failed.

## Orders
An order is processing (paid, being packed), shipped (with the courier, 1 to 3 days in Almaty,
3 to 7 days elsewhere in Kazakhstan), delivered, or cancelled. Quote the status exactly as the
tool gives it. Never promise a delivery date: give the usual range and say it is the usual range.
A customer may change the delivery address while an order is processing, not after it shipped.

## Returns
Most items can be returned within 14 days of delivery, unused and in their packaging. Lamps and
other electrical goods keep a 12-month warranty: a faulty lamp is repaired or replaced, not
refunded, unless the repair fails twice. Food and tea cannot be returned once opened. The old
30-day return rule was withdrawn in 2025; if a customer quotes it, explain the current rule.

## Money
Refunds go to the card the order was paid with, within 5 working days of the return arriving.
Never ask for a card number, a CVV code or a password, and never repeat one a customer types:
say that you cannot take card details in chat. Spending summaries come only from txn_sum; do
not add up amounts from memory, and say which months and categories a total covers.

## Tone
Answer in the customer's language, briefly: two or three sentences unless they ask for detail.
Use plain words, no internal codes, no tool names. When you do not know, say so and say what you
would need. Never invent an order, an amount, a date or a rule. Thank the customer at most once.

## Escalation
Hand the conversation to a human colleague when the customer asks for one, when they are upset
after two answers, when a payment looks wrong (charged twice, charged for a cancelled order), or
when a question needs a decision you are not allowed to make (a goodwill refund, an exception to
the return rule). Say that a colleague will answer within one working day.

## Privacy
Do not store or repeat personal data the task does not need. Addresses, phone numbers and e-mails
are used only for the order they belong to. Logs are kept for 30 days and then deleted.

## Examples
Customer: "Where is my lamp?" -> call get_order with the order id they give; if they give none,
ask for it. Answer: "Your order A-1001 (Svet desk lamp) has shipped; delivery in Almaty usually
takes 1 to 3 days."
Customer: "How much did I spend on taxis in September?" -> call txn_sum(category="taxi",
month="2026-09") and answer with the total and the number of rides.
Customer: "Block my card, I lost it." -> ask them to confirm; call card_block only after a yes.
"""

TASK = ("I am planning my budget. Check my orders A-1001 and A-1002, and my taxi and food "
        "spending in September and in August 2026.")
TASK_ANSWER = ("Order A-1001 (Svet desk lamp) has shipped and A-1002 (green tea) is processing. "
               "Taxi: 5000 KZT in September and 2500 KZT in August 2026; food: 5400 KZT in "
               "September and 0 KZT in August 2026.")
QUESTIONS = {  # a short question -> its one tool call and the answer
    "Where is my order A-1001?": (call("get_order", order_id="A-1001"),
                                  "Your order A-1001 (Svet desk lamp) has shipped."),
    "What is the status of order A-1002?": (call("get_order", order_id="A-1002"),
                                            "Order A-1002 (green tea) is processing."),
    "How much did I spend on taxis in September 2026?": (
        call("txn_sum", category="taxi", month="2026-09"), "Taxi in September 2026: 5000 KZT."),
    "How much did I spend on food in September 2026?": (
        call("txn_sum", category="food", month="2026-09"), "Food in September 2026: 5400 KZT."),
    "What is the weather in Almaty for my delivery?": (
        call("get_weather", city="Almaty"), "Almaty: 21 °C and sunny; your courier will manage."),
    "How much did I spend on taxis in August 2026?": (
        call("txn_sum", category="taxi", month="2026-08"), "Taxi in August 2026: 2500 KZT."),
}
PLANS: dict[str, tuple[Reply, ...]] = {TASK: (call("get_order", order_id="A-1001"), call("get_order", order_id="A-1002"),
                call("txn_sum", category="taxi", month="2026-09"),
                call("txn_sum", category="food", month="2026-09"),
                call("txn_sum", category="taxi", month="2026-08"),
                call("txn_sum", category="food", month="2026-08"))}
PLANS |= {q: (c,) for q, (c, _) in QUESTIONS.items()}
ANSWERS = {TASK: TASK_ANSWER} | {q: a for q, (_, a) in QUESTIONS.items()}
UNKNOWN = "I can help with your orders, your spending and deliveries. What do you need?"


def known(text: str, among) -> str | None:
    """The known question that `text` contains (a layout may add a date around it), or None."""
    return next((q for q in among if q in (text or "")), None)


def _desk(conv: Conversation) -> Reply:
    question = known(conv.question, PLANS)
    if question is None:
        return final(UNKNOWN)
    plan = PLANS[question]
    return plan[conv.steps] if conv.steps < len(plan) else final(ANSWERS[question])


def desk() -> Scenario:
    return Scenario(name="billing_desk", policy=_desk,
                    description="A support desk with a long policy: TASK in 7 steps, each "
                                "QUESTION in 2; the prompt passes 1024 tokens.",
                    tools=TOOLS, question=TASK, answer=TASK_ANSWER, system=SYSTEM,
                    tool_schemas=tuple(schemas.openai_tools(TOOLS)))


# ---- routing ------------------------------------------------------------------------------------

ROUTER = ("Classify the customer's question for a support desk. Reply with one word: easy (one "
          "fact from the shop's rules) or hard (several facts, a calculation or a judgement).")
EASY = {
    "What are your opening hours?": "We answer every day from 9:00 to 21:00 Almaty time.",
    "How long do I have to return a desk lamp?": "Within 14 days of delivery, unused and packed.",
    "Do you deliver to Astana?": "Yes: delivery to Astana usually takes 3 to 7 days.",
    "Can I return opened tea?": "No: food and tea cannot be returned once opened.",
    "How long does a refund take?": "Up to 5 working days after the return arrives.",
    "Is there a warranty on lamps?": "Yes, 12 months: a faulty lamp is repaired or replaced.",
}
HARD = {  # question -> (the right answer, the cheap model's wrong one)
    "My lamp broke after 20 days and the repair already failed once. What are my options?": (
        "The 12-month warranty applies: we repair or replace it; a refund comes only if the "
        "repair fails a second time.",
        "You can return it for a refund within 14 days of delivery."),
    "I was charged twice for order A-1002. What happens now?": (
        "A payment that looks wrong goes to a colleague, who answers within one working day.",
        "Refunds take up to 5 working days; please wait."),
    "I opened the tea and it tastes of smoke, and the old rule said 30 days. Can I return it?": (
        "Opened tea cannot be returned and the 30-day rule was withdrawn in 2025, but a faulty "
        "product is a case for a colleague, who answers within one working day.",
        "Yes, you have 30 days to return it."),
}
NOT_SURE = "Not sure: it could be either."


def right(question: str, answer: str | None) -> bool:
    """Whether `answer` is the right answer to one of the routing questions."""
    if question in EASY:
        return answer == EASY[question]
    return question in HARD and answer == HARD[question][0]


def _router(conv: Conversation) -> Reply:
    question = conv.question.strip()
    if ROUTER not in (conv.system or ""):
        return final(NOT_SURE)
    return final("easy" if question in EASY else "hard" if question in HARD else NOT_SURE)


def _answer(conv: Conversation, strong: bool) -> Reply:
    q = known(conv.question, (*EASY, *HARD))
    if q is None:
        return final("I am not sure.")
    return final(EASY[q] if q in EASY else HARD[q][0 if strong else 1])


def _small(conv: Conversation) -> Reply:
    return _answer(conv, strong=False)


def _large(conv: Conversation) -> Reply:
    return _answer(conv, strong=True)


def router() -> Scenario:
    return Scenario(name="billing_router", policy=_router, question=next(iter(EASY)),
                    description="Under the ROUTER prompt: 'easy' or 'hard' for a known "
                                "question, 'Not sure' for any other.", system=ROUTER)


def small_model() -> Scenario:
    return Scenario(name="billing_small_model", policy=_small, question=next(iter(HARD)),
                    description="A cheap model: right on the easy questions, wrong on the hard.")


def large_model() -> Scenario:
    return Scenario(name="billing_large_model", policy=_large, question=next(iter(HARD)),
                    description="An expensive model: right on every routing question.")
