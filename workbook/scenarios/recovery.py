"""A model that makes a mistake and recovers only when the error it gets back says how.

Each teaches what an observation must say: the available tools, that the JSON was broken, the
expected format, the field's name, or simply that the look-up failed.
"""

from __future__ import annotations

from collections.abc import Callable

from workbook.engine.replies import Call, Reply, call, final
from workbook.engine.turns import Conversation
from workbook.scenarios.answers import (
    ORDER_ANSWER,
    ORDER_QUESTION,
    TAXI_ANSWER,
    one_order,
    taxi_answer,
)
from workbook.scenarios.base import Scenario

TEXT_CALL = '<tool_call>{"name": "get_order", "arguments": {"order_id": "A-1001"}}</tool_call>'
MISSING_ANSWER = "I could not find order A-1003 in your account. Could you check the order number?"


def unknown_tool_policy(sorry: str, answer: Callable[[Conversation], Reply]) -> Callable[[Conversation], Reply]:
    """unknown_tool_then_recover's steps, with its words (its Russian twin's too: russian_loop.py)."""
    def policy(conv):
        if not conv.results:
            return call("lookup_order", order_id="A-1001")
        if conv.called("get_order") == 0:
            if "get_order" in (conv.last_error() or ""):  # the error listed the real tools
                return call("get_order", order_id="A-1001")
            return final(sorry)
        return answer(conv)

    return policy


def vague_error_policy(month: str, sorry: str, answer: Callable[[Conversation], Reply]) -> Callable[[Conversation], Reply]:
    """vague_vs_specific_error's steps, with its words (its Russian twin's too: russian_loop.py)."""
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month=month)
        error = conv.last_error()
        if error is not None and conv.called("txn_sum") == 1:
            if "YYYY-MM" in error:  # only a specific message tells the model how to fix its call
                return call("txn_sum", category="taxi", month="2026-09")
            return final(sorry)
        return answer(conv)

    return policy


def unknown_tool_then_recover() -> Scenario:
    policy = unknown_tool_policy("I cannot look up orders right now.", one_order)
    return Scenario(name="unknown_tool_then_recover", policy=policy, tools=("get_order",),
                    description="Calls a tool that does not exist; recovers only if the error lists "
                    "the available tools.", answer=ORDER_ANSWER, question=ORDER_QUESTION)


def broken_json_then_fix() -> Scenario:
    def policy(conv):
        if not conv.results:
            return Reply(calls=(Call("get_order", '{"order_id": "A-1001"'),))
        if len(conv.results) == 1:
            if "json" in (conv.last_error() or "").lower():
                return call("get_order", order_id="A-1001")
            return final("I could not look up the order.")
        return one_order(conv)

    return Scenario(name="broken_json_then_fix", policy=policy, tools=("get_order",),
                    description="Sends arguments that are not valid JSON; fixes them after an error "
                    "that says so.", answer=ORDER_ANSWER, question=ORDER_QUESTION)


def vague_vs_specific_error() -> Scenario:
    policy = vague_error_policy("September 2026", "Sorry, something went wrong and I could not get your spending.",
                                taxi_answer)
    return Scenario(name="vague_vs_specific_error", policy=policy, tools=("txn_sum",),
                    description="Sends a badly formatted month; retries only when the error says the "
                    "expected format (YYYY-MM).", answer=TAXI_ANSWER,
                    question="How much did I spend on taxis in September 2026?")


def text_tool_call(recovers: bool = False) -> Scenario:
    def policy(conv):
        if conv.results:
            return one_order(conv)
        if recovers and conv.user_turns_after_assistant() > 0:  # it was asked to call properly
            return call("get_order", order_id="A-1001")
        return final(TEXT_CALL)

    return Scenario(name="text_tool_call", policy=policy, tools=("get_order",),
                    description="A small local model writes the tool call as text in `content` "
                    "instead of `tool_calls`" + (" (recovers when asked)." if recovers else
                                                 " and never learns."),
                    answer=ORDER_ANSWER if recovers else None, question=ORDER_QUESTION)


def wrong_field_then_fix() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("get_order", id="A-1001")  # the schema says order_id
        error = conv.last_error()
        if error is not None and conv.called("get_order") == 1:
            if "order_id" in error or "'id'" in error:  # the error named the field: fix the call
                return call("get_order", order_id="A-1001")
            return final("Sorry, I could not look up your order.")
        return one_order(conv)

    return Scenario(name="wrong_field_then_fix", policy=policy, tools=("get_order",),
                    description="Sends get_order(id=...) instead of order_id; fixes the call only "
                    "when the error names the field.", answer=ORDER_ANSWER, question=ORDER_QUESTION)


def missing_order() -> Scenario:
    def policy(conv):
        if not conv.results:
            return call("get_order", order_id="A-1003")
        if conv.last_error() is not None:
            return final(MISSING_ANSWER)
        got = conv.read(status=str)
        if got is not None:
            return final(f"Order A-1003 ({got.get('item', '?')}) is {got['status']}.")
        # Nobody said the look-up failed, so the model fills the gap with a plausible guess.
        return final("Order A-1003 is on its way and should arrive in 2-3 days.")

    return Scenario(name="missing_order", policy=policy, tools=("get_order",),
                    description="Asks for an order that does not exist; answers honestly only when "
                    "the error reaches it, else it guesses.", answer=MISSING_ANSWER,
                    question="Where is my order A-1003?")
