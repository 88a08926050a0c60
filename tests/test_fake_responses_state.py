"""The Responses face's state and input items, beyond tests/test_fake_responses.py: a chain is
cached and billed as the replay of its conversation (prompt caching as in chapter 15), a message's
`input_text` parts read as its text, and an `item_reference` stands for the stored item it names."""

from __future__ import annotations

import openai
import pytest

from tests.test_fake_responses import flat, outputs_for
from workbook.fake_llm import FakeLLM

LONG = "Northwind policy: refunds within 30 days, shipping in 2 days, cite the order id. " * 60


def first_round(llm, **kwargs):
    client = llm.client(max_retries=0)
    tools = flat(llm.scenario.openai_tools())
    question = LONG + llm.scenario.question
    return client, tools, question, client.responses.create(model="gpt-5-mini", input=question,
                                                            tools=tools, **kwargs)


def test_a_chain_is_cached_and_billed_as_the_replay_of_its_conversation():
    chained, replayed = FakeLLM("two_orders"), FakeLLM("two_orders")
    client, tools, question, r = first_round(chained)
    second = client.responses.create(model="gpt-5-mini", previous_response_id=r.id, tools=tools,
                                     input=outputs_for(r.output[1:]))
    c2, _, _, r2 = first_round(replayed, store=False)
    again = c2.responses.create(model="gpt-5-mini", store=False, tools=tools, input=[
        {"role": "user", "content": question}, *[o.model_dump(exclude_none=True) for o in r2.output],
        *outputs_for(r2.output[1:])])
    cached = second.usage.input_tokens_details.cached_tokens
    assert r.usage.input_tokens_details.cached_tokens == 0
    assert cached >= 1024 and cached % 128 == 0, "the chain's stored prefix is read from the cache"
    assert (second.usage.input_tokens, cached) == (
        again.usage.input_tokens, again.usage.input_tokens_details.cached_tokens)


def test_input_text_parts_read_as_the_text_they_join():
    llm = FakeLLM("two_orders")
    client, tools = llm.client(max_retries=0), flat(llm.scenario.openai_tools())
    words = llm.scenario.question.split(" and ")
    parts = [{"type": "input_text", "text": words[0] + " and "}, {"type": "input_text", "text": words[1]}]
    for message in ({"role": "user", "content": parts}, {"type": "message", "role": "user", "content": parts}):
        r = client.responses.create(model="gpt-4.1-mini", input=[message], tools=tools)
        assert llm.seen[-1] == [{"role": "user", "content": llm.scenario.question}]
        assert [o.name for o in r.output] == ["get_order", "get_order"]


def test_an_item_reference_stands_for_the_stored_item():
    llm = FakeLLM("two_orders")
    client, tools = llm.client(max_retries=0), flat(llm.scenario.openai_tools())
    r = client.responses.create(model="gpt-4.1-mini", input=llm.scenario.question, tools=tools)
    refs = [{"type": "item_reference", "id": o.id} for o in r.output]
    given = [{"role": "user", "content": llm.scenario.question}, *refs, *outputs_for(r.output)]
    done = client.responses.create(model="gpt-4.1-mini", input=given, tools=tools)
    assert "A-1002" in done.output_text
    calls = llm.seen[-1][1]["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [(o.call_id, o.name) for o in r.output]
    unstored = client.responses.create(model="gpt-4.1-mini", input=llm.scenario.question, tools=tools,
                                       store=False)
    with pytest.raises(openai.NotFoundError, match=f"Item with id '{unstored.output[0].id}' not found"):
        client.responses.create(model="gpt-4.1-mini", tools=tools, input=[
            {"role": "user", "content": "q"}, {"type": "item_reference", "id": unstored.output[0].id},
            *outputs_for(unstored.output[:1])])
