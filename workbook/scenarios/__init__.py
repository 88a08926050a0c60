"""Named scripted model behaviours (scenarios), one small function each, listed in one catalogue.

    from workbook import scenarios
    scenarios.taxi_spending()          # a Scenario
    scenarios.get("two_orders")        # the same, by name
    scenarios.catalogue()              # [(name, description), ...]
    scenarios.scripted(reply, ...)     # a test's model: plays these replies in order
"""

from __future__ import annotations

from workbook.scenarios.base import (
    Call,
    Conversation,
    Fault,
    Reply,
    Scenario,
    Timeout,
    call,
    calls,
    final,
    rate_limit,
    server_error,
)
from workbook.scenarios.capstone import (  # chapter 11
    capstone_lamps,
    capstone_payment,
    capstone_wander,
)
from workbook.scenarios.ch04_05 import (
    missing_order,
    refund_and_status,
    two_refunds,
    wrong_field_then_fix,
)
from workbook.scenarios.ch06_07 import (  # chapters 06-07
    content_filtered,
    cut_off,
    goes_in_circles,
    huge_power,
    reads_outside_folder,
)
from workbook.scenarios.ch08_09 import Crash as Crash  # chapters 08-09
from workbook.scenarios.ch08_09 import refund_then_check
from workbook.scenarios.core import (
    asks_other_customer,
    broken_json_then_fix,
    never_finishes,
    repeat_forever,
    taxi_spending,
    text_tool_call,
    token_hog,
    two_orders,
    unknown_tool_then_recover,
    vague_vs_specific_error,
    wants_card_block,
    weather_and_math,
)
from workbook.scenarios.faults import (
    chat_history,
    deepseek_thinking,
    flaky_server,
    long_chat_small_context,
    rate_limited,
    refund_with_timeout,
    slow_provider,
)
from workbook.scenarios.scripted import scripted

CATALOGUE = {f.__name__: f for f in (
    taxi_spending, weather_and_math, two_orders, unknown_tool_then_recover, broken_json_then_fix,
    vague_vs_specific_error, text_tool_call, repeat_forever, never_finishes, token_hog,
    asks_other_customer, wants_card_block, rate_limited, flaky_server, slow_provider,
    refund_with_timeout, deepseek_thinking, long_chat_small_context,
)}
CATALOGUE.update({f.__name__: f for f in (  # chapters 06-07
    cut_off, content_filtered, goes_in_circles, reads_outside_folder, huge_power)})
CATALOGUE.update({f.__name__: f for f in (  # chapters 04-05
    two_refunds, refund_and_status, wrong_field_then_fix, missing_order)})
CATALOGUE.update({f.__name__: f for f in (refund_then_check,)})  # chapters 08-09
CATALOGUE.update({f.__name__: f for f in (  # chapter 11
    capstone_lamps, capstone_payment, capstone_wander)})


def get(name: str, **options) -> Scenario:
    """The scenario with this name (options go to its function, e.g. recovers=True)."""
    try:
        factory = CATALOGUE[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(CATALOGUE)}") from None
    return factory(**options)


def catalogue() -> list[tuple[str, str]]:
    """(name, one-line description) for every scenario."""
    return [(name, factory().description) for name, factory in CATALOGUE.items()]


__all__ = ["CATALOGUE", "Call", "Conversation", "Fault", "Reply", "Scenario", "Timeout", "call",
           "calls", "catalogue", "chat_history", "final", "get", "rate_limit", "scripted", "server_error",
           *CATALOGUE]
