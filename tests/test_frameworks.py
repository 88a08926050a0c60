"""workbook.frameworks: both frameworks run on the fake through the sync client's transport, and
the defaults chapter 24 states (docs/SOURCES.md, "Chapter 24") hold at the pinned versions."""

from __future__ import annotations

import agents
import pytest
from pydantic_ai import Tool

from workbook import frameworks, scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop


def test_async_twin_refuses_what_is_not_an_openai_client():
    with pytest.raises(TypeError, match="needs an openai.OpenAI client"):
        frameworks.async_twin(object())


def test_an_unknown_framework_is_named():
    with pytest.raises(ValueError, match="langchain"):
        frameworks.run("langchain", FakeLLM("two_orders").client(), [], "q", "s")


def test_both_frameworks_answer_and_the_fake_records_their_requests():
    shop = Shop()
    for framework, tools, api_key in (("openai-agents", [agents.function_tool(shop.get_order)], "input"),
                                      ("pydantic-ai", [Tool(shop.get_order)], "messages")):
        llm = FakeLLM("two_orders")
        got = frameworks.run(framework, llm.client(), tools, llm.scenario.question, "Help.")
        assert got["error"] is None and "A-1002" in got["output"], (framework, got)
        assert len(llm.requests) == 2 and all(api_key in body for body in llm.requests), framework


def test_the_defaults_the_chapter_states():
    shop = Shop()
    stated = {"openai-agents": (10, None, "An error occurred while running the tool. Please try again."),
              "pydantic-ai": (50, "auto", None)}
    for framework, (limit, choice, error) in stated.items():
        tools = [agents.function_tool(shop.get_order)] if framework == "openai-agents" else [Tool(shop.get_order)]
        never = FakeLLM(scenarios.repeat_forever())
        assert frameworks.run(framework, never.client(), tools, "q", "s")["error"] is not None
        assert len(never.requests) == limit and never.requests[0].get("tool_choice") == choice, framework
        missing = FakeLLM(scenarios.missing_order())
        frameworks.run(framework, missing.client(), tools, "q", "s")
        last = missing.requests[-1].get("input", [])
        sent = [i["output"] for i in last if isinstance(i, dict) and i.get("type") == "function_call_output"]
        assert (sent[-1] if sent else None) == error, framework
