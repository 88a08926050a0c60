"""Chapter 12's router with structured output: forced to call `route`, it names a listed class.

    scenarios.routing_desk()             # support_desk, plus the forced `route` tool call
    scenarios.routing_desk(missing=1)    # the same draft writer and reviewer as support_desk

When the request offers a tool named `route` (chapter 12 sends it with a strict JSON schema whose
`class` is an enum of the desks plus "other", and tool_choice forcing it), the reply is one call
`route({"class": ...})` naming a class the system prompt lists, or "other". It stands for a
provider that enforces the schema: the URGENT message that makes support_desk's free-text router
invent `urgent_refunds` becomes `refunds` here, and a message no desk fits becomes `other`. Every
other request is support_desk's (extract, write, review, plan, work, combine).
"""

from __future__ import annotations

from workbook.engine.replies import Call, Fault, Reply, Timeout, calls
from workbook.engine.turns import Conversation
from workbook.scenarios.base import Scenario
from workbook.scenarios.workflows import INTENTS, support_desk

ROUTE_TOOL = "route"


def routed_class(conv: Conversation) -> str:
    """The class a schema-bound classifier picks: the first listed intent the message points at."""
    message = next((t.content or "" for t in reversed(conv.turns) if t.role == "user"), "").lower()
    listed = (conv.system or "").lower()
    return next((intent for intent, words in INTENTS
                 if intent in listed and any(w in message for w in words)), "other")


def routing_desk(missing: int = 2, picky: bool = False) -> Scenario:
    desk = support_desk(missing=missing, picky=picky)

    def policy(conv: Conversation) -> Reply | Fault | Timeout:
        if ROUTE_TOOL in conv.tools:
            return calls(Call(ROUTE_TOOL, {"class": routed_class(conv)}))
        return desk.policy(conv)

    return Scenario(name="routing_desk", policy=policy, question=desk.question,
                    description="support_desk with structured routing: offered the `route` tool, it "
                    "calls route with a listed class or 'other', never an invented one.")
