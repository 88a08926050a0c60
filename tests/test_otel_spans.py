"""workbook.trace.spans and genai: spans as plain data, the span tree, a trajectory to spans and back."""

from __future__ import annotations

import json

import pytest

from workbook import trace
from workbook.trace import genai, spans

TRACE, PARENT = "ab" * 16, "cd" * 8


@pytest.mark.parametrize("name", trace.samples())
def test_a_trajectory_goes_to_spans_and_back_unchanged(name):
    traj = trace.sample(name)
    back = spans.to_trajectory(spans.from_trajectory(traj, content=True))
    assert back.steps and len(back.steps) == len(traj.steps)
    for want, got in zip(traj.steps, back.steps, strict=True):
        for key in ("step", "thought", "tool", "input", "result_preview", "tokens_in", "tokens_out",
                    "ms", "messages", "more_calls"):
            assert getattr(got, key) == getattr(want, key), (name, want.step, key)
    for key in ("status", "steps", "tokens_in", "tokens_out", "total_tokens", "answer"):
        assert getattr(back.summary, key) == getattr(traj.summary, key), (name, key)
    assert back.problems == []


@pytest.mark.parametrize("name", trace.samples())
def test_without_content_no_text_is_copied_and_the_rest_is(name):
    traj = trace.sample(name)
    found = spans.from_trajectory(traj)
    assert not [k for s in found for k in s["attributes"] if k in genai.CONTENT]
    back = spans.to_trajectory(found)
    assert [s.thought for s in back.steps] == [None] * len(traj.steps)
    assert [(s.tool, s.tokens_in, s.tokens_out, s.ms) for s in back.steps] == [
        (s.tool, s.tokens_in, s.tokens_out, s.ms) for s in traj.steps]
    assert [c.input for s in back.steps for c in s.calls] == [None] * sum(len(s.calls) for s in traj.steps)
    assert back.summary.answer is None and back.summary.status == traj.summary.status


def test_spans_follow_the_conventions():
    found = spans.from_trajectory(trace.sample("two_orders"), agent="support", conversation_id="conv-1")
    root, *rest = found
    assert root["name"] == "invoke_agent support" and root["parent_id"] is None
    assert root["attributes"][genai.OPERATION_NAME] == "invoke_agent"
    assert root["attributes"][genai.CONVERSATION_ID] == "conv-1"
    chats = [s for s in rest if s["attributes"][genai.OPERATION_NAME] == "chat"]
    tools = [s for s in rest if s["attributes"][genai.OPERATION_NAME] == "execute_tool"]
    assert [s["name"] for s in chats] == ["chat fake-model"] * 2
    assert {s["kind"] for s in chats} == {"CLIENT"} and {s["kind"] for s in tools} == {"INTERNAL"}
    assert {s["parent_id"] for s in chats} == {root["span_id"]}
    assert {s["parent_id"] for s in tools} == {chats[0]["span_id"]}
    assert [s["attributes"][genai.TOOL_NAME] for s in tools] == ["get_order", "get_order"]
    # the call ids come from the next step's messages, the ids the model gave
    ids = [c["id"] for c in trace.sample("two_orders").steps[1].messages[1]["tool_calls"]]
    assert [s["attributes"][genai.TOOL_CALL_ID] for s in tools] == ids
    assert chats[0]["attributes"][genai.FINISH_REASONS] == ["tool_calls"]
    assert spans.ms(chats[0]) == 205.0
    assert len({s["trace_id"] for s in found}) == 1
    assert spans.from_trajectory(trace.sample("two_orders")) == spans.from_trajectory(trace.sample("two_orders"))


def test_the_names_come_from_the_conventions_package():
    assert (genai.OPERATION_NAME, genai.INPUT_TOKENS, genai.TOOL_CALL_ID, genai.ERROR_TYPE) == (
        "gen_ai.operation.name", "gen_ai.usage.input_tokens", "gen_ai.tool.call.id", "error.type")
    assert (genai.CHAT, genai.EXECUTE_TOOL, genai.INVOKE_AGENT) == ("chat", "execute_tool", "invoke_agent")
    assert genai.SEMCONV_PACKAGE.startswith("0.")


def test_the_span_tree_of_a_run():
    text = spans.tree(trace.sample("two_orders"), times=False).text()
    assert text == "\n".join([
        "invoke_agent agent  done",
        "├─ chat fake-model  CLIENT  in 96 · out 91  → tool_calls",
        "│  ├─ execute_tool get_order",
        "│  └─ execute_tool get_order",
        "└─ chat fake-model  CLIENT  in 286 · out 50  → stop"])
    timed = str(spans.tree(trace.sample("two_orders")))
    assert "chat fake-model  CLIENT  205.0 ms" in timed and "<pre>" in spans.tree([])._repr_html_()


def test_the_tree_names_an_orphan_and_an_error():
    lost = spans.span("execute_tool refund", TRACE, "ef" * 8, PARENT, start_ns=5, end_ns=9,
                      attributes={genai.ERROR_TYPE: "KeyError"}, status="ERROR")
    text = spans.tree([lost], times=False).text()
    assert text == "execute_tool refund  ERROR KeyError  (its parent cdcdcdcd… is not among these spans)"


def test_an_error_observation_is_an_error_span():
    jsonl = "\n".join(json.dumps(x) for x in [
        {"type": "step", "step": 1, "thought": None, "tool": "refund", "input": {"order_id": "A-1"},
         "result_preview": json.dumps({"error": "refunds over 1000 need approval"}), "tokens_in": 10,
         "tokens_out": 5, "ms": 1.5},
        {"type": "summary", "status": "done", "steps": 1, "tokens_in": 10, "tokens_out": 5,
         "total_tokens": 15, "answer": "no"}]) + "\n"
    tool = spans.from_trajectory(jsonl)[-1]
    assert tool["status"] == "ERROR" and tool["attributes"][genai.ERROR_TYPE] == "error_observation"


def test_one_run_at_a_time_and_checked_spans():
    two = spans.from_trajectory(trace.sample("two_orders")) + spans.from_trajectory(trace.sample("step_limit"))
    with pytest.raises(ValueError, match="one run"):
        spans.to_trajectory(two)
    with pytest.raises(ValueError, match="trace_id"):
        spans.span("x", "nothex", PARENT)
    with pytest.raises(ValueError, match="kind"):
        spans.span("x", TRACE, PARENT, kind="SIDEWAYS")
    with pytest.raises(ValueError, match="start_ns"):
        spans.span("x", TRACE, PARENT, start_ns=9, end_ns=1)


def test_messages_in_the_conventions_shape_and_back():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "reasoning_content": "think",
                 "tool_calls": [{"id": "call_1", "type": "function",
                                 "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "{\"ok\": true}"},
                {"role": "assistant", "tool_calls": [{"id": "c2", "type": "function",
                                                      "function": {"name": "g", "arguments": "{}"}}]}]
    parts = spans.to_parts(messages)
    assert parts[2]["parts"][-1] == {"type": "tool_call", "id": "call_1", "name": "f", "arguments": "{\"a\": 1}"}
    assert parts[3] == {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                                   "response": "{\"ok\": true}"}]}
    assert spans.from_parts(parts) == messages


def test_checked_takes_only_plain_span_dicts():
    good = spans.from_trajectory(trace.sample("two_orders"))
    assert spans.checked(good) is good
    bad = [dict(good[0], start_ns=1.5)]
    with pytest.raises(AssertionError, match="start_ns"):
        spans.checked(bad, "spans")
    with pytest.raises(AssertionError, match="list"):
        spans.checked(tuple(good))
    with pytest.raises(AssertionError, match="plain data"):
        spans.checked([dict(good[0], attributes={"x": {"nested": 1}})])
    with pytest.raises(AssertionError, match="fields"):
        spans.checked([{k: v for k, v in good[0].items() if k != "events"}])
