"""workbook.frameworks: both frameworks run on the fake through the sync client's transport, and
the defaults chapter 24 states (docs/SOURCES.md, "Chapter 24") hold at the pinned versions."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.lazy import GROUP, lazy
from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop
from workbook.trace import otel
from workbook.trace import spans as span_data

agents, pydantic_ai, frameworks = lazy("agents"), lazy("pydantic_ai"), lazy("workbook.frameworks")
pytestmark = pytest.mark.xdist_group(GROUP)


def own_thread(test):
    """Run a test that starts event loops in a thread of its own: the browser tests' session-wide
    Playwright (its sync API) keeps a loop running in the worker's main thread, and an xdist worker
    may run this module after them ("Cannot run the event loop while another loop is running")."""
    def run(*args, **kwargs):
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(test, *args, **kwargs).result()  # its exception, raised here
    run.__name__, run.__doc__ = test.__name__, test.__doc__
    return run


def test_async_twin_refuses_what_is_not_an_openai_client():
    with pytest.raises(TypeError, match="needs an openai.OpenAI client"):
        frameworks.async_twin(object())


def test_an_unknown_framework_is_named():
    with pytest.raises(ValueError, match="langchain"):
        frameworks.run("langchain", FakeLLM("two_orders").client(), [], "q", "s")


def test_both_frameworks_answer_and_the_fake_records_their_requests():
    shop = Shop()
    for framework, tools, api_key in (("openai-agents", [agents.function_tool(shop.get_order)], "input"),
                                      ("pydantic-ai", [pydantic_ai.Tool(shop.get_order)], "messages")):
        llm = FakeLLM("two_orders")
        got = frameworks.run(framework, llm.client(), tools, llm.scenario.question, "Help.")
        assert got["error"] is None and "A-1002" in got["output"], (framework, got)
        assert len(llm.requests) == 2 and all(api_key in body for body in llm.requests), framework


def test_the_defaults_the_chapter_states():
    shop = Shop()
    stated = {"openai-agents": (10, None, "An error occurred while running the tool. Please try again."),
              "pydantic-ai": (50, "auto", None)}
    for framework, (limit, choice, error) in stated.items():
        tools = [agents.function_tool(shop.get_order)] if framework == "openai-agents" else [pydantic_ai.Tool(shop.get_order)]
        never = FakeLLM(scenarios.repeat_forever())
        assert frameworks.run(framework, never.client(), tools, "q", "s")["error"] is not None
        assert len(never.requests) == limit and never.requests[0].get("tool_choice") == choice, framework
        missing = FakeLLM(scenarios.missing_order())
        frameworks.run(framework, missing.client(), tools, "q", "s")
        last = missing.requests[-1].get("input", [])
        sent = [i["output"] for i in last if isinstance(i, dict) and i.get("type") == "function_call_output"]
        assert (sent[-1] if sent else None) == error, framework


VERDICT = {"type": "object", "properties": {"order_id": {"type": "string"}, "status": {"type": "string"}},
           "required": ["order_id", "status"], "additionalProperties": False}


def test_pydantic_ai_structured_output_is_a_tool_the_model_must_call():
    llm = FakeLLM(scenarios.scripted(scenarios.call("final_result", order_id="A-1001", status="shipped")))
    got = frameworks.run("pydantic-ai", llm.client(), [pydantic_ai.Tool(Shop().get_order)], "q", "s", output=VERDICT)
    assert got == {"output": {"order_id": "A-1001", "status": "shipped"}, "error": None}
    (body,) = llm.requests  # the output ends the run: no request follows it
    assert body["tool_choice"] == "required" and body["stream"] is False
    assert [t["function"]["name"] for t in body["tools"]] == ["get_order", "final_result"]
    assert body["tools"][-1]["function"] == {"name": "final_result", "parameters": VERDICT, "strict": True,
                                             "description": "The final response which ends this conversation"}
    with pytest.raises(ValueError, match="pydantic-ai's, not 'openai-agents'"):
        frameworks.run("openai-agents", llm.client(), [], "q", "s", output=VERDICT)


@own_thread
def test_a_run_in_a_notebook_loop_leaves_no_thread_behind():
    """A cell's event loop outlives the cell; a thread left in it (the async client's platform
    lookup) would keep the gates' fast runner from forking the cells after it."""
    async def get_order(order_id: str) -> str:
        """An order."""
        return order_id

    async def both():
        agent, config = frameworks.agents_sdk(FakeLLM("two_orders").client(), [agents.function_tool(get_order)], "s")
        await agents.Runner.run(agent, "Where are my orders A-1001 and A-1002?", run_config=config)
        await frameworks.pydantic_ai_agent(FakeLLM("two_orders").client(), [pydantic_ai.Tool(get_order)], "s").run("q")

    before = threading.active_count()
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(both())
        assert threading.active_count() == before, [t.name for t in threading.enumerate()]
    finally:
        loop.close()
    # a plain tool function runs in AnyIO's worker threads: run() waits for them to end
    frameworks.run("pydantic-ai", FakeLLM("two_orders").client(), [pydantic_ai.Tool(Shop().get_order)], "q", "s")
    assert threading.active_count() == before, [t.name for t in threading.enumerate()]


@own_thread
def test_the_agents_sdk_trace_as_span_dicts_and_pydantic_ai_spans_on_request():
    kept = frameworks.AgentsTrace()
    agents.set_trace_processors([kept])
    try:
        llm = FakeLLM("two_orders")
        agent, config = frameworks.agents_sdk(llm.client(), [agents.function_tool(Shop().get_order)], "s", tracing=True)
        asyncio.run(agents.Runner.run(agent, "Where are my orders A-1001 and A-1002?", run_config=config))
    finally:
        agents.set_trace_processors([])  # nothing exports from this test process
    found = span_data.checked(kept.spans())
    names = [s["name"] for s in found]
    assert names[0] == "task Agent workflow" and {"agent support", "turn 1", "turn 2"} <= set(names), names
    turn = next(s for s in found if s["name"] == "turn 1")
    assert [s["name"] for s in span_data.children(found, turn)] == ["response", "function get_order", "function get_order"]
    assert next(s for s in found if s["name"] == "response")["kind"] == "CLIENT"
    assert llm.traceparents == [None, None]

    recorder = otel.Recorder()
    instrumented = frameworks.pydantic_ai_agent(FakeLLM("two_orders").client(), [pydantic_ai.Tool(Shop().get_order)], "s",
                                                tracer_provider=recorder.provider, name="support")
    asyncio.run(instrumented.run("q"))
    assert [s["name"] for s in recorder.spans()][:2] == ["invoke_agent support", "chat fake-model"]


def test_pydantic_ai_sends_what_chapter_24s_run_with_output_tests_expect():
    """The visible test of run_with_output checks a learner's loop against constants: these are
    what pydantic-ai 2.78.0 sends on its scenario (tools, then final_result; tool_choice required;
    two requests; every call of the last reply run; the first final_result wins)."""
    ran = []

    async def get_order(order_id: str) -> str:
        ran.append(f"get_order {order_id}")
        return json.dumps({"order_id": order_id, "status": "shipped"})

    async def block_card() -> str:
        ran.append("block_card")
        return json.dumps({"blocked": True})

    def strict(properties):
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    def as_tool(name, description, parameters):
        return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters,
                                                 "strict": True}}

    s = scenarios
    model = s.scripted(s.call("get_order", order_id="A-1001"),
                       s.calls(s.Call("final_result", {"order_id": "A-1001", "status": "shipped"}), s.Call("block_card", {}),
                               s.Call("final_result", {"order_id": "A-1001", "status": "lost"})),
                       "The run should have ended at final_result.")
    tools = [as_tool("get_order", "Look an order up.", strict({"order_id": {"type": "string"}})),
             as_tool("block_card", "Block the customer's card.", strict({}))]
    framework_tools = [pydantic_ai.Tool.from_schema(fn, name=t["function"]["name"], description=t["function"]["description"],
                                        json_schema=t["function"]["parameters"])
                       for fn, t in zip((get_order, block_card), tools, strict=True)]
    verdict = strict({"order_id": {"type": "string"}, "status": {"type": "string"}})
    llm = FakeLLM(model)
    got = frameworks.run("pydantic-ai", llm.client(max_retries=0), framework_tools, "Where is A-1001?", "Help.",
                         output=verdict)
    assert got == {"output": {"order_id": "A-1001", "status": "shipped"}, "error": None}
    assert len(llm.requests) == 2 and ran == ["get_order A-1001", "block_card"]
    for body in llm.requests:
        assert body["tools"] == tools + [as_tool("final_result", "The final response which ends this conversation",
                                                 verdict)]
        assert body["tool_choice"] == "required"
    assert [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"] == [
        json.dumps({"order_id": "A-1001", "status": "shipped"})]
