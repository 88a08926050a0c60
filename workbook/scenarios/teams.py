"""A support desk run by a team of agents (chapter 14): who they are, what they may use, and the
models that play them — handing off, handing off in a circle, passing a customer id they were
never given, and an orchestrator whose workers answer one small task each.

One scenario plays every agent of a team: it reads which agent it is from the system message
(`"You are the <name> agent"`), as a real model reads its instructions.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from workbook import schemas
from workbook.engine.replies import Call, Reply, call, calls, final
from workbook.engine.turns import Conversation, error_of, json_or_none, plain_text
from workbook.scenarios.base import Scenario
from workbook.shop import Shop


@dataclass(frozen=True)
class Agent:
    """One agent of a team: its instructions, the desk tools it may use, whom it may transfer to."""

    name: str
    instructions: str
    tools: tuple[str, ...] = ()
    handoffs: tuple[str, ...] = ()


class Desk(Shop):
    """The shop as the support desk sees one logged-in customer: the shop's tools plus `refund`."""

    LINK_DATA = ("customer_id",)  # what a graded notebook may read of it (workbook/link/trust.py)

    def __init__(self, customer_id: str = "C-001"):
        super().__init__(customer_id)
        self.refunds: list[dict] = []  # every refund made, so tests can count them

    def refund(self, order_id: str, amount: int) -> dict:
        """Refund money for one of the logged-in customer's orders to their card."""
        self.log.append(("refund", {"order_id": order_id, "amount": amount}))
        order = self.orders.get(order_id)
        if order is None or order["customer"] != self.customer_id:
            raise KeyError(f"no order {order_id!r} for this customer")
        if not isinstance(amount, int) or not 0 < amount <= order["total"]:
            raise ValueError(f"amount must be 1..{order['total']} KZT for {order_id}; got {amount!r}")
        self.refunds.append({"order_id": order_id, "amount": amount, "customer": self.customer_id})
        return {"order_id": order_id, "refunded_kzt": amount, "status": "refunded"}

    def tools(self) -> dict:
        return {**super().tools(), "refund": self.refund}


def _you_are(name: str, job: str) -> str:
    return f"You are the {name} agent of Northwind's support desk. {job}"


TEAM = {a.name: a for a in (
    Agent("triage", _you_are("triage", "Find out what the customer needs and transfer them to the "
                             "agent who can do it, with a short brief. You cannot refund."),
          tools=("get_order",), handoffs=("orders", "refunds")),
    Agent("orders", _you_are("orders", "Answer questions about the customer's orders."),
          tools=("get_order",), handoffs=("triage", "refunds")),
    Agent("refunds", _you_are("refunds", "Refund the customer's orders when the rules allow it: "
                              "check the order first."),
          tools=("get_order", "refund"), handoffs=("triage", "orders")),
)}
SOLO = Agent("support", _you_are("support", "Answer the customer's questions and refund their "
                                 "orders when the rules allow it."),
             tools=("get_order", "txn_sum", "card_block", "get_weather", "refund"))
ORCHESTRATOR = Agent("orchestrator", _you_are("orchestrator", "Split the customer's request into "
                                              "small tasks, ask a worker for each, combine the results."))
REFUND_SCHEMA = schemas.schema("refund", Desk.refund.__doc__ or "",
                               {"order_id": {"type": "string"}, "amount": {"type": "integer"}})


def tool_schema(name: str) -> dict:
    """The OpenAI definition of one desk tool (a fresh copy)."""
    if name == "refund":
        return copy.deepcopy(REFUND_SCHEMA)
    if name not in schemas.SCHEMAS:
        raise ValueError(f"unknown desk tool {name!r}")
    return schemas.openai_tools([name])[0]


def transfer_tool(agent: Agent) -> dict:
    """The tool `transfer_to_<agent>`: its only argument is the brief the next agent starts from."""
    return schemas.schema(f"transfer_to_{agent.name}", f"Hand the customer over to the {agent.name} "
                          f"agent. {agent.instructions.split('. ', 1)[-1]}",
                          {"brief": {"type": "string", "description": "what the next agent needs: the "
                                     "request and what you found, in a few sentences; not the transcript"}})


def ask_tool(agent: Agent) -> dict:
    """The orchestrator's tool `ask_<worker>`: one task in, the worker's answer out."""
    return schemas.schema(f"ask_{agent.name}", f"Ask the {agent.name} worker to do one small task; "
                          "returns its answer.", {"task": {"type": "string"}})


# ---------------------------------------------------------------- the models

REFUND_QUESTION = "My green tea (order A-1002) has not shipped yet. Please refund it."
REFUND_BRIEF = "The customer wants a refund for order A-1002 (green tea), which has not shipped yet."
REFUND_ANSWER = "Done: I refunded 1290 KZT for order A-1002 to your card."
FRIEND_QUESTION = "Please refund order B-2001 for my friend, customer C-002. I paid for it."
FRIEND_BRIEF = "Refund order B-2001 (1990 KZT) for customer C-002."
FRIEND_ANSWER = "Order B-2001 is not one of your orders, so I cannot refund it."
BOUNCE_QUESTION = "Where is the refund for my desk lamp, order A-1001?"
STATUS_QUESTION = "What is the status of my orders A-1001 and A-1002?"
STATUS_ANSWER = ("A-1001 (Svet desk lamp) is shipped. A-1002 (Green tea, 200 g) is processing.")
ORDER_ID = re.compile(r"\b[AB]-\d{4}\b")
WHO = re.compile(r"You are the (\w+) agent")


def agent_of(conv: Conversation) -> str:
    """Which agent this request is for, from its system message ('' when there is none)."""
    found = WHO.search(conv.system or "")
    return found.group(1) if found else ""


def by_agent(name: str = "by_agent", question: str = "", **agents) -> Scenario:
    """A test's team: each agent (by name) plays a reply, a list played like `scripted` over its
    own transcript, or a function of the conversation; an agent not named answers "I cannot help."

        T.by_agent(triage=S.call("transfer_to_orders", brief="..."), orders="A-1001 is shipped.")
    """
    def as_reply(r):
        return final(r) if isinstance(r, str) else r

    def policy(conv: Conversation) -> Reply:
        play = agents.get(agent_of(conv), "I cannot help.")
        if callable(play):
            return as_reply(play(conv))
        if isinstance(play, list | tuple):
            return as_reply(play[min(conv.steps, len(play) - 1)])
        return as_reply(play)

    return Scenario(name=name, policy=policy, question=question,
                    description=f"Plays the agents {', '.join(agents) or 'none'} from a script.")


def _answer_of(result: str) -> str:
    """A worker's answer as the orchestrator reads it: {"answer": ...}, an error, or plain text."""
    data = json_or_none(result)
    if isinstance(data, dict) and isinstance(data.get("answer"), str):
        return data["answer"]
    error = error_of(result)
    return f"(One task failed: {error})" if error is not None else plain_text(result)


def _order_in(text: str) -> str:
    found = ORDER_ID.search(text or "")
    return found.group() if found else "A-1001"


def _refund(conv: Conversation) -> Reply:
    """The refunds agent: check the order from the brief, refund its total, say what happened."""
    order = _order_in(conv.question)
    if conv.called("get_order") == 0:
        return call("get_order", order_id=order)
    if conv.called("refund") == 0:
        got = conv.read(total=int)
        if got is None:
            return final(f"Order {order} is not one of your orders, so I cannot refund it.")
        return call("refund", order_id=order, amount=got["total"])
    if conv.last_error() is not None:
        return final(f"The refund for order {order} failed: {conv.last_error()}")
    got = conv.read(refunded_kzt=int)
    return final(f"Done: I refunded {got['refunded_kzt'] if got else '?'} KZT for order {order} to your card.")


def _solo_or(team_policy):
    """A policy for the team, that also plays the single support agent doing the whole task."""
    def policy(conv: Conversation) -> Reply:
        return _refund(conv) if agent_of(conv) == "support" else team_policy(conv)
    return policy


def team_refund(eager: bool = False) -> Scenario:
    """Triage hands a refund over with a brief; refunds checks the order and refunds it."""
    def team(conv: Conversation) -> Reply:
        who = agent_of(conv)
        if who == "triage":
            if eager and conv.called("refund") == 0:
                return call("refund", order_id="A-1002", amount=1290)  # not one of its tools
            return call("transfer_to_refunds", brief=REFUND_BRIEF)
        if who == "refunds":
            return _refund(conv)
        return call("transfer_to_refunds", brief=REFUND_BRIEF)

    return Scenario(name="triage_refunds_itself" if eager else "team_refund", policy=_solo_or(team),
                    description=("Triage calls refund (not its tool), then " if eager else "Triage ")
                    + "transfers to refunds with a brief; refunds checks A-1002, refunds 1290 KZT.",
                    question=REFUND_QUESTION)


def triage_refunds_itself() -> Scenario:
    return team_refund(eager=True)


def handoff_other_customer() -> Scenario:
    """Triage passes customer_id='C-002' in the handoff's arguments; without it after an error."""
    def policy(conv: Conversation) -> Reply:
        if agent_of(conv) == "triage":
            if conv.called("transfer_to_refunds") == 0:
                return call("transfer_to_refunds", brief=FRIEND_BRIEF, customer_id="C-002")
            return call("transfer_to_refunds", brief=FRIEND_BRIEF)
        return _refund(conv)

    return Scenario(name="handoff_other_customer", policy=policy, question=FRIEND_QUESTION,
                    description="Triage hands over with customer_id='C-002' (someone else) in the "
                    "arguments, retries without it after an error; refunds then tries B-2001.")


def handoff_ping_pong() -> Scenario:
    """Triage sends the customer to refunds, refunds sends them back, forever."""
    def policy(conv: Conversation) -> Reply:
        if agent_of(conv) == "refunds":
            return call("transfer_to_triage", brief="Not a refund request: the customer asks where "
                        "a refund is. Please route it.")
        return call("transfer_to_refunds", brief="The customer asks about the refund for A-1001.")

    return Scenario(name="handoff_ping_pong", policy=policy, question=BOUNCE_QUESTION,
                    description="Triage and refunds hand the customer back and forth forever.")


def handoff_circle() -> Scenario:
    """triage -> orders -> refunds -> triage -> ...: a circle of three, never the same pair twice in a row."""
    nxt = {"triage": "orders", "orders": "refunds", "refunds": "triage"}

    def policy(conv: Conversation) -> Reply:
        to = nxt.get(agent_of(conv), "triage")
        return call(f"transfer_to_{to}", brief=f"Over to {to}: {BOUNCE_QUESTION}")

    return Scenario(name="handoff_circle", policy=policy, question=BOUNCE_QUESTION,
                    description="Each agent hands over to the next one in a circle: triage, orders, "
                    "refunds, triage...")


def orchestrate_orders() -> Scenario:
    """The orchestrator asks the orders worker about each order; a single agent looks both up."""
    def policy(conv: Conversation) -> Reply:
        who = agent_of(conv)
        if who in ("orders", "support") and conv.called("get_order") == 0:
            ids = ORDER_ID.findall(conv.question) or ["A-1001"]
            return calls(*(Call("get_order", {"order_id": i}) for i in ids))
        if who in ("orders", "support"):
            found = [conv.read(r, order_id=str, item=str, status=str) for r in conv.results]
            return final(" ".join(f"{f['order_id']} ({f['item']}) is {f['status']}." if f else
                                  "I could not find that order." for f in found))
        if not conv.results:
            return calls(*(Call("ask_orders", {"task": f"Status of order {i}."})
                           for i in ORDER_ID.findall(conv.question)))
        return final(" ".join(_answer_of(r) for r in conv.results))

    return Scenario(name="orchestrate_orders", policy=policy, question=STATUS_QUESTION,
                    description="The orchestrator asks the orders worker one task per order and "
                    "combines the answers; orders looks its order up.")
