"""Scenarios about the provider rather than the task: faults, dialects, context windows."""

from __future__ import annotations

import json

from workbook.scenarios.base import (
    Call,
    Reply,
    Scenario,
    Timeout,
    call,
    final,
    rate_limit,
    server_error,
)
from workbook.scenarios.core import ORDER_QUESTION, TAXI_ANSWER, taxi_spending


def rate_limited(failures: int = 2) -> Scenario:
    def policy(conv):
        if conv.steps == 0 and conv.attempt < failures:
            return rate_limit()
        return taxi_spending().policy(conv)

    return Scenario("rate_limited", f"The first {failures} attempts get 429 with retry-after; then the "
                    "taxi_spending conversation.", policy, ("txn_sum",), TAXI_ANSWER,
                    "How much did I spend on taxis in September?")


def flaky_server() -> Scenario:
    def policy(conv):
        if conv.steps == 0 and conv.attempt < 2:
            return server_error(500 if conv.attempt == 0 else 503)
        return taxi_spending().policy(conv)

    return Scenario("flaky_server", "500, then 503, then the taxi_spending conversation.", policy,
                    ("txn_sum",), TAXI_ANSWER, "How much did I spend on taxis in September?")


def slow_provider() -> Scenario:
    def policy(conv):
        return Timeout() if conv.attempt == 0 else taxi_spending().policy(conv)

    return Scenario("slow_provider", "The first attempt of every step times out; a retry succeeds.",
                    policy, ("txn_sum",), TAXI_ANSWER, "How much did I spend on taxis in September?")


REFUND_ANSWER = "Refund of 2450 KZT for order A-1001 is done."


def refund_with_timeout() -> Scenario:
    def policy(conv):
        if not conv.results or (conv.last_error() and conv.called("refund") < 3):
            return call("refund", order_id="A-1001", amount=2450)  # asks again after an error
        if conv.last_error():
            return final("I could not refund the order; a colleague will contact you.")
        return final(REFUND_ANSWER)

    return Scenario("refund_with_timeout", "Asks for a refund; after an error (the payment timed out) "
                    "asks for the same refund again.", policy, ("refund",), REFUND_ANSWER,
                    "Please refund my order A-1001 (2450 KZT).")


def deepseek_thinking() -> Scenario:
    def policy(conv):
        months = {"2026-09": "September", "2026-08": "August"}
        for month in months:
            if not any(month in r for r in conv.results):
                return Reply(calls=(Call("txn_sum", {"category": "taxi", "month": month}),),
                             thought=f"I need the taxi total for {months[month]} 2026.")
        sums = [json.loads(r)["total_kzt"] for r in conv.results[-2:]]
        return Reply(text=f"Taxi: {sums[0]} KZT in September 2026 vs {sums[1]} KZT in August 2026.",
                     thought="Both totals are known; compare them.")

    return Scenario("deepseek_thinking", "Two tool steps with reasoning; in the deepseek dialect the "
                    "reasoning_content must be sent back.", policy, ("txn_sum",),
                    "Taxi: 5000 KZT in September 2026 vs 2500 KZT in August 2026.",
                    "Did I spend more on taxis in September than in August?")


SIGNATURE = "— Northwind support"
SUPPORT_SYSTEM = f"You are Northwind support. Always end every answer with '{SIGNATURE}'."


ASK_ORDER = "Which order do you mean? Please give me its number."


def long_chat_small_context() -> Scenario:
    def policy(conv):
        signed = conv.system is not None and SIGNATURE in conv.system
        named = any("A-1001" in (t.content or "") for t in conv.turns if t.role == "user")
        text = "Your order A-1001 has shipped." if named else ASK_ORDER
        return final(text + (f" {SIGNATURE}" if signed else ""))

    return Scenario("long_chat_small_context", "Knows the order only while a user message naming it "
                    "(A-1001) is in its context; signs answers if the system prompt asks.", policy, (),
                    f"Your order A-1001 has shipped. {SIGNATURE}", ORDER_QUESTION, SUPPORT_SYSTEM)


def chat_history(exchanges: int = 80) -> list[dict]:
    """A long earlier chat (user/assistant pairs) to overflow a small context window."""
    out = []
    for i in range(exchanges):
        out += [{"role": "user", "content": f"Question {i + 1}: what are your delivery options to "
                 f"city number {i + 1}? Please list couriers, prices and times."},
                {"role": "assistant", "content": f"For city {i + 1} we deliver by courier in 2-4 days "
                 "for 1500 KZT, or by post in 5-9 days for 700 KZT."}]
    return out
