"""Two agent frameworks on the fake model: the OpenAI Agents SDK and pydantic-ai (chapter 24).

Both frameworks want an `openai.AsyncOpenAI`; the fake (and, graded, the judge) hands out a sync
`openai.OpenAI`. `async_twin(client)` is an `AsyncOpenAI` whose requests go through the sync
client's own transport, so every request either framework sends is recorded by the same fake
(`llm.requests`), as the learner's own loop's are:

    agent, config = agents_sdk(client, tools, "You help with orders.")
    result = await agents.Runner.run(agent, question, run_config=config)     # in a notebook cell
    agent = pydantic_ai_agent(client, tools, "You help with orders.")
    result = await agent.run(question)

`run_adapted(adapt, specs, framework, client, question, instructions)` runs one framework on the
tools `adapt(specs, framework)` made, to the end, in a thread of its own (a notebook cell already runs an
event loop), and returns plain data: what a test hands the notebook to set a run up.
"""

from __future__ import annotations

import agents
import httpx2
import openai
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider as PydanticOpenAIProvider
from pydantic_ai.usage import UsageLimits

from workbook.mcp_servers import run_async

FRAMEWORKS = ("openai-agents", "pydantic-ai")  # the keys of an adapter's answer, besides "by hand"
MODEL = "fake-model"


class Bridge(httpx2.AsyncBaseTransport):
    """An async transport that hands each request to a sync one (the fake's, or the judge's link)."""

    def __init__(self, sync: httpx2.BaseTransport):
        self.sync = sync

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        plain = httpx2.Request(request.method, request.url, headers=request.headers, content=body)
        response = self.sync.handle_request(plain)
        content = response.read()  # the fake answers at once: reading it here blocks for no time
        return httpx2.Response(response.status_code, headers=response.headers, content=content,
                               request=request)


def async_twin(client: openai.OpenAI) -> openai.AsyncOpenAI:
    """An AsyncOpenAI that sends what it is asked to through `client`'s transport, with its
    base URL, key and `max_retries` (the openai SDK's retries stay the SDK's)."""
    transport = getattr(getattr(client, "_client", None), "_transport", None)
    if not isinstance(transport, httpx2.BaseTransport):
        raise TypeError(f"async_twin needs an openai.OpenAI client (from llm.client()), got {type(client).__name__}")
    return openai.AsyncOpenAI(api_key=client.api_key, base_url=client.base_url, max_retries=client.max_retries,
                              http_client=httpx2.AsyncClient(transport=Bridge(transport)))


def agents_sdk(client, tools: list, instructions: str, model: str = MODEL,
               settings: agents.ModelSettings | None = None, **agent_options):
    """(Agent, RunConfig) for the Agents SDK on `client`'s provider; tracing off (nothing leaves)."""
    provider = agents.OpenAIProvider(openai_client=async_twin(client))
    agent = agents.Agent(name="support", instructions=instructions, tools=list(tools), model=model,
                         model_settings=settings or agents.ModelSettings(), **agent_options)
    return agent, agents.RunConfig(model_provider=provider, tracing_disabled=True)


def pydantic_ai_agent(client, tools: list, instructions: str, model: str = MODEL, **agent_options):
    """A pydantic-ai Agent with its OpenAI (Chat Completions) model on `client`'s provider."""
    chat = OpenAIChatModel(model, provider=PydanticOpenAIProvider(openai_client=async_twin(client)))
    return PydanticAgent(chat, instructions=instructions, tools=list(tools), **agent_options)


def run(framework: str, client, tools: list, question: str, instructions: str, max_turns: int | None = None):
    """One run of `framework` to its end: {"output": the final text or None, "error": "Type: message" or None}."""
    if framework == "openai-agents":
        agent, config = agents_sdk(client, tools, instructions)
        turns = agents.run_config.DEFAULT_MAX_TURNS if max_turns is None else max_turns
        coroutine = lambda: agents.Runner.run(agent, question, run_config=config, max_turns=turns)  # noqa: E731
    elif framework == "pydantic-ai":
        agent = pydantic_ai_agent(client, tools, instructions)
        limits = None if max_turns is None else UsageLimits(request_limit=max_turns)
        coroutine = lambda: agent.run(question, usage_limits=limits)  # noqa: E731
    else:
        raise ValueError(f"unknown framework {framework!r}: one of {FRAMEWORKS}")
    try:
        result = run_async(coroutine, timeout=60.0)  # a cell's own loop is busy running the cell
    except Exception as e:  # a run the framework ended with an exception is an answer too
        return {"output": None, "error": f"{type(e).__name__}: {e}"}
    return {"output": str(result.final_output if framework == "openai-agents" else result.output), "error": None}


def run_adapted(adapt, specs: list, framework: str, client, question: str, instructions: str,
                max_turns: int | None = None):
    """Run `framework` on the tools `adapt(specs, framework)` made: run()'s answer."""
    made = adapt(specs, framework)
    if type(made) is not list:
        raise TypeError(f"the adapter should return a list of {framework}'s tools, got {type(made).__name__}")
    return run(framework, client, made, question, instructions, max_turns)
