"""A deterministic fake LLM provider that speaks the real OpenAI wire protocol, and Anthropic's.

One engine, four faces:
    model = scenarios.taxi_spending().as_function()   # 1. a plain function
    llm = FakeLLM(scenarios.two_orders())              # dialect="openai" | "deepseek" | "ollama"
    llm = FakeLLM(sc, context_window=2000)             # a small window: overflow (engine.window)
    llm = FakeLLM("two_orders")                        # the same, by the scenario's name
    client = llm.client()                              # 2. a real openai.OpenAI, in-process
    with llm.serve() as base_url: ...                  # 3. real HTTP on 127.0.0.1
    claude = llm.anthropic_client()                    # 4. a real anthropic.Anthropic, in-process
    llm.requests, llm.calls                            # what the loop actually sent

The machinery lives in `workbook.engine`; this package is the public face above the scenarios.
"""

from __future__ import annotations

from workbook import scenarios
from workbook.engine import client_face
from workbook.engine.caching import cache_rule
from workbook.engine.client_face import FAKE_ANTHROPIC_URL, FAKE_BASE_URL
from workbook.engine.core import Outcome
from workbook.engine.function_face import FunctionModel, ModelError, TooManyCalls
from workbook.engine.messages_api import anthropic_tools
from workbook.engine.protocol import ProtocolError
from workbook.engine.tokens import prompt_tokens, tokens
from workbook.engine.window import WINDOWS

__all__ = ["FAKE_ANTHROPIC_URL", "FAKE_BASE_URL", "WINDOWS", "FakeLLM", "FunctionModel",
           "ModelError", "Outcome", "ProtocolError", "TooManyCalls", "anthropic_tools", "cache_rule",
           "prompt_tokens", "tokens"]


class FakeLLM(client_face.FakeLLM):
    """A fake provider playing one scenario, given as a Scenario or by its catalogue name."""

    def __init__(self, scenario, dialect: str = "openai", context_window: int | None = None,
                 hang_seconds: float = 5.0):
        if isinstance(scenario, str):
            scenario = scenarios.get(scenario)
        super().__init__(scenario, dialect, context_window, hang_seconds)
