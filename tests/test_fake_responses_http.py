"""The Responses face over real HTTP on 127.0.0.1 (`llm.serve()`): the openai SDK, the key rule,
and the OpenAI Agents SDK's default model (Responses) completing a tool round trip."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import openai
import pytest

from tests.reference_loop import execute, tools_for
from tests.test_fake_responses import flat, outputs_for
from workbook.fake_llm import FakeLLM
from workbook.mcp_servers import run_async
from workbook.shop import Shop


def test_the_sdk_runs_a_tool_round_trip_over_http():
    llm = FakeLLM("two_orders")
    with llm.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        tools = flat(llm.scenario.openai_tools())
        r = client.responses.create(model="gpt-5-mini", input=llm.scenario.question, tools=tools)
        calls = [o for o in r.output if o.type == "function_call"]
        final = client.responses.create(model="gpt-5-mini", previous_response_id=r.id, tools=tools,
                                        input=outputs_for(calls))
        with pytest.raises(openai.BadRequestError, match="No tool output found for function call"):
            client.responses.create(model="m", input=[o.model_dump() for o in r.output], tools=tools)
    assert [o.type for o in r.output] == ["reasoning", "function_call", "function_call"]
    assert "A-1001" in final.output_text and final.status == "completed"
    assert [b.get("previous_response_id") for b in llm.requests] == [None, r.id, None]


def test_a_request_without_a_key_is_401():
    llm = FakeLLM("two_orders")
    with llm.serve() as base_url:
        request = urllib.request.Request(f"{base_url}/responses", method="POST",
                                         data=json.dumps({"model": "m", "input": "hi"}).encode())
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request, timeout=10)
        body = e.value.read().decode()  # while the server is up: after it, the body may be cut off
    assert e.value.code == 401 and "You didn't provide an API key" in body
    assert llm.requests == []


def test_the_agents_sdk_default_model_completes_a_tool_round_trip():
    agents = pytest.importorskip("agents")
    from agents.models import _openai_shared

    assert _openai_shared.get_use_responses_by_default() is True  # the SDK's default API
    impl = tools_for(Shop())

    @agents.function_tool
    def get_order(order_id: str) -> str:
        """Look up one order by its id."""
        return execute("get_order", json.dumps({"order_id": order_id}), impl)

    llm = FakeLLM("two_orders")
    with llm.serve() as base_url:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
        provider = agents.OpenAIProvider(openai_client=client)  # use_responses unset: the default
        assert isinstance(provider.get_model("gpt-4.1-mini"), agents.OpenAIResponsesModel)
        agent = agents.Agent(name="shop", instructions="You help with orders.", tools=[get_order],
                             model="gpt-5-mini")
        config = agents.RunConfig(model_provider=provider, tracing_disabled=True)
        result = run_async(lambda: agents.Runner.run(agent, llm.scenario.question, run_config=config))
    assert "A-1001" in result.final_output and "A-1002" in result.final_output
    assert len(llm.requests) == 2 and all(isinstance(b["input"], list) for b in llm.requests)
    assert any(i.get("type") == "function_call_output" for i in llm.requests[1]["input"])
    assert llm.requests[0]["instructions"] == "You help with orders."
