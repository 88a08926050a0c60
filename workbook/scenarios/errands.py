"""Errands a correct loop completes: one tool, tools in sequence, parallel calls, refunds.

`refund_then_check` is a three-tool errand whose model explains each call in a short "thought"
(the reply's text beside its tool call), so a trajectory log has something to show. With
`crash_on_step=N` the N-th model call never returns: the agent's process dies right there (the
policy raises `Crash`, which no `except Exception` catches), and a resumed run must carry on from
its checkpoint without repeating what was already done.
"""

from __future__ import annotations

from workbook.engine.replies import Call, Reply, call, calls, final
from workbook.engine.turns import Conversation, number
from workbook.scenarios.answers import TAXI_ANSWER, TAXI_QUESTION, report, taxi_answer
from workbook.scenarios.base import Scenario

REFUNDS_ANSWER = "Refunded 2450 KZT for order A-1001; refunded 1290 KZT for order A-1002."
MIXED_ANSWER = "Refunded 1290 KZT for order A-1002; order A-1001 (Svet desk lamp) is shipped."
REFUND_CHECK_QUESTION = ("My Svet lamp (order A-1001) arrived broken: please refund it. "
                         "And where is my tea, order A-1002?")
REFUND_CHECK_ANSWER = ("Refunded 2450 KZT for order A-1001; order A-1002 (Green tea, 200 g) "
                       "is processing.")


def taxi_spending() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return taxi_answer(conv)

    return Scenario(name="taxi_spending", policy=policy, tools=("txn_sum",), answer=TAXI_ANSWER,
                    description="One tool call (txn_sum), then an answer built from its result.",
                    question=TAXI_QUESTION)


def weather_and_math() -> Scenario:
    def policy(conv):
        if conv.called("get_weather") == 0:
            return call("get_weather", city="Almaty")
        if conv.called("calculate") == 0:
            w = conv.read(temp_c=float)
            if w is None:
                return final("I could not read the weather.")
            return call("calculate", expression=f"{w['temp_c']} * 9 / 5 + 32")
        weather = conv.read(conv.results[0], temp_c=float, sky=str)
        fahrenheit = number(conv.last_result)
        if weather is None or fahrenheit is None:
            return final("I could not convert the temperature.")
        return final(f"In Almaty it is {weather['temp_c']} °C ({fahrenheit:g} °F) and {weather['sky']}.")

    return Scenario(name="weather_and_math", policy=policy, tools=("get_weather", "calculate"),
                    description="Two tools in sequence: weather, then a calculation on it.",
                    answer="In Almaty it is 21 °C (69.8 °F) and sunny.",
                    question="What is the weather in Almaty, in Fahrenheit?")


def two_orders() -> Scenario:
    def policy(conv):
        if conv.called("get_order") == 0:
            return calls(Call("get_order", {"order_id": "A-1001"}),
                         Call("get_order", {"order_id": "A-1002"}),
                         thought="Two independent look-ups: ask for both at once.")
        return report(conv)

    return Scenario(name="two_orders", policy=policy, tools=("get_order",),
                    description="Parallel tool calls: two get_order calls in one reply.",
                    answer="Order A-1001 (Svet desk lamp) is shipped; order A-1002 (Green tea, 200 g) "
                    "is processing.", question="Where are my orders A-1001 and A-1002?")


def two_refunds() -> Scenario:
    def policy(conv):
        if conv.called("refund") == 0:
            return calls(Call("refund", {"order_id": "A-1001", "amount": 2450}),
                         Call("refund", {"order_id": "A-1002", "amount": 1290}),
                         thought="Two refunds: both change the customer's money.")
        return report(conv)

    return Scenario(name="two_refunds", policy=policy, tools=("refund",), answer=REFUNDS_ANSWER,
                    description="Two state-changing calls in one reply: refund A-1001, then A-1002.",
                    question="Please refund my orders A-1001 (2450 KZT) and A-1002 (1290 KZT).")


def refund_and_status() -> Scenario:
    def policy(conv):
        if conv.called("refund") == 0:
            return calls(Call("refund", {"order_id": "A-1002", "amount": 1290}),
                         Call("get_order", {"order_id": "A-1001"}),
                         thought="A refund and an unrelated look-up: ask for both at once.")
        return report(conv)

    return Scenario(name="refund_and_status", policy=policy, tools=("refund", "get_order"),
                    description="A write and a read in one reply: refund A-1002, look up A-1001.",
                    answer=MIXED_ANSWER,
                    question="Please refund order A-1002 (1290 KZT). And where is my order A-1001?")


class Crash(BaseException):
    """The agent's process died here (simulated): a power cut, not an error a loop should handle."""


def _result_of(conv: Conversation, name: str, order_id: str) -> str | None:
    """The result the loop sent back for the latest call `name(order_id=...)`, by tool_call_id."""
    asked = [c for t in conv.turns for c in t.tool_calls
             if c.name == name and (c.args() or {}).get("order_id") == order_id]
    return conv.result_for(asked[-1]) if asked else None


def refund_then_check(crash_on_step: int | None = None) -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if crash_on_step is not None and conv.steps + 1 == crash_on_step:
            raise Crash(f"the agent's process died during model call {crash_on_step} (simulated)")
        if conv.called("get_order") == 0:
            return Reply(calls=(Call("get_order", {"order_id": "A-1001"}),),
                         text="First I look up order A-1001 to see what it cost.")
        if conv.called("refund") == 0:
            order = conv.read(_result_of(conv, "get_order", "A-1001"), total=int)
            if order is None:
                return final("Sorry, I could not look up order A-1001, so I cannot refund it yet.")
            return Reply(calls=(Call("refund", {"order_id": "A-1001", "amount": order["total"]}),),
                         text=f"The lamp cost {order['total']} KZT: I refund that amount.")
        if conv.called("get_order") == 1:
            return Reply(calls=(Call("get_order", {"order_id": "A-1002"}),),
                         text="The refund is handled; now the status of order A-1002.")
        refund = conv.read(_result_of(conv, "refund", "A-1001"))
        amount = (conv.read(_result_of(conv, "refund", "A-1001"), amount=int) or {}).get("amount", 2450)
        first = ("Order A-1001 was not refunded" if refund is None else
                 f"Refunded {amount} KZT for order A-1001")
        tea = conv.read(_result_of(conv, "get_order", "A-1002"), status=str)
        second = ("I could not look up order A-1002" if tea is None else
                  f"order A-1002 ({tea.get('item', '?')}) is {tea['status']}")
        return final(f"{first}; {second}.")

    crash = f" The process dies during model call {crash_on_step}." if crash_on_step else ""
    return Scenario(name="refund_then_check", policy=policy, tools=("get_order", "refund"),
                    description="Looks up A-1001, refunds its total, checks A-1002; says why before "
                    "each call." + crash, answer=REFUND_CHECK_ANSWER, question=REFUND_CHECK_QUESTION)
