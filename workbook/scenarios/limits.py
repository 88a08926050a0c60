"""A model that never stops, or whose reply is not an answer: what only the loop's limits catch."""

from __future__ import annotations

from workbook.engine.replies import Call, Reply, call, final
from workbook.engine.turns import Conversation
from workbook.scenarios.answers import ORDER_QUESTION
from workbook.scenarios.base import Scenario

CUT_TEXT = "Your taxi spending in September 2026 was 5000 KZT over 2 rides, and compared with Aug"


def repeat_forever() -> Scenario:
    return Scenario(name="repeat_forever", tools=("get_order",), question=ORDER_QUESTION,
                    description="Asks for the same call, get_order(A-1001), at every step.",
                    policy=lambda conv: call("get_order", order_id="A-1001"))


def never_finishes() -> Scenario:
    def policy(conv):
        return call("search_kb", query=f"delivery times, attempt {conv.steps + 1}")

    return Scenario(name="never_finishes", policy=policy, tools=("search_kb",),
                    description="Keeps searching with new queries forever: only a step limit stops it.",
                    question="How long does delivery take?")


def goes_in_circles() -> Scenario:
    """Alternates two look-ups forever: each call comes back every other step, never twice in a row."""
    def policy(conv: Conversation) -> Reply:
        order = "A-1001" if conv.steps % 2 == 0 else "A-1002"
        return call("get_order", order_id=order)

    return Scenario(name="goes_in_circles", policy=policy, tools=("get_order",),
                    description="Alternates get_order(A-1001) and get_order(A-1002) forever: the same "
                    "call returns every other step.", question="Where are my orders A-1001 and A-1002?")


def token_hog(pages: int = 40) -> Scenario:
    def policy(conv):
        if conv.called("fetch_report") < pages:
            return Reply(calls=(Call("fetch_report", {"page": conv.called("fetch_report") + 1}),),
                         text="Reading the next page of the report before I answer.")
        return final(f"I read all {pages} pages of the report.")

    return Scenario(name="token_hog", policy=policy, tools=("fetch_report",),
                    description=f"Reads a long report page by page ({pages} pages): the prompt grows "
                    "every step.", answer=f"I read all {pages} pages of the report.",
                    question="Summarise my spending report.")


def cut_off(in_call: bool = False) -> Scenario:
    """The reply hits the token limit: finish_reason "length" (an answer, or a call, cut short)."""
    def policy(conv: Conversation) -> Reply:
        if in_call:  # the arguments stop mid-string: this call must not run
            return Reply(calls=(Call("txn_sum", '{"category": "taxi", "month": "2026-'),),
                         finish_reason="length")
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return final(CUT_TEXT, finish_reason="length")

    where = "a tool call's arguments are" if in_call else "after txn_sum, the answer is"
    return Scenario(name="cut_off", policy=policy, tools=("txn_sum",),
                    description=f"The reply hits the token limit: {where} cut short (finish_reason "
                    "'length').", question="How much did I spend on taxis in September, compared "
                    "with August?")


def content_filtered() -> Scenario:
    """The provider's filter stops the reply: finish_reason "content_filter", no usable text."""
    def policy(conv: Conversation) -> Reply:
        return Reply(text=None, finish_reason="content_filter")

    return Scenario(name="content_filtered", policy=policy, tools=("get_order",),
                    description="The provider's content filter stops the reply (finish_reason "
                    "'content_filter'): nothing to show the customer.",
                    question="My order A-1001 is late and I am furious. Where is it?")
