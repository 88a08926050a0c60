"""The fake's Responses API face (`POST /v1/responses`), through the real openai SDK in-process:
every scenario plays as on Chat Completions, the items in and out, the 400/404 rules with
OpenAI's texts, stored state and `previous_response_id`, usage, `incomplete`, the dialects.
(Over HTTP, and the Agents SDK: tests/test_fake_responses_http.py.)"""

from __future__ import annotations

import json
import re

import openai
import pytest

from tests.reference_loop import Run, execute, run_agent, tools_for
from workbook.fake_llm import FakeLLM
from workbook.scenarios import CATALOGUE
from workbook.shop import Shop


def flat(tools: list[dict]) -> list[dict]:
    """Chat Completions tool definitions as Responses' flat function tools."""
    return [{"type": "function", **t["function"]} for t in tools]


def run_items(client, question: str, tools: list, impl: dict, max_steps: int = 8,
              system: str | None = None) -> Run:
    """The reference loop on items, stateless: every output item goes back, each call answered by
    its call_id (as tests/reference_loop.run_agent does on messages)."""
    context: list = [{"role": "user", "content": question}]
    nudged = False
    for step in range(1, max_steps + 1):
        kwargs = {"tools": flat(tools)} if tools else {}
        response = client.responses.create(model="gpt-5-mini", input=context, store=False,
                                           **({"instructions": system} if system else {}), **kwargs)
        context += [o.model_dump(exclude_none=True) for o in response.output]
        calls = [o for o in response.output if o.type == "function_call"]
        if not calls:
            if "<tool_call>" in response.output_text:
                if nudged:
                    return Run(None, "STOPPED: text tool call", step, context)
                nudged = True
                context.append({"role": "user", "content": "Call the tool through tool_calls."})
                continue
            return Run(response.output_text or None, "done", step, context)
        context += [{"type": "function_call_output", "call_id": c.call_id,
                     "output": execute(c.name, c.arguments, impl)} for c in calls]
    return Run(None, "STOPPED: step limit", max_steps, context)


def impl_for() -> dict:
    """The reference tools, with a calculator that refuses powers (huge_power asks for 9**9**9)."""
    impl = tools_for(Shop())
    plain = impl["calculate"]
    impl["calculate"] = lambda expression: plain(expression) if "**" not in expression else \
        {"error": "powers are not allowed"}
    return impl


def outcome(run, *args, **kwargs):
    try:
        r = run(*args, **kwargs)
        return (r.answer, r.status, r.steps)
    except openai.APIStatusError as e:
        return (type(e).__name__, e.status_code, e.message)
    except openai.APITimeoutError as e:
        return (type(e).__name__,)


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_scenario_plays_on_responses_as_on_chat_completions(name):
    chat_llm, items_llm = FakeLLM(name), FakeLLM(name)
    scenario = chat_llm.scenario
    tools = scenario.openai_tools()
    args = dict(question=scenario.question or "Help me.", tools=tools, max_steps=6, system=scenario.system)
    chat = outcome(run_agent, chat_llm.client(max_retries=0), impl=impl_for(), **args)
    items = outcome(run_items, items_llm.client(max_retries=0), impl=impl_for(), **args)
    assert items == chat, f"{name}: Responses {items} but Chat Completions {chat}"
    assert len(items_llm.requests) == len(chat_llm.requests)
    assert all("input" in b and "messages" not in b for b in items_llm.requests)


def tool_round(llm, **first):
    """Ask two_orders' question; return (client, first response)."""
    client = llm.client(max_retries=0)
    tools = flat(llm.scenario.openai_tools())
    return client, tools, client.responses.create(model="gpt-5-mini", input=llm.scenario.question,
                                                  tools=tools, **first)


def outputs_for(calls, impl=None) -> list[dict]:
    impl = impl or tools_for(Shop())
    return [{"type": "function_call_output", "call_id": c.call_id,
             "output": execute(c.name, c.arguments, impl)} for c in calls]


def test_output_items_have_the_wire_shapes():
    llm = FakeLLM("two_orders")
    _, _, r = tool_round(llm)
    body = llm.responses_face.stored[r.id]  # stored by default
    assert r.object == "response" and r.status == "completed" and re.fullmatch(r"resp_[0-9a-f]{48}", r.id)
    rs, *calls = r.output
    assert rs.type == "reasoning" and rs.summary == [] and rs.encrypted_content
    assert re.fullmatch(r"rs_[0-9a-f]{50}", rs.id)
    assert [c.type for c in calls] == ["function_call", "function_call"]
    for c in calls:
        assert re.fullmatch(r"fc_[0-9a-f]{50}", c.id) and c.id[:27] == "fc_" + rs.id[3:27]
        assert re.fullmatch(r"call_[0-9a-f]{24}", c.call_id) and isinstance(c.arguments, str)
        assert json.loads(c.arguments)["order_id"].startswith("A-")
    assert r.output_text == "" and "output_text" not in json.dumps(body[-1])
    assert len(body) == 1 + len(r.output)  # the input message, then the output


def test_a_final_message_carries_output_text_parts_and_the_sdk_joins_them():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm)
    final = client.responses.create(model="gpt-5-mini", previous_response_id=r.id, tools=tools,
                                    input=outputs_for(r.output[1:]))
    message = final.output[-1]
    assert message.type == "message" and message.role == "assistant" and message.status == "completed"
    assert [p.type for p in message.content] == ["output_text"] and message.content[0].annotations == []
    assert final.output_text == message.content[0].text and "A-1001" in final.output_text
    assert final.previous_response_id == r.id


def test_the_pairing_rules_answer_400_with_openais_texts():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm)
    items = [o.model_dump(exclude_none=True) for o in r.output]
    question = {"role": "user", "content": llm.scenario.question}
    outs = outputs_for(r.output[1:])
    cases = [
        ([question, *items, outs[0]], f"No tool output found for function call {r.output[2].call_id}."),
        ([question, *items, *outs, dict(outs[0], call_id="call_nope")],
         "No tool call found for function call output with call_id call_nope."),
        ([question, items[0]], f"Item '{items[0]['id']}' of type 'reasoning' was provided without its "
                               "required following item."),
        ([question, *items[1:], *outs], f"Item '{items[1]['id']}' of type 'function_call' was provided "
                                        f"without its required 'reasoning' item: '{items[0]['id']}'."),
    ]
    for given, text in cases:
        with pytest.raises(openai.BadRequestError) as e:
            client.responses.create(model="m", input=given, tools=tools)
        assert e.value.body["message"] == text and e.value.param == "input" and e.value.code is None
    ok = client.responses.create(model="m", input=[question, *items, *outs], tools=tools)
    assert ok.output_text


def test_a_bare_reasoning_item_of_an_unstored_response_is_404():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm, store=False)
    bare = {"type": "reasoning", "id": r.output[0].id, "summary": []}  # no encrypted_content
    given = [{"role": "user", "content": "q"}, bare, *[o.model_dump() for o in r.output[1:]],
             *outputs_for(r.output[1:])]
    with pytest.raises(openai.NotFoundError) as e:
        client.responses.create(model="m", input=given, tools=tools, store=False)
    assert e.value.body["message"] == (f"Item with id '{bare['id']}' not found. Items are not persisted when "
                               "`store` is set to false. Try again with `store` set to true, or remove "
                               "this item from your input.")
    stored_llm = FakeLLM("two_orders")  # stored (the default): the id is found
    client, tools, r = tool_round(stored_llm)
    given[1] = {"type": "reasoning", "id": r.output[0].id, "summary": []}
    given[2:] = [*[o.model_dump() for o in r.output[1:]], *outputs_for(r.output[1:])]
    assert client.responses.create(model="m", input=given, tools=tools).status == "completed"
    with pytest.raises(openai.NotFoundError, match="Item with id 'msg_x' not found"):
        client.responses.create(model="m", tools=tools, input=[{"type": "item_reference", "id": "msg_x"}])


def test_chat_completions_shapes_are_refused_clearly():
    client = FakeLLM("two_orders").client(max_retries=0)
    nested = [{"type": "function", "function": {"name": "get_order", "parameters": {"type": "object"}}}]
    cases = [
        (dict(input="hi", tools=nested), "Missing required parameter: 'tools[0].name'.", "tools[0].name"),
        (dict(input=[{"role": "tool", "tool_call_id": "c", "content": "x"}]),
         "Unknown parameter: 'input[0].tool_call_id'.", "input[0].tool_call_id"),
        (dict(input=[{"role": "tool", "content": "x"}]),
         "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
         "input[0].role"),
        (dict(input=[{"role": "assistant", "content": None, "tool_calls": []}]),
         "Unknown parameter: 'input[0].tool_calls'.", "input[0].tool_calls"),
        (dict(input=[{"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}]),
         "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
         "input[0].content[0]"),
    ]
    for kwargs, text, param in cases:
        with pytest.raises(openai.BadRequestError) as e:
            client.responses.create(model="m", **kwargs)
        assert (e.value.body["message"], e.value.param) == (text, param)
    with pytest.raises(openai.BadRequestError, match="Unknown parameter: 'messages'"):
        client.post("/responses", body={"model": "m", "messages": []}, cast_to=object)


def test_previous_response_id_continues_the_stored_conversation_and_bills_the_chain():
    chained, replayed = FakeLLM("two_orders"), FakeLLM("two_orders")
    client, tools, r = tool_round(chained, instructions="Answer briefly.")
    outs = outputs_for(r.output[1:])
    second = client.responses.create(model="m", previous_response_id=r.id, input=outs, tools=tools)
    assert chained.requests[-1]["input"] == outs  # only the new items went over the wire
    seen = chained.seen[-1]
    assert [m["role"] for m in seen] == ["user", "assistant", "tool", "tool"], "instructions are not carried"
    c2, _, r2 = tool_round(replayed, instructions="Answer briefly.", store=False)
    again = c2.responses.create(model="m", store=False, tools=tools, input=[
        {"role": "user", "content": replayed.scenario.question},
        *[o.model_dump(exclude_none=True) for o in r2.output], *outs])
    assert second.usage.input_tokens == again.usage.input_tokens > r.usage.input_tokens
    assert second.output_text == again.output_text


def test_an_unknown_or_unstored_previous_response_is_400_not_found():
    llm = FakeLLM("two_orders")
    client, tools, r = tool_round(llm, store=False)
    for rid in (r.id, "resp_nope"):
        with pytest.raises(openai.BadRequestError) as e:
            client.responses.create(model="m", previous_response_id=rid, input="and then?", tools=tools)
        assert e.value.body["message"] == f"Previous response with id '{rid}' not found."
        assert (e.value.param, e.value.code) == ("previous_response_id", "previous_response_not_found")
    assert r.to_dict()["store"] is False


def test_usage_counts_cached_and_reasoning_tokens():
    llm = FakeLLM("two_orders")
    long = "You are the shop's support agent. " * 200  # > 1024 tokens of stable prefix
    _, _, first = tool_round(llm, instructions=long)
    _, _, second = tool_round(llm, instructions=long)
    u = second.usage
    assert first.usage.input_tokens_details.cached_tokens == 0
    assert u.input_tokens_details.cached_tokens >= 1024 and u.input_tokens_details.cached_tokens % 128 == 0
    assert u.output_tokens_details.reasoning_tokens > 0
    assert u.total_tokens == u.input_tokens + u.output_tokens


def test_max_output_tokens_makes_an_incomplete_response():
    llm = FakeLLM("two_orders")
    _, _, r = tool_round(llm, max_output_tokens=5)
    assert r.status == "incomplete" and r.incomplete_details.reason == "max_output_tokens"
    assert [o.type for o in r.output] == ["reasoning"] and r.output_text == ""
    assert r.usage.output_tokens == 5


def test_ollama_ignores_previous_response_id_and_the_question_is_lost():
    llm = FakeLLM("two_orders", dialect="ollama")
    client, tools, r = tool_round(llm)
    assert [o.type for o in r.output] == ["function_call", "function_call"], "no reasoning item"
    assert r.to_dict()["store"] is False
    again = client.responses.create(model="m", previous_response_id=r.id, tools=tools,
                                    input=outputs_for(r.output))
    assert again.previous_response_id is None and again.status == "completed"
    assert all(m["role"] != "user" for m in llm.seen[-1]), "Ollama saw the earlier question"
    _, _, cut = tool_round(FakeLLM("two_orders", dialect="ollama"), max_output_tokens=1)
    assert cut.status == "completed"


def test_deepseek_is_stateless_and_reasons():
    llm = FakeLLM("two_orders", dialect="deepseek")
    client, tools, r = tool_round(llm)
    assert r.output[0].type == "reasoning"
    with pytest.raises(openai.BadRequestError, match="previous_response_not_found|not found"):
        client.responses.create(model="m", previous_response_id=r.id, input=outputs_for(r.output[1:]),
                                tools=tools)


def test_faults_of_the_catalogue_reach_this_face():
    with pytest.raises(openai.RateLimitError):
        tool_round(FakeLLM("rate_limited"))
    with pytest.raises(openai.InternalServerError):
        tool_round(FakeLLM("flaky_server"))
    with pytest.raises(openai.APITimeoutError):
        tool_round(FakeLLM("slow_provider"))
    _, _, r = tool_round(FakeLLM("broken_json_then_fix"))
    call = next(o for o in r.output if o.type == "function_call")
    with pytest.raises(ValueError):
        json.loads(call.arguments)
