"""Named scripted model behaviours (scenarios), one small function each, listed in one catalogue.

    from workbook import scenarios
    scenarios.taxi_spending()          # a Scenario
    scenarios.get("two_orders")        # the same, by name
    scenarios.catalogue()              # [(name, description), ...]
    scenarios.scripted(reply, ...)     # a test's model: plays these replies in order

Modules by theme: errands (tasks a correct loop completes), recovery (mistakes an error message
fixes), limits (never stops, or no answer), permissions (asks for more than it may), faults (the
provider, not the task), capstone (the capstone's tasks), teams (a desk of agents handing off),
memory (remember, recall and forget across conversations), billing (a long policy for the prefix
cache, models to route between), context (a long task for a small window, a summariser for
compaction), evaluation (runs that vary with a seed, a judge with a position bias), workflows
(models for fixed workflows, chapter 12), routing (a router bound to a schema, chapter 12), react
(ReAct as text and a planner, chapter 13), attacks (a gullible model and poisoned material,
chapter 19), code_action (a model whose action is Python to run, chapter 25), russian and
russian_loop (the first errands, the knowledge-base questions and chapter 02's demo in Russian:
`get(name, lang="ru")`; `get(name, lang="notebook")` in a demo cell), scripted (a test's model:
fixed replies).
Shared pieces: base (Scenario), answers (answering from tool results), capstone_base.
The pieces come from `workbook.engine`.
"""

from __future__ import annotations

from workbook.engine.replies import (
    Call,
    Fault,
    Reply,
    Timeout,
    call,
    calls,
    final,
    rate_limit,
    server_error,
)
from workbook.engine.turns import Conversation
from workbook.i18n import current
from workbook.scenarios import (
    attacks,
    attacks_memory,
    billing,
    capstone,
    code_action,
    context,
    teams,
)
from workbook.scenarios.attacks import forged_confirmation, poisoned_fetch, poisoned_page
from workbook.scenarios.base import Scenario
from workbook.scenarios.capstone import capstone_lamps, capstone_payment, capstone_wander
from workbook.scenarios.errands import (
    Crash,
    refund_and_status,
    refund_then_check,
    taxi_spending,
    two_orders,
    two_refunds,
    weather_and_math,
)
from workbook.scenarios.evaluation import biased_judge, seeded_agent
from workbook.scenarios.faults import (
    chat_history,
    deepseek_thinking,
    flaky_server,
    long_chat_small_context,
    rate_limited,
    refund_with_timeout,
    slow_provider,
)
from workbook.scenarios.limits import (
    content_filtered,
    cut_off,
    goes_in_circles,
    never_finishes,
    repeat_forever,
    token_hog,
)
from workbook.scenarios.memory import (
    forgets_on_request,
    recalls_other_customer,
    remembers_preference,
    resumes_tomorrow,
    stores_card,
)
from workbook.scenarios.permissions import (
    asks_other_customer,
    huge_power,
    reads_outside_folder,
    wants_card_block,
)
from workbook.scenarios.react import (
    native_errand,
    plan_errand,
    react_errand,
    react_order,
    react_taxi,
)
from workbook.scenarios.recovery import (
    broken_json_then_fix,
    missing_order,
    text_tool_call,
    unknown_tool_then_recover,
    vague_vs_specific_error,
    wrong_field_then_fix,
)
from workbook.scenarios.routing import routing_desk
from workbook.scenarios.russian import (
    lamp_warranty_ru,
    opened_tea_ru,
    taxi_spending_ru,
    two_orders_ru,
)
from workbook.scenarios.russian_loop import (
    asks_other_customer_ru,
    never_finishes_ru,
    unknown_tool_then_recover_ru,
    vague_vs_specific_error_ru,
    wants_card_block_ru,
)
from workbook.scenarios.scripted import scripted
from workbook.scenarios.streaming import (
    StreamPlan,
    stream_cut,
    stream_incomplete,
    stream_overloaded,
    stream_stall,
    streamed,
    two_calls_streamed,
)
from workbook.scenarios.teams import (
    handoff_circle,
    handoff_other_customer,
    handoff_ping_pong,
    orchestrate_orders,
    team_refund,
    triage_refunds_itself,
)
from workbook.scenarios.workflows import by_prompt, support_desk

CATALOGUE = {f.__name__: f for f in (
    # errands
    taxi_spending, weather_and_math, two_orders, two_refunds, refund_and_status, refund_then_check,
    # recovery
    unknown_tool_then_recover, broken_json_then_fix, vague_vs_specific_error, text_tool_call,
    wrong_field_then_fix, missing_order,
    # limits
    repeat_forever, never_finishes, token_hog, goes_in_circles, cut_off, content_filtered,
    # permissions
    asks_other_customer, wants_card_block, reads_outside_folder, huge_power,
    # faults
    rate_limited, flaky_server, slow_provider, refund_with_timeout, deepseek_thinking,
    long_chat_small_context,
    # capstone
    capstone_lamps, capstone_payment, capstone_wander,
    # workflows
    support_desk, routing_desk,
    # teams
    team_refund, triage_refunds_itself, handoff_other_customer, handoff_ping_pong, handoff_circle,
    orchestrate_orders,
    # react (chapter 13)
    react_taxi, react_order, react_errand, native_errand, plan_errand,
    # memory (chapter 17)
    remembers_preference, stores_card, recalls_other_customer, resumes_tomorrow, forgets_on_request,
    # attacks (chapter 19)
    poisoned_page, poisoned_fetch, forged_confirmation,
    # evaluation (chapter 20)
    seeded_agent, biased_judge,
    # streaming (chapter 22)
    stream_cut, stream_overloaded, stream_stall, stream_incomplete, two_calls_streamed,
    # in Russian (the Russian edition; docs/TRANSLATING.md)
    taxi_spending_ru, two_orders_ru, opened_tea_ru, lamp_warranty_ru, asks_other_customer_ru,
    vague_vs_specific_error_ru, unknown_tool_then_recover_ru, wants_card_block_ru, never_finishes_ru,
)}
ENGLISH = "en"
NOTEBOOK = "notebook"  # get(name, lang="notebook"): the language the notebook is read in


def get(name: str, lang: str = ENGLISH, **options) -> Scenario:
    """The scenario with this name (options go to its function, e.g. recovers=True). With
    `lang="ru"`: its Russian twin, `<name>_ru` (a KeyError names the ones there are). With
    `lang="notebook"`: its twin in the language of the notebook this kernel runs (the edition's,
    `workbook.i18n.current()`), else the English one. That is for the chapters' demo cells, whose
    code is the same in every edition; a test never asks for it, so no score depends on it."""
    if lang == NOTEBOOK:
        lang = current()
        lang = lang if f"{name}_{lang}" in CATALOGUE else ENGLISH
    if lang != ENGLISH:
        twins = [n for n in CATALOGUE if n.endswith(f"_{lang}")]
        if f"{name}_{lang}" not in CATALOGUE:
            raise KeyError(f"no scenario {name!r} in language {lang!r:.20}; in that language: "
                           f"{', '.join(twins) or 'none'}")
        name = f"{name}_{lang}"
    try:
        factory = CATALOGUE[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(CATALOGUE)}") from None
    return factory(**options)


def catalogue() -> list[tuple[str, str]]:
    """(name, one-line description) for every scenario."""
    return [(name, factory().description) for name, factory in CATALOGUE.items()]


__all__ = ["CATALOGUE", "Call", "Conversation", "Crash", "Fault", "Reply", "Scenario", "Timeout",
           "attacks", "attacks_memory", "billing", "by_prompt", "call", "calls", "capstone", "catalogue", "code_action", "chat_history", "final",
           "context", "get",
           "rate_limit", "scripted", "server_error", "teams", "StreamPlan", "streamed", *CATALOGUE]
