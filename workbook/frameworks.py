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
event loop), and returns plain data: what a test hands the notebook to set a run up. `run(...,
output=schema)` asks pydantic-ai for structured output (`StructuredDict(schema)`): the run's output
is then the dict its `final_result` tool call carried.

Traces: `AgentsTrace()` is an Agents SDK trace processor that keeps the spans (installed with
`agents.set_trace_processors([...])` it is the only one: nothing is exported) and gives them back as
the course's span dicts (`workbook.trace.spans`), so `spans.tree` draws the SDK's trace beside
chapter 23's; `pydantic_ai_agent(..., tracer_provider=...)` switches pydantic-ai's OpenTelemetry
instrumentation on, into that provider (a `workbook.trace.otel.Recorder`'s).
"""

from __future__ import annotations

import threading
from datetime import datetime

import agents
import httpx2
import openai
from openai._base_client import get_platform
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import StructuredDict
from pydantic_ai.capabilities.instrumentation import Instrumentation
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider as PydanticOpenAIProvider
from pydantic_ai.usage import UsageLimits

from workbook.mcp_servers import run_async
from workbook.trace import genai
from workbook.trace import spans as span_data

FRAMEWORKS = ("openai-agents", "pydantic-ai")  # the keys of an adapter's answer, besides "by hand"
MODEL = "fake-model"
WORKERS_END = 5.0  # seconds to wait for a run's worker thread to end (it was told to when the run ended)


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
    twin = openai.AsyncOpenAI(api_key=client.api_key, base_url=client.base_url, max_retries=client.max_retries,
                              http_client=httpx2.AsyncClient(transport=Bridge(transport)))
    # Its first request would read the platform in the event loop's executor, a thread that lives as
    # long as the loop (a notebook's: a cell after it could not be forked); read here, as the sync
    # client reads it for every request.
    twin._platform = get_platform()
    return twin


def agents_sdk(client, tools: list, instructions: str, model: str = MODEL,
               settings: agents.ModelSettings | None = None, responses: bool = True, tracing: bool = False,
               **agent_options):
    """(Agent, RunConfig) for the Agents SDK on `client`'s provider; tracing off (nothing leaves)
    unless `tracing` (then to the SDK's trace processors). `responses=False`: its Chat Completions
    model, for a provider without the Responses API."""
    provider = agents.OpenAIProvider(openai_client=async_twin(client), use_responses=responses)
    agent = agents.Agent(name="support", instructions=instructions, tools=list(tools), model=model,
                         model_settings=settings or agents.ModelSettings(), **agent_options)
    return agent, agents.RunConfig(model_provider=provider, tracing_disabled=not tracing)


def pydantic_ai_agent(client, tools: list, instructions: str, model: str = MODEL, tracer_provider=None,
                      **agent_options):
    """A pydantic-ai Agent with its OpenAI (Chat Completions) model on `client`'s provider; with
    `tracer_provider`, its OpenTelemetry spans go there."""
    chat = OpenAIChatModel(model, provider=PydanticOpenAIProvider(openai_client=async_twin(client)))
    if tracer_provider is not None:
        traced = Instrumentation(settings=InstrumentationSettings(tracer_provider=tracer_provider))
        agent_options["capabilities"] = [*agent_options.get("capabilities", ()), traced]
    return PydanticAgent(chat, instructions=instructions, tools=list(tools), **agent_options)


def _ns(stamp: str | None) -> int:
    """An SDK span's ISO time as nanoseconds since the epoch (0 when it has none)."""
    return round(datetime.fromisoformat(stamp).timestamp() * 1e6) * 1000 if stamp else 0


def _name(data: dict) -> str:
    """An SDK span's name: its type, then what it names (`function get_order`, `turn 1`)."""
    kind = str(data.get("type"))
    if kind == "custom":  # the SDK's own kinds without a type of their own: a task, a turn
        inner = data.get("data")
        inner = inner if isinstance(inner, dict) else {}
        what = inner.get("name") or inner.get("turn") or ""
        return f"{inner.get('sdk_span_type') or data.get('name')} {what}".strip()
    return f"{kind} {data.get('name') or ''}".strip() if kind in ("agent", "function", "handoff", "guardrail") else kind


class AgentsTrace(agents.TracingProcessor):
    """Keeps the Agents SDK's finished spans; `spans()` gives them as the course's span dicts."""

    def __init__(self):
        self.exported: list[dict] = []

    def on_trace_start(self, trace) -> None:
        pass

    def on_trace_end(self, trace) -> None:
        pass

    def on_span_start(self, span) -> None:
        pass

    def on_span_end(self, span) -> None:
        exported = span.export()
        if exported is not None:
            self.exported.append(exported)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass

    def spans(self) -> list[dict]:
        """Each span as a span dict: named by its type and name (`function get_order`), a model
        call (`response`, `generation`) a CLIENT span with its tokens, a span with an error ERROR."""
        found = []
        for e in self.exported:
            data = e.get("span_data") or {}
            usage = data.get("usage") or {}
            tokens = {genai.INPUT_TOKENS: usage["input_tokens"], genai.OUTPUT_TOKENS: usage["output_tokens"]} \
                if "input_tokens" in usage and "output_tokens" in usage else {}
            parent = e.get("parent_id")
            found.append(span_data.span(
                _name(data), e["trace_id"][-32:], e["id"][-16:], parent[-16:] if parent else None,
                kind="CLIENT" if data.get("type") in ("response", "generation") else "INTERNAL",
                start_ns=_ns(e.get("started_at")), end_ns=max(_ns(e.get("ended_at")), _ns(e.get("started_at"))),
                attributes=tokens, status="ERROR" if e.get("error") else "UNSET"))
        return sorted(found, key=lambda s: s["start_ns"])


def _workers_ended(before: set[threading.Thread]) -> None:
    """Wait for the worker threads a run started (pydantic-ai runs a plain tool function in AnyIO's,
    told to stop when the run's loop ends, gone a moment later): nothing of a run outlives it."""
    for thread in set(threading.enumerate()) - before:
        if thread.name == "AnyIO worker thread":
            thread.join(WORKERS_END)


def run(framework: str, client, tools: list, question: str, instructions: str, max_turns: int | None = None,
        output: dict | None = None):
    """One run of `framework` to its end: {"output": the final text or None, "error": "Type: message" or None}.
    `output`, a JSON schema (pydantic-ai only): the output is the dict the model sent for it."""
    if output is not None and framework != "pydantic-ai":
        raise ValueError(f"structured output here is pydantic-ai's, not {framework!r}'s")
    if framework == "openai-agents":
        agent, config = agents_sdk(client, tools, instructions)
        turns = agents.run_config.DEFAULT_MAX_TURNS if max_turns is None else max_turns
        coroutine = lambda: agents.Runner.run(agent, question, run_config=config, max_turns=turns)  # noqa: E731
    elif framework == "pydantic-ai":
        kind = str if output is None else StructuredDict(output)
        agent = pydantic_ai_agent(client, tools, instructions, output_type=kind)
        limits = None if max_turns is None else UsageLimits(request_limit=max_turns)
        coroutine = lambda: agent.run(question, usage_limits=limits)  # noqa: E731
    else:
        raise ValueError(f"unknown framework {framework!r}: one of {FRAMEWORKS}")
    before = set(threading.enumerate())
    try:
        result = run_async(coroutine, timeout=60.0)  # a cell's own loop is busy running the cell
    except Exception as e:  # a run the framework ended with an exception is an answer too
        return {"output": None, "error": f"{type(e).__name__}: {e}"}
    finally:
        _workers_ended(before)
    if output is not None:
        return {"output": dict(result.output), "error": None}
    return {"output": str(result.final_output if framework == "openai-agents" else result.output), "error": None}


def run_adapted(adapt, specs: list, framework: str, client, question: str, instructions: str,
                max_turns: int | None = None):
    """Run `framework` on the tools `adapt(specs, framework)` made: run()'s answer."""
    made = adapt(specs, framework)
    if type(made) is not list:
        raise TypeError(f"the adapter should return a list of {framework}'s tools, got {type(made).__name__}")
    return run(framework, client, made, question, instructions, max_turns)
