"""Scenarios about the provider rather than the task: faults, dialects, context windows."""

from __future__ import annotations

from workbook.engine.reading import brief
from workbook.engine.replies import Call, Reply, Timeout, call, final, rate_limit, server_error
from workbook.scenarios.answers import ORDER_QUESTION, TAXI_ANSWER, TAXI_QUESTION
from workbook.scenarios.base import Scenario
from workbook.scenarios.errands import taxi_spending


def rate_limited(failures: int = 2) -> Scenario:
    def policy(conv):
        if conv.steps == 0 and conv.attempt < failures:
            return rate_limit()
        return taxi_spending().policy(conv)

    return Scenario(name="rate_limited", policy=policy, tools=("txn_sum",), answer=TAXI_ANSWER,
                    description=f"The first {failures} attempts get 429 with retry-after; then the "
                    "taxi_spending conversation.", question=TAXI_QUESTION)


def flaky_server() -> Scenario:
    def policy(conv):
        if conv.steps == 0 and conv.attempt < 2:
            return server_error(500 if conv.attempt == 0 else 503)
        return taxi_spending().policy(conv)

    return Scenario(name="flaky_server", policy=policy, tools=("txn_sum",), answer=TAXI_ANSWER,
                    description="500, then 503, then the taxi_spending conversation.",
                    question=TAXI_QUESTION)


def slow_provider() -> Scenario:
    def policy(conv):
        return Timeout() if conv.attempt == 0 else taxi_spending().policy(conv)

    return Scenario(name="slow_provider", policy=policy, tools=("txn_sum",), answer=TAXI_ANSWER,
                    description="The first attempt of every step times out; a retry succeeds.",
                    question=TAXI_QUESTION)


REFUND_ANSWER = "Refund of 2450 KZT for order A-1001 is done."


def refund_with_timeout() -> Scenario:
    def policy(conv):
        if not conv.results or (conv.last_error() and conv.called("refund") < 3):
            return call("refund", order_id="A-1001", amount=2450)  # asks again after an error
        if conv.last_error():
            return final("I could not refund the order; a colleague will contact you.")
        return final(REFUND_ANSWER)

    return Scenario(name="refund_with_timeout", policy=policy, tools=("refund",), answer=REFUND_ANSWER,
                    description="Asks for a refund; after an error (the payment timed out) asks for "
                    "the same refund again.", question="Please refund my order A-1001 (2450 KZT).")


def deepseek_thinking() -> Scenario:
    def policy(conv):
        months = {"2026-09": "September", "2026-08": "August"}
        for month in months:
            if not any(month in r for r in conv.results):
                return Reply(calls=(Call("txn_sum", {"category": "taxi", "month": month}),),
                             thought=f"I need the taxi total for {months[month]} 2026.")
        sums = []
        for month, name in months.items():  # the latest result about each month
            result = next(r for r in reversed(conv.results) if month in r)
            got = conv.read(result, total_kzt=int)
            if got is None:
                return Reply(text=f"I could not read the taxi total for {name} 2026: txn_sum "
                             f"returned {brief(result)}", thought="A result I cannot read: say so.")
            sums.append(got["total_kzt"])
        return Reply(text=f"Taxi: {sums[0]} KZT in September 2026 vs {sums[1]} KZT in August 2026.",
                     thought="Both totals are known; compare them.")

    return Scenario(name="deepseek_thinking", policy=policy, tools=("txn_sum",),
                    description="Two tool steps with reasoning; in the deepseek dialect the "
                    "reasoning_content must be sent back.",
                    answer="Taxi: 5000 KZT in September 2026 vs 2500 KZT in August 2026.",
                    question="Did I spend more on taxis in September than in August?")


SIGNATURE = "— Northwind support"
SUPPORT_SYSTEM = f"You are Northwind support. Always end every answer with '{SIGNATURE}'."


ASK_ORDER = "Which order do you mean? Please give me its number."


def long_chat_small_context() -> Scenario:
    def policy(conv):
        signed = conv.system is not None and SIGNATURE in conv.system
        named = any("A-1001" in (t.content or "") for t in conv.turns if t.role == "user")
        text = "Your order A-1001 has shipped." if named else ASK_ORDER
        return final(text + (f" {SIGNATURE}" if signed else ""))

    return Scenario(name="long_chat_small_context", policy=policy, system=SUPPORT_SYSTEM,
                    description="Knows the order only while a user message naming it (A-1001) is in "
                    "its context; signs answers if the system prompt asks.",
                    answer=f"Your order A-1001 has shipped. {SIGNATURE}", question=ORDER_QUESTION)


def chat_history(exchanges: int = 80) -> list[dict]:
    """A long earlier chat (user/assistant pairs) to overflow a small context window."""
    out = []
    for i in range(exchanges):
        out += [{"role": "user", "content": f"Question {i + 1}: what are your delivery options to "
                 f"city number {i + 1}? Please list couriers, prices and times."},
                {"role": "assistant", "content": f"For city {i + 1} we deliver by courier in 2-4 days "
                 "for 1500 KZT, or by post in 5-9 days for 700 KZT."}]
    return out
