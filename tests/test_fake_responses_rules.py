"""The Responses face's later rules: a message replayed without its reasoning item, an item id
sent twice, function tools strict when possible (else the non-strict fallback), and reasoning tokens counted by the chat face's
rule (`workbook/engine/reasoning.spend`). Texts and sources: docs/SOURCES.md."""

from __future__ import annotations

import openai
import pytest

from tests.test_fake_responses import flat, outputs_for, tool_round
from workbook.engine import reasoning
from workbook.fake_llm import FakeLLM

SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}, "note": {"type": "string"}},
          "required": ["order_id"]}


def dumped(response) -> list[dict]:
    return [o.model_dump(exclude_none=True) for o in response.output]


def test_a_message_replayed_without_its_reasoning_item_is_400():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm)
    question = {"role": "user", "content": llm.scenario.question}
    context = [question, *dumped(r), *outputs_for(r.output[1:])]
    final = client.responses.create(model="gpt-5-mini", input=context, tools=tools, store=False)
    rs, msg = final.output
    assert (rs.type, msg.type) == ("reasoning", "message")
    later = [*context, msg.model_dump(exclude_none=True), {"role": "user", "content": "Thanks!"}]
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model="gpt-5-mini", input=later, tools=tools, store=False)
    assert e.value.body["message"] == (f"Item '{msg.id}' of type 'message' was provided without its "
                                       f"required 'reasoning' item: '{rs.id}'.")
    assert (e.value.param, e.value.code) == ("input", None)
    with_rs = [*context, *dumped(final), {"role": "user", "content": "Thanks!"}]
    assert client.responses.create(model="gpt-5-mini", input=with_rs, tools=tools, store=False).status == "completed"
    plain = [*context, {"role": "assistant", "content": final.output_text}, {"role": "user", "content": "Thanks!"}]
    assert client.responses.create(model="gpt-5-mini", input=plain, tools=tools, store=False).status == "completed"


def test_an_item_id_sent_twice_is_400_duplicate():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm)
    question = {"role": "user", "content": llm.scenario.question}
    twice = [question, *dumped(r), *dumped(r), *outputs_for(r.output[1:])]
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model="gpt-5-mini", input=twice, tools=tools, store=False)
    assert e.value.body["message"] == (f"Duplicate item found with id {r.output[0].id}. Remove duplicate "
                                       "items from your input and try again.")
    assert (e.value.param, e.value.code) == ("input", None)
    resent = [*dumped(r), *outputs_for(r.output[1:])]  # the history again, on top of the stored chain
    with pytest.raises(openai.BadRequestError, match=f"Duplicate item found with id {r.output[0].id}\\."):
        client.responses.create(model="gpt-5-mini", previous_response_id=r.id, input=resent, tools=tools)
    ok = client.responses.create(model="gpt-5-mini", previous_response_id=r.id, tools=tools,
                                 input=outputs_for(r.output[1:]))
    assert ok.status == "completed"


@pytest.mark.parametrize("keyword, value", [
    ("allOf", [{"required": ["order_id"]}]), ("not", {"required": ["note"]}), ("if", {"required": ["note"]}),
    ("dependentRequired", {"note": ["order_id"]})])
def test_a_schema_strict_mode_cannot_express_falls_back_to_non_strict(keyword, value):
    client = FakeLLM("two_orders").client(max_retries=0)
    schema = dict(SCHEMA, **{keyword: value})
    nested = {"type": "object", "properties": {"order": dict(SCHEMA, **{keyword: value})}}
    for params in (schema, nested):
        r = client.responses.create(model="gpt-5-mini", input="hi",
                                    tools=[{"type": "function", "name": "get_order", "parameters": params}])
        assert r.tools[0].strict is False, "the fallback: the response tool shows strict: false"
        assert r.tools[0].parameters == params, "the schema as sent, not normalized"


def test_a_property_named_like_a_keyword_is_no_fallback():
    client = FakeLLM("two_orders").client(max_retries=0)
    schema = {"type": "object", "properties": {"if": {"type": "string"}, "not": {"type": "string"}}}
    r = client.responses.create(model="gpt-5-mini", input="hi",
                                tools=[{"type": "function", "name": "get_order", "parameters": schema}])
    assert r.tools[0].strict is True and r.tools[0].parameters["required"] == ["if", "not"]


def test_function_tools_are_strict_when_possible_unless_they_say_strict_false():
    client = FakeLLM("two_orders").client(max_retries=0)
    tool = {"type": "function", "name": "get_order", "parameters": SCHEMA}
    r = client.responses.create(model="gpt-5-mini", input="hi", tools=[tool])
    listed = r.tools[0]
    assert listed.strict is True, "strict by default when the schema can be made strict"
    assert listed.parameters["additionalProperties"] is False
    assert listed.parameters["required"] == ["order_id", "note"], "every property required: normalized"
    loose = client.responses.create(model="gpt-5-mini", input="hi", tools=[dict(tool, strict=False)])
    assert loose.tools[0].strict is False and loose.tools[0].parameters == SCHEMA
    cases = [
        (SCHEMA, "Invalid schema for function 'get_order': In context=(), 'additionalProperties' is required "
                 "to be supplied and to be false."),
        (dict(SCHEMA, additionalProperties=False),
         "Invalid schema for function 'get_order': In context=(), 'required' is required to be supplied and "
         "to be an array including every key in properties. Missing 'note'."),
        ({"type": "object", "additionalProperties": False, "required": ["lines"],
          "properties": {"lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {}}}}}},
         "Invalid schema for function 'get_order': In context=('properties', 'lines', 'items'), "
         "'additionalProperties' is required to be supplied and to be false."),
    ]
    for schema, text in cases:
        with pytest.raises(openai.BadRequestError) as e:
            client.responses.create(model="gpt-5-mini", input="hi", tools=[dict(tool, parameters=schema, strict=True)])
        assert e.value.body["message"] == text
        assert (e.value.param, e.value.code) == ("tools[0].parameters", "invalid_function_parameters")
    closed = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"],
              "additionalProperties": False}
    assert client.responses.create(model="gpt-5-mini", input="hi", tools=[dict(tool, parameters=closed,
                                                                              strict=True)]).status == "completed"
    with pytest.raises(openai.BadRequestError, match="Invalid type for 'tools\\[0\\].strict': expected a boolean"):
        client.responses.create(model="gpt-5-mini", input="hi", tools=[dict(tool, strict="yes")])


@pytest.mark.parametrize("model, effort, factor", [
    ("gpt-5-mini", None, 2), ("gpt-5-mini", "high", 4), ("gpt-5-mini", "minimal", 0),
    ("o4-mini", "low", 1), ("gpt-5.1", None, 0), ("gpt-4.1-mini", None, 0), ("fake-model", None, 0)])
def test_reasoning_tokens_follow_the_chat_faces_rule(model, effort, factor):
    llm = FakeLLM("two_orders")
    client = llm.client(max_retries=0)
    extra = {"reasoning": {"effort": effort}} if effort else {}
    r = client.responses.create(model=model, input=llm.scenario.question,
                                tools=flat(llm.scenario.openai_tools()), **extra)
    u = r.usage
    spent = u.output_tokens_details.reasoning_tokens
    visible = u.output_tokens - spent
    assert spent == reasoning.spend(model, effort, None, visible).reasoning == factor * visible
    assert [o.type for o in r.output][0] == ("reasoning" if factor else "function_call")
    assert r.reasoning.effort == (effort or reasoning.model(model).default if reasoning.model(model).reasons else None)
    chat = llm.client(max_retries=0).chat.completions.create(
        model=model, messages=[{"role": "user", "content": llm.scenario.question}],
        tools=llm.scenario.openai_tools(), **({"reasoning_effort": effort} if effort else {}))
    details = chat.usage.completion_tokens_details
    assert (details.reasoning_tokens if details else 0) == factor * (chat.usage.completion_tokens - (
        details.reasoning_tokens if details else 0)), "the chat face counts by the same rule"


def test_a_cap_the_reasoning_reaches_leaves_only_the_reasoning_item():
    llm = FakeLLM("two_orders")
    _, _, r = tool_round(llm, max_output_tokens=8)
    assert r.status == "incomplete" and r.incomplete_details.reason == "max_output_tokens"
    assert [o.type for o in r.output] == ["reasoning"]
    assert r.usage.output_tokens == r.usage.output_tokens_details.reasoning_tokens == 8
    _, _, roomy = tool_round(FakeLLM("two_orders"), max_output_tokens=4000)
    assert roomy.status == "completed" and [o.type for o in roomy.output][1:] == ["function_call"] * 2
    with pytest.raises(openai.BadRequestError, match="Invalid type for 'reasoning': expected an object"):
        tool_round(FakeLLM("two_orders"), reasoning="high")


def test_deepseek_reasons_on_every_model_and_ollama_never():
    r = tool_round(FakeLLM("two_orders", dialect="deepseek"))[2]
    assert r.output[0].type == "reasoning" and r.usage.output_tokens_details.reasoning_tokens > 0
    o = tool_round(FakeLLM("two_orders", dialect="ollama"))[2]
    assert o.usage.output_tokens_details.reasoning_tokens == 0 and o.output[0].type == "function_call"


def test_a_strict_tools_calls_fit_its_schema_as_on_chat_completions():
    closed = {"type": "object", "additionalProperties": False, "required": ["order_id", "note"],
              "properties": {"order_id": {"type": "string"}, "note": {"type": ["string", "null"]}}}
    tools = [{"type": "function", "name": "get_order", "parameters": closed, "strict": True}]
    for dialect in ("openai", "deepseek"):
        llm = FakeLLM("two_orders", dialect=dialect)
        r = llm.client(max_retries=0).responses.create(model="gpt-5-mini", input=llm.scenario.question, tools=tools)
        args = [o.arguments for o in r.output if o.type == "function_call"]
        assert args and all(a.endswith('"note": null}') for a in args), (dialect, args)
    llm = FakeLLM("two_orders")
    r = llm.client(max_retries=0).responses.create(model="gpt-5-mini", input=llm.scenario.question,
                                                    tools=[dict(tools[0], strict=None)])
    assert all("note" not in o.arguments for o in r.output if o.type == "function_call"), "omitted: as scripted"
