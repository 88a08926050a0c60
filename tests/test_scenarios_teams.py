"""The team scenarios of chapter 14 behave as their descriptions say, with a plain reference team loop."""

import json

import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import teams
from workbook.scenarios.teams import SOLO, TEAM, Desk

NEW = ("team_refund", "triage_refunds_itself", "handoff_other_customer", "handoff_ping_pong",
       "handoff_circle", "orchestrate_orders")


def start(agent, customer, text):
    return [{"role": "system", "content": f"{agent.instructions}\nThe logged-in customer is {customer}."},
            {"role": "user", "content": text}]


def reference_team(scenario, desk, first="triage", hops=6):
    """Hand off on any transfer call, refuse customer_id, run the agent's own tools; no other checks."""
    llm = FakeLLM(scenario)
    client, agent, path = llm.client(), TEAM[first], [first]
    messages = start(agent, desk.customer_id, scenario.question)
    for _ in range(12):
        tools = [teams.tool_schema(n) for n in agent.tools] + [teams.transfer_tool(TEAM[o]) for o in agent.handoffs]
        message = client.chat.completions.create(model="m", messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, path, llm
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            name = call.function.name
            if name.startswith("transfer_to_") and "customer_id" not in args:
                if len(path) > hops:
                    return None, path, llm
                agent = TEAM[name.removeprefix("transfer_to_")]
                path.append(agent.name)
                messages = start(agent, desk.customer_id, args["brief"])
                break
            if name.startswith("transfer_to_"):
                out = json.dumps({"error": "customer_id is not an argument"})
            elif name not in agent.tools:
                out = json.dumps({"error": f"unknown tool {name}"})
            else:
                try:
                    out = json.dumps(desk.tools()[name](**args))
                except Exception as e:
                    out = json.dumps({"error": str(e)})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": out})
    raise AssertionError("the reference team did not finish")


def test_registered_and_described():
    for name in NEW:
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.description
        assert sc.answer is None  # a team's answer needs a team loop, not the reference loop


def test_team_refund_goes_through_refunds():
    desk = Desk("C-001")
    answer, path, llm = reference_team(scenarios.team_refund(), desk)
    assert (answer, path) == (teams.REFUND_ANSWER, ["triage", "refunds"])
    assert desk.refunds == [{"order_id": "A-1002", "amount": 1290, "customer": "C-001"}]
    assert llm.requests[1]["messages"][1]["content"] == teams.REFUND_BRIEF


def test_one_agent_does_the_refund_alone():
    sc, desk = scenarios.team_refund(), Desk("C-001")
    llm = FakeLLM(sc)
    messages = start(SOLO, "C-001", sc.question)
    for _ in range(4):
        message = llm.client().chat.completions.create(model="m", messages=messages).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            out = desk.tools()[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(out)})
    assert message.content == teams.REFUND_ANSWER and len(desk.refunds) == 1


def test_triage_refunds_itself_asks_for_refund_first():
    desk = Desk("C-001")
    answer, path, llm = reference_team(scenarios.triage_refunds_itself(), desk)
    first = llm.requests[1]["messages"][2]["tool_calls"][0]["function"]
    assert first["name"] == "refund" and "error" in json.loads(llm.requests[1]["messages"][3]["content"])
    assert (answer, path, len(desk.refunds)) == (teams.REFUND_ANSWER, ["triage", "refunds"], 1)


@pytest.mark.parametrize("customer, refunded", [("C-001", []), ("C-002", [("B-2001", 1990)])])
def test_handoff_other_customer_passes_customer_id_then_retries(customer, refunded):
    desk = Desk(customer)
    answer, path, llm = reference_team(scenarios.handoff_other_customer(), desk)
    first = json.loads(llm.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"])
    assert first == {"brief": teams.FRIEND_BRIEF, "customer_id": "C-002"}
    assert path == ["triage", "refunds"]
    assert [(r["order_id"], r["amount"]) for r in desk.refunds] == refunded
    if customer == "C-001":
        assert answer == teams.FRIEND_ANSWER


@pytest.mark.parametrize("name, cycle", [("handoff_ping_pong", ["triage", "refunds"]),
                                         ("handoff_circle", ["triage", "orders", "refunds"])])
def test_handoffs_that_never_end(name, cycle):
    answer, path, _ = reference_team(scenarios.get(name), Desk("C-001"), hops=6)
    assert answer is None and path == (cycle * 7)[:7]


def test_orchestrator_asks_a_worker_per_order_and_combines():
    sc, desk = scenarios.orchestrate_orders(), Desk("C-001")
    llm = FakeLLM(sc)
    client = llm.client()
    messages = start(teams.ORCHESTRATOR, "C-001", sc.question)
    reply = client.chat.completions.create(model="m", messages=messages, tools=[teams.ask_tool(TEAM["orders"])])
    asks = reply.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments)["task"] for c in asks] == ["Status of order A-1001.",
                                                                         "Status of order A-1002."]
    messages.append(reply.choices[0].message.model_dump(exclude_none=True))
    for call in asks:
        task = json.loads(call.function.arguments)["task"]
        worker = start(TEAM["orders"], "C-001", task)
        got = client.chat.completions.create(model="m", messages=worker).choices[0].message
        (lookup,) = got.tool_calls
        worker += [got.model_dump(exclude_none=True),
                   {"role": "tool", "tool_call_id": lookup.id,
                    "content": json.dumps(desk.get_order(**json.loads(lookup.function.arguments)))}]
        answer = client.chat.completions.create(model="m", messages=worker).choices[0].message.content
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps({"answer": answer})})
    final = client.chat.completions.create(model="m", messages=messages).choices[0].message.content
    assert final == teams.STATUS_ANSWER
    messages[-1]["content"] = json.dumps({"error": "the orders worker stopped: STOPPED: step limit"})
    final = client.chat.completions.create(model="m", messages=messages).choices[0].message.content
    assert final.endswith("(One task failed: the orders worker stopped: STOPPED: step limit)")


def test_by_agent_plays_each_agent_its_script():
    sc = teams.by_agent(triage=scenarios.call("transfer_to_orders", brief="x"), orders=["first", "second"],
                        refunds=lambda conv: f"brief was {conv.question}")
    client = FakeLLM(sc).client()

    def reply(agent, extra=()):
        return client.chat.completions.create(model="m", messages=start(agent, "C-001", "hi") + list(extra)
                                              ).choices[0].message
    assert reply(TEAM["triage"]).tool_calls[0].function.name == "transfer_to_orders"
    assert reply(TEAM["orders"]).content == "first"
    assert reply(TEAM["orders"], [{"role": "assistant", "content": "first"},
                                  {"role": "user", "content": "and?"}]).content == "second"
    assert reply(TEAM["refunds"]).content == "brief was hi"
    assert reply(SOLO).content == "I cannot help."


def test_desk_refunds_only_the_customers_orders_within_their_total():
    desk = Desk("C-001")
    assert "refund" in desk.tools() and set(Desk().tools()) > set(TEAM["refunds"].tools)
    with pytest.raises(KeyError, match="B-2001"):
        desk.refund("B-2001", 100)
    for bad in (0, 2451, "2450"):
        with pytest.raises(ValueError, match="amount"):
            desk.refund("A-1001", bad)
    assert desk.refund("A-1001", 2450) == {"order_id": "A-1001", "refunded_kzt": 2450, "status": "refunded"}
    assert desk.refunds == [{"order_id": "A-1001", "amount": 2450, "customer": "C-001"}]


def test_tool_definitions():
    assert teams.tool_schema("refund")["function"]["parameters"]["required"] == ["order_id", "amount"]
    assert teams.tool_schema("get_order")["function"]["name"] == "get_order"
    with pytest.raises(ValueError, match="teleport"):
        teams.tool_schema("teleport")
    t = teams.transfer_tool(TEAM["refunds"])["function"]
    assert t["name"] == "transfer_to_refunds" and list(t["parameters"]["properties"]) == ["brief"]
    assert teams.ask_tool(TEAM["orders"])["function"]["name"] == "ask_orders"
    assert all(teams.agent_of(type("C", (), {"system": a.instructions})()) == a.name for a in TEAM.values())
