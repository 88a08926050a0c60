"""Scenarios of chapters 08 (retries and idempotency) and 09 (trajectories, checkpoints, approval).

`refund_then_check` is a three-tool errand whose model explains each call in a short "thought"
(the reply's text beside its tool call), so a trajectory log has something to show. With
`crash_on_step=N` the N-th model call never returns: the agent's process dies right there (the
policy raises `Crash`, which no `except Exception` catches), and a resumed run must carry on from
its checkpoint without repeating what was already done.
"""

from __future__ import annotations

import json

from workbook.scenarios.base import Call, Conversation, Reply, Scenario, final

QUESTION = ("My Svet lamp (order A-1001) arrived broken: please refund it. "
            "And where is my tea, order A-1002?")
REFUND_CHECK_ANSWER = ("Refunded 2450 KZT for order A-1001; order A-1002 (Green tea, 200 g) "
                       "is processing.")


class Crash(BaseException):
    """The agent's process died here (simulated): a power cut, not an error a loop should handle."""


def _json(text: str | None):
    try:
        return json.loads(text or "")
    except ValueError:
        return None


def _result_of(conv: Conversation, name: str, order_id: str):
    """The result the loop sent back for the latest call `name(order_id=...)`, by tool_call_id."""
    ids = [c.id for t in conv.turns for c in t.tool_calls
           if c.name == name and (_json(c.arguments) or {}).get("order_id") == order_id]
    by_id = {t.tool_call_id: t.content for t in conv.turns if t.role == "tool"}
    return _json(by_id.get(ids[-1])) if ids else None


def _failed(result) -> bool:
    return not isinstance(result, dict) or "error" in result


def refund_then_check(crash_on_step: int | None = None) -> Scenario:
    def policy(conv: Conversation) -> Reply:
        if crash_on_step is not None and conv.steps + 1 == crash_on_step:
            raise Crash(f"the agent's process died during model call {crash_on_step} (simulated)")
        if conv.called("get_order") == 0:
            return Reply(calls=(Call("get_order", {"order_id": "A-1001"}),),
                         text="First I look up order A-1001 to see what it cost.")
        if conv.called("refund") == 0:
            order = _result_of(conv, "get_order", "A-1001")
            if _failed(order) or "total" not in order:
                return final("Sorry, I could not look up order A-1001, so I cannot refund it yet.")
            return Reply(calls=(Call("refund", {"order_id": "A-1001", "amount": order["total"]}),),
                         text=f"The lamp cost {order['total']} KZT: I refund that amount.")
        if conv.called("get_order") == 1:
            return Reply(calls=(Call("get_order", {"order_id": "A-1002"}),),
                         text="The refund is handled; now the status of order A-1002.")
        refund = _result_of(conv, "refund", "A-1001")
        first = ("Order A-1001 was not refunded" if _failed(refund) else
                 f"Refunded {refund.get('amount', 2450)} KZT for order A-1001")
        tea = _result_of(conv, "get_order", "A-1002")
        second = ("I could not look up order A-1002" if _failed(tea) or "status" not in tea else
                  f"order A-1002 ({tea.get('item', '?')}) is {tea['status']}")
        return final(f"{first}; {second}.")

    crash = f" The process dies during model call {crash_on_step}." if crash_on_step else ""
    return Scenario("refund_then_check", "Looks up A-1001, refunds its total, checks A-1002; says "
                    "why before each call." + crash, policy, ("get_order", "refund"),
                    REFUND_CHECK_ANSWER, QUESTION)
