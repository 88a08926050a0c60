"""The trace reader reads a Responses API conversation (items) as it reads messages."""

from __future__ import annotations

import json

from workbook import trace
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop


def items_of_a_run() -> list:
    llm = FakeLLM("two_orders")
    client, impl = llm.client(), Shop("C-001").tools()
    tools = [{"type": "function", **t["function"]} for t in llm.scenario.openai_tools()]
    context: list = [{"role": "user", "content": llm.scenario.question}]
    for _ in range(3):
        r = client.responses.create(model="m", input=context, tools=tools, store=False)
        context += r.output  # SDK objects, as seed 003 keeps them
        calls = [o for o in r.output if o.type == "function_call"]
        if not calls:
            return context
        context += [{"type": "function_call_output", "call_id": c.call_id,
                     "output": json.dumps(impl[c.name](**json.loads(c.arguments)))} for c in calls]
    raise AssertionError("two_orders did not finish")


def test_a_responses_conversation_reads_as_steps():
    traj = trace.from_messages(items_of_a_run())
    assert traj.problems == []
    assert len(traj.steps) == 2 and traj.summary.status == "done"
    first = traj.steps[0]
    assert first.tool == "get_order" and first.input == {"order_id": "A-1001"}
    assert "shipped" in first.result_preview and len(first.more_calls) == 1
    assert "A-1002" in traj.summary.answer
    assert "get_order" in trace.plain(traj)


def test_broken_items_are_a_problem_not_a_crash():
    traj = trace.from_messages([{"role": "user", "content": "q"}, {"type": "function_call", "name": "f"}])
    assert traj.problems and "could not be read as a Responses conversation" in traj.problems[0]


def test_the_viewer_steps_through_a_responses_conversation():
    v = trace.viewer(items_of_a_run())
    assert "Step 1 of 2" in v.counter.value and v.prev.disabled and not v.next.disabled
    assert v.detail.value.count("get_order(") == 2 and "shipped" in v.detail.value
    assert "Where are my orders A-1001 and A-1002?" in v.messages.value
    v.next.click()
    assert "Step 2 of 2" in v.counter.value and v.next.disabled
    assert "Status:</b> done" in v.detail.value and "A-1002" in v.detail.value
