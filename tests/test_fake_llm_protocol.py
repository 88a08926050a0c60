"""Every protocol rule, through the real SDK (in-process) and through real HTTP on 127.0.0.1."""

import json

import httpx2
import openai
import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM

USER = {"role": "user", "content": "Where is my order A-1001?"}
TOOLS = scenarios.two_orders().openai_tools()


def assistant(*ids, arguments='{"order_id": "A-1001"}'):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "get_order", "arguments": arguments}}
        for i in ids]}


def tool(i, content="{}"):
    return {"role": "tool", "tool_call_id": i, "content": content}


# (case name, request overrides, expected message fragment, expected param)
CASES = [
    ("tool call not answered", {"messages": [USER, assistant("call_1", "call_2"), tool("call_1")]},
     "The following tool_call_ids did not have response messages: call_2", "messages"),
    ("answer missing before the next user turn",
     {"messages": [USER, assistant("call_1"), {"role": "user", "content": "hi"}]},
     "must be followed by tool messages responding to each 'tool_call_id'", "messages"),
    ("tool message with no preceding call", {"messages": [USER, tool("call_9")]},
     "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
     "messages.[1].role"),
    ("tool message for an unknown id", {"messages": [USER, assistant("call_1"), tool("call_X")]},
     "'tool_call_id' of 'call_X' not found in 'tool_calls' of previous message", None),
    ("id answered twice", {"messages": [USER, assistant("call_1"), tool("call_1"), tool("call_1")]},
     "duplicate response for 'tool_call_id' of 'call_1'", None),
    ("unknown role", {"messages": [{"role": "bot", "content": "hi"}]},
     "Invalid value: 'bot'. Supported values are", "messages[0].role"),
    ("tool content not a string", {"messages": [USER, assistant("call_1"), tool("call_1", {"a": 1})]},
     "Invalid type for 'messages[2].content': expected one of a string or array of objects, "
     "but got an object instead.", "messages[2].content"),
    ("arguments as a dict", {"messages": [USER, assistant("call_1", arguments={"order_id": "A"}),
                                          tool("call_1")]},
     "'messages[1].tool_calls[0].function.arguments': expected a string, but got an object",
     "messages[1].tool_calls[0].function.arguments"),
    ("tool without tool_call_id", {"messages": [USER, assistant("c"), {"role": "tool", "content": "x"}]},
     "messages with role 'tool' must have a 'tool_call_id'", None),
    ("empty messages", {"messages": []}, "Invalid 'messages': empty array. Expected an array with "
     "minimum length 1, but got an empty array instead.", "messages"),
    ("tool type not function", {"tools": [{"type": "func", "function": {"name": "x"}}]},
     "Invalid value: 'func'. Supported values are: 'function' and 'custom'.", "tools[0].type"),
    ("bad tool name", {"tools": [{"type": "function", "function": {"name": "get order"}}]},
     "string does not match pattern", "tools[0].function.name"),
    ("parameters not an object schema",
     {"tools": [{"type": "function", "function": {"name": "x", "parameters": {"type": "string"}}}]},
     "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'",
     "tools[0].function.parameters"),
    ("tool_choice without tools", {"tools": None, "tool_choice": "auto"},
     "'tool_choice' is only allowed when 'tools' are specified", "tool_choice"),
]


def request(**overrides):
    body = {"model": "fake-model", "messages": [USER], "tools": TOOLS}
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


@pytest.mark.parametrize("name,overrides,fragment,param", CASES, ids=[c[0] for c in CASES])
def test_rule_through_sdk(name, overrides, fragment, param):
    llm = FakeLLM(scenarios.two_orders())
    with pytest.raises(openai.BadRequestError) as info:
        llm.client(max_retries=0).chat.completions.create(**request(**overrides))
    err = info.value
    assert err.status_code == 400
    assert fragment in err.message
    assert err.body["type"] == "invalid_request_error"
    if param:
        assert err.body["param"] == param
    assert llm.calls == 1  # a 400 is never retried by the SDK


@pytest.mark.parametrize("name,overrides,fragment,param", CASES, ids=[c[0] for c in CASES])
def test_rule_through_http(name, overrides, fragment, param):
    llm = FakeLLM(scenarios.two_orders())
    with llm.serve() as base_url:
        r = httpx2.post(f"{base_url}/chat/completions", json=request(**overrides),
                        headers={"Authorization": "Bearer k"})
    assert r.status_code == 400
    assert fragment in r.json()["error"]["message"]


def test_missing_model_is_refused():
    llm = FakeLLM(scenarios.taxi_spending())
    r = llm.handle({"messages": [USER]})
    assert r.status == 400 and r.body["error"]["message"] == "you must provide a model parameter"


def test_sdk_message_object_appended_verbatim_is_accepted():
    """Appending the SDK's own message (refusal: null, annotations, extra fields) must work."""
    llm = FakeLLM(scenarios.two_orders())
    client = llm.client()
    messages = [USER]
    first = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    msg = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls" and len(msg.tool_calls) == 2
    messages.append(msg)  # the pydantic object itself
    for tc in msg.tool_calls:
        messages.append(tool(tc.id, json.dumps({"order_id": json.loads(tc.function.arguments)[
            "order_id"], "item": "x", "status": "shipped"})))
    second = client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
    assert second.choices[0].finish_reason == "stop"
    sent = llm.requests[1]["messages"][1]
    assert sent["refusal"] is None and sent["role"] == "assistant"


def test_http_face_needs_a_key_and_is_silent(capfd):
    llm = FakeLLM(scenarios.taxi_spending())
    with llm.serve() as base_url:
        r = httpx2.post(f"{base_url}/chat/completions", json=request())
        ok = openai.OpenAI(api_key="k", base_url=base_url).chat.completions.create(**request())
    assert r.status_code == 401 and "API key" in r.json()["error"]["message"]
    assert ok.choices[0].message.tool_calls[0].function.name == "txn_sum"
    out, err = capfd.readouterr()
    assert err == "" and out == ""
