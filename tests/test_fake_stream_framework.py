"""A framework written elsewhere streams against the fake over HTTP (issue 29): the OpenAI Agents
SDK's `Runner.run_streamed` completes a tool round trip on the Responses face (its default model)
and on Chat Completions, every model call streamed, its text deltas adding up to the answer."""

from __future__ import annotations

import json

import openai
import pytest

from tests.lazy import GROUP, lazy
from tests.reference_loop import execute, tools_for
from workbook import scenarios as S
from workbook.fake_llm import FakeLLM
from workbook.mcp_servers import run_async
from workbook.shop import Shop

agents = lazy("agents")
pytestmark = pytest.mark.xdist_group(GROUP)


def run_streamed(llm, responses: bool):
    impl = tools_for(Shop())

    @agents.function_tool
    def get_order(order_id: str) -> str:
        """Look up one order by its id."""
        return execute("get_order", json.dumps({"order_id": order_id}), impl)

    async def go(base_url):
        client = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
        provider = agents.OpenAIProvider(openai_client=client, use_responses=responses)
        agent = agents.Agent(name="shop", instructions="You help with orders.", tools=[get_order],
                             model="gpt-4.1-mini")
        config = agents.RunConfig(model_provider=provider, tracing_disabled=True)
        result = agents.Runner.run_streamed(agent, llm.scenario.question, run_config=config)
        deltas, kinds = [], []
        async for event in result.stream_events():
            kinds.append(event.type)
            if event.type == "raw_response_event" and getattr(event.data, "type", "") in (
                    "response.output_text.delta",):
                deltas.append(event.data.delta)
        return result, deltas, kinds

    with llm.serve() as base_url:
        return run_async(lambda: go(base_url))


@pytest.mark.parametrize("responses", [True, False], ids=["responses", "chat-completions"])
def test_run_streamed_completes_a_tool_round_trip(responses):
    llm = FakeLLM(S.streamed(S.two_orders(), fragment=3))
    result, deltas, kinds = run_streamed(llm, responses)
    assert "A-1001" in result.final_output and "A-1002" in result.final_output
    assert len(llm.requests) == 2 and all(b.get("stream") is True for b in llm.requests)
    assert all(d.status == "done" for d in llm.stream_state.deliveries)
    assert "run_item_stream_event" in kinds and "raw_response_event" in kinds
    assert "".join(deltas) == result.final_output, "the streamed text is the answer"
    second = llm.requests[1]
    sent = second["input"] if responses else second["messages"]
    assert any((m.get("type") == "function_call_output") if responses else m.get("role") == "tool" for m in sent)
