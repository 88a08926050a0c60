# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 23 · Traces
#
# Chapter 09 wrote each run down as a **trajectory**: JSON Lines that only this workbook reads.
# Outside it, agent runs are written down as **traces** in OpenTelemetry's format, and read by
# Langfuse, LangSmith, Phoenix, Logfire, Jaeger, Grafana and every other tool that speaks it. A
# trace is a tree of **spans**: one for the run, one for each model call, one for each tool call,
# each with a start, an end, a status and named attributes. OpenTelemetry's **GenAI semantic
# conventions** say which names: `gen_ai.operation.name`, `gen_ai.usage.input_tokens`,
# `gen_ai.tool.call.id` and the rest. Write your spans with those names and any of those tools
# shows your loop; write them carelessly and the trace says something that did not happen.
#
# **Learning goals.** After this chapter you can
# - make a `chat {model}` span for a model call with the conventions' attributes, send its
#   W3C `traceparent` to the provider, and record the messages only when the user opted in,
#   with secrets masked;
# - make `execute_tool {name}` spans for parallel tool calls, hung under the model call that asked
#   for them even from worker threads, with a failure as an ERROR status, never as OK;
# - read a trace: a run, a retried 429, a team as nested agents, and the bill computed from the
#   spans alone, equal to chapter 15's;
# - say what the official OpenAI instrumentation records that your spans do not, and the reverse.
#
# **Time:** about 75 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop), 04 · Parallel tool calls (threads),
# 08 · Timeouts, retries and idempotency keys, 09 · Trajectories, checkpoints and a human in the
# loop, 14 · One agent or a team, 15 · Why the bill grows: tokens, prices, caching (`cost`),
# 17 · Agent memory (`mask`). What you need from them is restated below as given code.

# %% [markdown]
# ## Given code
#
# `AgentResult` and `assistant_turn` as in chapter 22; `mask` as you wrote it in chapter 17, `cost`
# as you wrote it in chapter 15.
# `recorder` is an OpenTelemetry `TracerProvider` of this notebook's own that keeps every finished
# span in memory (`workbook.trace.otel.Recorder`); `tracer` makes spans; `recorder.spans()` gives
# the finished ones back as plain dicts, and `recorder.tree()` draws them. `genai` holds the
# conventions' names, read from the `opentelemetry-semantic-conventions` package. `inside` runs a
# function inside a span of its own (the tests use it to give your code a parent).
#
# The tests hand your functions a tracer of their own, `otel.tracer_for(sink.export)`: a real
# tracer in this notebook that sends each span, when it ends, as a dict to the test's **sink**
# (`workbook.trace.sink`), and the sink keeps only the spans of the test's own call. That is what
# their asserts read, so write spans with the `tracer` you are given, never with a global one.

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import openai
from opentelemetry import propagate
from opentelemetry.trace import SpanKind, Status, StatusCode

from workbook import scenarios, trace
from workbook.fake_llm import FakeLLM
from workbook.prices import PRICES
from workbook.shop import Shop
from workbook.trace import genai, otel, spans


#@include 02_the_loop AgentResult


#@include 22_streaming assistant_turn


#@include 17_agent_memory mask


#@include 15_why_the_bill_grows cost


inside = otel.inside  # fn(*args, **kwargs) called inside a span of its own: a parent, for the tests to give


recorder = otel.Recorder()
tracer = recorder.tracer

# %% [markdown]
# ## Part 1 · A span
#
# A span is one operation with a beginning and an end. `tracer.start_as_current_span(name)` opens
# one for the `with` block and makes it the **current** span: a span opened inside the block
# becomes its child. Here is a run with one model call inside it:

# %%
recorder.clear()
with tracer.start_as_current_span("invoke_agent support") as run:
    run.set_attribute(genai.OPERATION_NAME, genai.INVOKE_AGENT)
    with tracer.start_as_current_span("chat fake-model", kind=SpanKind.CLIENT) as call:
        call.set_attribute(genai.OPERATION_NAME, genai.CHAT)
        call.set_attribute(genai.INPUT_TOKENS, 96)
        call.set_attribute(genai.OUTPUT_TOKENS, 91)
print(json.dumps(recorder.spans()[1], indent=1))
print(recorder.tree())

# %% [markdown]
# Every span has
#
# | field | what it is |
# |---|---|
# | `trace_id` | 32 hex digits, the same for every span of one trace (one run, here) |
# | `span_id`, `parent_id` | this span's 16 hex digits, and its parent's (`None` at the top) |
# | `kind` | `CLIENT` for a call to another service (the model's API), `INTERNAL` for work inside the process |
# | `start_ns`, `end_ns` | nanoseconds since 1970: the duration is their difference |
# | `attributes` | named values: strings, numbers, booleans and lists of them (never a dict) |
# | `status` | `UNSET` (the default: nothing went wrong), `OK`, or `ERROR` with a description |
# | `events` | things that happened at a moment inside the span, such as an `exception` |
#
# ## Part 2 · The GenAI conventions
#
# OpenTelemetry's semantic conventions for generative AI name the spans and their attributes. They
# are in **Development** status: names can still change, so read them from one place —
# `genai.OPERATION_NAME` rather than the string typed out. This course follows them as the
# `opentelemetry-semantic-conventions` package **0.66b2** ships them (docs/SOURCES.md). In that
# package every `gen_ai.*` name is marked "Deprecated: Moved to the OpenTelemetry GenAI semantic
# conventions repository": the names are the same, only their home moved, to
# [semantic-conventions-genai](https://github.com/open-telemetry/semantic-conventions-genai), where
# they go on changing. One change is on its way there (on `main`, not released yet): the token
# metric `gen_ai.client.token.usage` is replaced by separate input and output token metrics.
#
# | span | name | kind | attributes |
# |---|---|---|---|
# | the run | `invoke_agent {agent}` | INTERNAL | `gen_ai.operation.name` = `invoke_agent`, `gen_ai.agent.name`, `gen_ai.conversation.id` |
# | a model call | `chat {model}` | CLIENT | operation `chat`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.response.finish_reasons` (a list), `gen_ai.usage.input_tokens` (cached ones included), `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens` |
# | a tool call | `execute_tool {name}` | INTERNAL | operation `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id` |
# | a failure (any span) | | | status `ERROR`, `error.type` (an exception's class name), an `exception` event |
#
# **Content is opt-in.** The messages (`gen_ai.input.messages`, `gen_ai.output.messages`) and a
# tool's arguments and result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) are
# recorded only when the user asks for it: they hold what customers wrote, and a trace store is
# read by more people than the chat was. Even then, mask the secrets first (chapter 17). The
# messages go in the conventions' shape, a role and typed parts (`spans.to_parts` makes it):

# %%
print(json.dumps(spans.to_parts([{"role": "user", "content": "Where is A-1001?"},
                                 {"role": "assistant", "content": None, "tool_calls": [
                                     {"id": "call_1", "type": "function",
                                      "function": {"name": "get_order", "arguments": '{"order_id": "A-1001"}'}}]}])))

# %% [markdown]
# A trajectory from chapter 09 says the same things as a trace, in fewer words. `workbook.trace`
# turns one into the other: one `chat` span per step (its `ms` is the span's duration), the
# step's tool calls under it. Back again, the trajectory is the one you started from:

# %%
traj = trace.sample("two_orders")
as_spans = spans.from_trajectory(traj, agent="support", content=True)
print(spans.tree(as_spans))
back = spans.to_trajectory(as_spans)
fields = [(s.step, s.thought, s.tool, s.input, s.result_preview, s.tokens_in, s.tokens_out, s.ms, s.messages,
           s.more_calls) for s in traj.steps]
print("the same steps back:", fields == [(s.step, s.thought, s.tool, s.input, s.result_preview, s.tokens_in,
                                          s.tokens_out, s.ms, s.messages, s.more_calls) for s in back.steps])
print("the same summary back:", (back.status, back.answer, back.totals()) == (traj.status, traj.answer, traj.totals()))

# %% [markdown]
# Why a tool span is the model call's child here: a **step** is one model call plus the tool
# calls of its reply, so the tree reads like the trajectory. The tool spans start after their
# parent ended; OpenTelemetry allows that (a parent names who caused a span, not a time box).
# Some frameworks hang tools under the run instead, beside the model calls; either way the tool
# span must be in the run's trace.
#
# ## Part 3 · A trace crosses to the provider
#
# The W3C **Trace Context** header names the current span on an outgoing request:
# `traceparent: 00-<trace_id>-<span_id>-<flags>`. A service that reads it (a tool server or a
# gateway you run, an MCP server: MCP carries it in `params._meta`) makes its own spans children
# of yours, and the two halves of the trace join up. Whether a model provider reads it we could
# not confirm: no public LLM API documents it. Sending it costs nothing, and your side of the trace
# is whole either way.
# `propagate.inject(headers)` writes it for the current span; the openai SDK sends extra headers
# with `extra_headers=`. The fake records the header of every request in `llm.traceparents`:

# %%
llm = FakeLLM(scenarios.scripted("Hello."))
recorder.clear()
with tracer.start_as_current_span("chat fake-model", kind=SpanKind.CLIENT):
    headers = {}
    propagate.inject(headers)
    llm.client().chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}],
                                         extra_headers=headers)
print(headers)
print(llm.traceparents, recorder.spans()[0]["span_id"])

# %% [markdown]
# ## Exercise 1 — `traced_chat` (4 points)
#
# Write `traced_chat(tracer, client, model, messages, tools, record_content=False)`. It makes one
# model call, `client.chat.completions.create(model=model, messages=messages, tools=tools)`,
# inside one span, and returns `(response, traceparent)`:
#
# - the span is named `chat {model}`, kind `CLIENT`, and is the **current** span during the call;
# - before the call it has `gen_ai.operation.name` = `"chat"`, `gen_ai.provider.name` =
#   `"openai"` and `gen_ai.request.model` = `model`;
# - the request carries the span's `traceparent` header (`propagate.inject` into a dict, sent as
#   `extra_headers`), and `traceparent` returned is that header's value;
# - after the call: `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.response.finish_reasons`
#   (the list of every choice's `finish_reason`), `gen_ai.usage.input_tokens` (`prompt_tokens`),
#   `gen_ai.usage.output_tokens` (`completion_tokens`) and, when the usage has
#   `prompt_tokens_details`, `gen_ai.usage.cache_read.input_tokens` (its `cached_tokens`);
# - only with `record_content=True`: `gen_ai.input.messages` =
#   `mask(json.dumps(spans.to_parts(messages)))` and `gen_ai.output.messages` = the same for
#   `[response.choices[0].message.model_dump(exclude_none=True)]`; without it, no content at all;
# - a call that raises (a 429, a 400, a connection error) leaves the span with status `ERROR`, an
#   `exception` event and `error.type` = the exception's class name (`"RateLimitError"`), and the
#   exception goes on to the caller. `start_as_current_span` sets the status and the event for an
#   exception that leaves the block; `error.type` is yours to set.

# %% nbgrader={"grade": false, "grade_id": "traced_chat", "locked": false, "schema_version": 3, "solution": true}
def traced_chat(tracer, client, model, messages, tools, record_content=False):
    """One model call in a `chat {model}` span: (response, the traceparent sent with it)."""
    ### BEGIN SOLUTION
    with tracer.start_as_current_span(f"chat {model}", kind=SpanKind.CLIENT) as span:
        span.set_attribute(genai.OPERATION_NAME, genai.CHAT)
        span.set_attribute(genai.PROVIDER_NAME, genai.OPENAI)
        span.set_attribute(genai.REQUEST_MODEL, model)
        if record_content:
            span.set_attribute(genai.INPUT_MESSAGES, mask(json.dumps(spans.to_parts(messages))))
        headers = {}
        propagate.inject(headers)
        try:
            response = client.chat.completions.create(model=model, messages=messages, tools=tools,
                                                      extra_headers=headers)
        except Exception as e:
            span.set_attribute(genai.ERROR_TYPE, type(e).__name__)
            raise  # the block records the exception and sets ERROR on its way out
        span.set_attribute(genai.RESPONSE_MODEL, response.model)
        span.set_attribute(genai.RESPONSE_ID, response.id)
        span.set_attribute(genai.FINISH_REASONS, [c.finish_reason for c in response.choices])
        span.set_attribute(genai.INPUT_TOKENS, response.usage.prompt_tokens)
        span.set_attribute(genai.OUTPUT_TOKENS, response.usage.completion_tokens)
        details = response.usage.prompt_tokens_details
        if details is not None and details.cached_tokens is not None:
            span.set_attribute(genai.CACHE_READ_TOKENS, details.cached_tokens)
        if record_content:
            reply = response.choices[0].message.model_dump(exclude_none=True)
            span.set_attribute(genai.OUTPUT_MESSAGES, mask(json.dumps(spans.to_parts([reply]))))
        return response, headers["traceparent"]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "traced_chat_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: traced_chat makes one `chat {model}` CLIENT span with the operation, provider,
request and response model, response id, finish reasons and tokens; the request carries its
traceparent, which it returns; no content without record_content, the messages masked with it; a
429 is an ERROR span with an exception event and error.type RateLimitError, raised on."""
import openai

from workbook.checks import fresh
from workbook.notebook_side import notebook_side

tracer_for = notebook_side("workbook.trace.otel:tracer_for")  # runs in your notebook, as your code does

wb = fresh()
S, G = wb.scenarios, wb.trace.genai
scenario = S.two_orders()
messages = [{"role": "user", "content": "Where are A-1001 and A-1002? I am ann@example.com"}]
want = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=messages, tools=scenario.openai_tools())
llm = wb.fake_llm.FakeLLM(scenario)
sink = wb.trace.sink.Sink()
traced = tracer_for(sink.export)  # a tracer in the notebook whose spans go to this test's sink
with wb.checks.no_raise("traced_chat(tracer, client, 'fake-model', messages, tools)",
                        hint="call propagate.inject(headers) inside the with block, while the chat span is current: outside a span it writes nothing"), sink.collecting():
    got = traced_chat(traced, llm.client(), "fake-model", messages, scenario.openai_tools())
assert type(got) is tuple and len(got) == 2, "traced_chat returns (response, traceparent)"
found = sink.spans("the spans of one traced_chat")
wb.checks.equal(len(found), 1, "how many spans one model call makes")
span = found[0]
wb.checks.equal((span["name"], span["kind"]), ("chat fake-model", "CLIENT"), "the span's (name, kind)")
keys = (G.OPERATION_NAME, G.PROVIDER_NAME, G.REQUEST_MODEL, G.RESPONSE_MODEL, G.RESPONSE_ID,
        G.FINISH_REASONS, G.INPUT_TOKENS, G.OUTPUT_TOKENS)
wb.checks.equal({k: span["attributes"].get(k) for k in keys},
                {G.OPERATION_NAME: "chat", G.PROVIDER_NAME: "openai", G.REQUEST_MODEL: "fake-model",
                 G.RESPONSE_MODEL: "fake-model", G.RESPONSE_ID: want.id, G.FINISH_REASONS: ["tool_calls"],
                 G.INPUT_TOKENS: want.usage.prompt_tokens, G.OUTPUT_TOKENS: want.usage.completion_tokens},
                "the span's attributes", "finish_reasons is a list; the tokens come from response.usage")
wb.checks.equal([k for k in span["attributes"] if k in G.CONTENT], [], "content attributes without record_content")
assert type(got[1]) is str and got[1].count("-") == 3, (
    f"the traceparent returned should be the header's text '00-<trace_id>-<span_id>-<flags>', got {got[1]!r}: "
    "call propagate.inject(headers) inside the with block, while the chat span is current: outside a span it writes nothing")
wb.checks.equal(llm.traceparents, [got[1]], "the traceparent the provider received, and the one returned",
                "propagate.inject into a dict inside the span; send it as extra_headers")
wb.checks.equal(got[1].split("-")[1:3], [span["trace_id"], span["span_id"]], "the traceparent's trace and span ids",
                "inject while the chat span is the current one")

with wb.checks.no_raise("traced_chat(..., record_content=True)",
                        hint="gen_ai.input.messages is mask(json.dumps(spans.to_parts(messages)))"), sink.collecting():
    traced_chat(traced, wb.fake_llm.FakeLLM(scenario).client(), "fake-model", messages,
                scenario.openai_tools(), record_content=True)
attrs = sink.spans("the spans of traced_chat with record_content")[0]["attributes"]
sent = attrs.get(G.INPUT_MESSAGES)
assert type(sent) is str and "A-1001" in sent, f"with record_content, {G.INPUT_MESSAGES} holds the messages as JSON text"
assert "ann@example.com" not in sent and "[email]" in sent, "mask the messages before they go into the span"
assert type(attrs.get(G.OUTPUT_MESSAGES)) is str, f"with record_content, {G.OUTPUT_MESSAGES} holds the reply"

with wb.checks.raises(openai.RateLimitError, what="traced_chat on a 429"), sink.collecting():
    traced_chat(traced, wb.fake_llm.FakeLLM(S.rate_limited(1)).client(max_retries=0), "fake-model",
                messages, scenario.openai_tools())
failed = sink.spans("the spans after a 429")
wb.checks.equal([(s["status"], s["attributes"].get(G.ERROR_TYPE)) for s in failed], [("ERROR", "RateLimitError")],
                "the failed call's (status, error.type)", "let the exception leave the with block; set error.type first")
wb.checks.equal([e["name"] for e in failed[0]["events"]], ["exception"], "the failed call's events")
print("traced_chat: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "traced_chat_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: the exact attributes on another model and a text reply, cached tokens on a
repeated long prompt, two calls are two traces each with its own traceparent, the span is a child
of the current span, a card number and a key masked in both messages, a 400 and a 500 recorded."""
### BEGIN HIDDEN TESTS
import json

import openai

from workbook.checks import fresh
from workbook.notebook_side import notebook_side

tracer_for = notebook_side("workbook.trace.otel:tracer_for")
inside = notebook_side("workbook.trace.otel:inside")

wb = fresh()
S, G = wb.scenarios, wb.trace.genai
text = S.scripted("Your card 4111 1111 1111 1111 is blocked.")
messages = [{"role": "system", "content": "Be brief. " * 600}, {"role": "user", "content": "block sk-proj-AbC123xyz789LmNoPqRs"}]
llm = wb.fake_llm.FakeLLM(text)
want = wb.fake_llm.FakeLLM(text).client().chat.completions.create(model="gpt-5-mini", messages=messages, tools=[])
sink = wb.trace.sink.Sink()
traced = tracer_for(sink.export)
with wb.checks.no_raise("traced_chat twice", hint="cached_tokens is in usage.prompt_tokens_details; mask both "
                        "messages"), sink.collecting():
    first = traced_chat(traced, llm.client(), "gpt-5-mini", messages, [])
    second = traced_chat(traced, llm.client(), "gpt-5-mini", messages, [], record_content=True)
found = sink.spans("the spans of two calls")
wb.checks.equal([s["name"] for s in found], ["chat gpt-5-mini"] * 2, "span names")
a = found[0]["attributes"]
wb.checks.equal((a.get(G.FINISH_REASONS), a.get(G.INPUT_TOKENS), a.get(G.OUTPUT_TOKENS), a.get(G.RESPONSE_MODEL)),
                (["stop"], want.usage.prompt_tokens, want.usage.completion_tokens, "gpt-5-mini"), "a text reply's attributes")
wb.checks.equal(a.get(G.CACHE_READ_TOKENS), 0, "cache_read on the first call")
cached = found[1]["attributes"].get(G.CACHE_READ_TOKENS)
assert type(cached) is int and cached >= 1024, f"the second call of a long prompt is cached: cache_read {cached!r}"
wb.checks.equal(len({s["trace_id"] for s in found}), 2, "two calls outside any span: two traces")
wb.checks.equal(llm.traceparents, [first[1], second[1]], "each request's traceparent")
wb.checks.equal([t.split("-")[2] if type(t) is str else t for t in llm.traceparents], [s["span_id"] for s in found],
                "the span each request's traceparent names", "inject inside the with block: it names the chat span")
content = found[1]["attributes"][G.INPUT_MESSAGES] + found[1]["attributes"][G.OUTPUT_MESSAGES]
assert "sk-proj" not in content and "4111" not in content and "[key]" in content and "[card]" in content, \
    "mask both the messages sent and the reply"
parts = json.loads(found[1]["attributes"][G.INPUT_MESSAGES])
wb.checks.equal(parts[1]["parts"][0]["content"], "block [key]", "the input messages in the conventions' shape")

with wb.checks.no_raise("traced_chat inside a run's span (the given inside())",
                        hint="start_as_current_span makes the chat span a child of the current one"), sink.collecting():
    inside(traced, "invoke_agent test", traced_chat, traced, wb.fake_llm.FakeLLM(text).client(), "fake-model",
           messages[1:], [])
inner, outer = sorted(sink.spans("the spans of a call inside a run"), key=lambda s: s["name"])
wb.checks.equal((inner["parent_id"], inner["trace_id"]), (outer["span_id"], outer["trace_id"]),
                "the chat span's parent inside a run", "use start_as_current_span")

bad_model = S.scripted(S.server_error(500))
for scenario, error, name in ((text, openai.BadRequestError, "BadRequestError"),
                              (bad_model, openai.InternalServerError, "InternalServerError")):
    broken = [{"role": "tool", "content": "x", "tool_call_id": "nope"}] if name == "BadRequestError" else messages[1:]
    with wb.checks.raises(error, what=f"traced_chat on a {name}"), sink.collecting():
        traced_chat(traced, wb.fake_llm.FakeLLM(scenario).client(max_retries=0), "fake-model", broken, [])
    (s,) = sink.spans(f"the spans of a {name}")
    wb.checks.equal((s["status"], s["attributes"].get(G.ERROR_TYPE)), ("ERROR", name), f"a {name}'s span")
    assert G.RESPONSE_ID not in s["attributes"], "a failed call has no response attributes"
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — `traced_tools` (4 points)
#
# Write `traced_tools(tracer, parent, tool_calls, impl, record_content=False)`. It runs every
# call of one reply **at the same time** (one worker thread each, as in chapter 04) and returns
# their tool messages `{"role": "tool", "tool_call_id": call.id, "content": observation}` in the
# order of `tool_calls`. Each call runs inside its own span:
#
# - named `execute_tool {name}`, kind `INTERNAL`, with `gen_ai.operation.name` =
#   `"execute_tool"`, `gen_ai.tool.name` and `gen_ai.tool.call.id` (`call.id`);
# - a **child of `parent`**: `parent` is the traceparent `traced_chat` returned, the model call
#   that asked for the tools. A worker thread does not inherit the current span (OpenTelemetry
#   keeps it in a context variable, and a pool's threads start with an empty one), so read the
#   parent into a context, `propagate.extract({"traceparent": parent})`, and hand it to
#   `start_as_current_span(..., context=ctx)` in the thread;
# - the observation is `impl[name](**json.loads(arguments))` as text (`json.dumps` unless it is a
#   `str`); when that raises — an unknown tool (`KeyError`), arguments that are not JSON, a tool
#   that fails — the observation is `{"error": "<name> failed: <ExceptionName>: <message>"}` as
#   JSON text, and the span gets status `ERROR`, the `exception` event (`span.record_exception`)
#   and `error.type` = the exception's class name. Catching the exception is right (the loop goes
#   on); leaving the span `UNSET` or `OK` after it is not;
# - only with `record_content=True`: `gen_ai.tool.call.arguments` = `mask(arguments)` and
#   `gen_ai.tool.call.result` = `mask(observation)`.

# %% nbgrader={"grade": false, "grade_id": "traced_tools", "locked": false, "schema_version": 3, "solution": true}
def traced_tools(tracer, parent, tool_calls, impl, record_content=False):
    """Run one reply's tool calls in parallel, each in an `execute_tool` span under `parent`."""
    ### BEGIN SOLUTION
    context = propagate.extract({"traceparent": parent})

    def run(call):
        name, arguments = call.function.name, call.function.arguments
        with tracer.start_as_current_span(f"execute_tool {name}", context=context, kind=SpanKind.INTERNAL) as span:
            span.set_attribute(genai.OPERATION_NAME, genai.EXECUTE_TOOL)
            span.set_attribute(genai.TOOL_NAME, name)
            span.set_attribute(genai.TOOL_CALL_ID, call.id)
            if record_content:
                span.set_attribute(genai.TOOL_CALL_ARGUMENTS, mask(arguments))
            try:
                result = impl[name](**json.loads(arguments))
                observation = result if isinstance(result, str) else json.dumps(result)
            except Exception as e:  # news for the model, and an error in the trace
                span.record_exception(e)
                span.set_status(Status(StatusCode.ERROR, f"{type(e).__name__}: {e}"))
                span.set_attribute(genai.ERROR_TYPE, type(e).__name__)
                observation = json.dumps({"error": f"{name} failed: {type(e).__name__}: {e}"})
            if record_content:
                span.set_attribute(genai.TOOL_CALL_RESULT, mask(observation))
            return {"role": "tool", "tool_call_id": call.id, "content": observation}

    with ThreadPoolExecutor(max_workers=max(1, len(tool_calls))) as pool:
        return list(pool.map(run, tool_calls))
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "traced_tools_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: traced_tools returns the tool messages in order; each call is an `execute_tool`
INTERNAL span with the tool's name and call id, a child of the given parent; two calls run at the
same time and their spans overlap; a failing tool is an error observation and an ERROR span with
error.type; a text result is the observation as it is; no content without record_content, masked
with it."""
import json

from workbook.checks import fresh
from workbook.notebook_side import notebook_side

tracer_for = notebook_side("workbook.trace.otel:tracer_for")  # runs in your notebook, as your code does

wb = fresh()
S, G = wb.scenarios, wb.trace.genai
trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
parent = f"00-{trace_id}-{parent_id}-01"
scenario = S.two_orders()
calls = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "A-1001 and A-1002?"}],
    tools=scenario.openai_tools()).choices[0].message.tool_calls
probe = wb.checks.Overlap(2, hold=2.0)
sink = wb.trace.sink.Sink()
traced = tracer_for(sink.export)  # a tracer in the notebook whose spans go to this test's sink
with wb.checks.no_raise("traced_tools(tracer, parent, calls, impl)", hint="a failing tool is an error observation"), \
        sink.collecting():
    out = traced_tools(traced, parent, calls, {"get_order": probe.tool("get_order")})
wb.checks.equal(out, [{"role": "tool", "tool_call_id": c.id, "content": json.dumps({"order_id": k, "tool": "get_order"})}
                      for c, k in zip(calls, ("A-1001", "A-1002"), strict=True)], "the tool messages, in order")
wb.checks.equal(len(probe.together), 2, "calls running at the same time", "one worker thread per call")
found = sink.spans("the spans of two tool calls")
by_id = {s["attributes"].get(G.TOOL_CALL_ID): s for s in found}
wb.checks.equal(sorted(by_id), sorted(c.id for c in calls), "the spans' gen_ai.tool.call.id")
for s in found:
    wb.checks.equal((s["name"], s["kind"], s["attributes"].get(G.OPERATION_NAME), s["attributes"].get(G.TOOL_NAME)),
                    ("execute_tool get_order", "INTERNAL", "execute_tool", "get_order"), "a tool span")
    wb.checks.equal((s["trace_id"], s["parent_id"]), (trace_id, parent_id), "a tool span's (trace_id, parent_id)",
                    "propagate.extract the parent and pass context= in the worker thread")
    wb.checks.equal(s["status"], "UNSET", "a tool span that did not fail")
    wb.checks.equal([k for k in s["attributes"] if k in G.CONTENT], [], "content attributes without record_content")
one, two = found
assert one["start_ns"] < two["end_ns"] and two["start_ns"] < one["end_ns"], \
    "two calls that ran at the same time have spans that overlap in time"

fails = S.scripted(S.calls(S.Call("refund", {"order_id": "A-1001", "amount": 2450}),
                           S.Call("get_order", {"order_id": "ann@example.com"})), tools=("refund", "get_order"))
calls = wb.fake_llm.FakeLLM(fails).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "refund"}], tools=fails.openai_tools()).choices[0].message.tool_calls


def refund(order_id, amount):
    raise PermissionError("refunds over 1000 KZT need approval")


with wb.checks.no_raise("traced_tools with a failing tool", hint="catch it: the observation says what failed"), \
        sink.collecting():
    out = traced_tools(traced, parent, calls, {"refund": refund, "get_order": lambda order_id: {"order_id": order_id}},
                       record_content=True)
error = wb.checks.error_text(out[0]["content"], "the failing refund's observation")
assert "PermissionError" in error and "approval" in error, f"the error observation names the exception: {error!r}"
spans_by_tool = {s["attributes"].get(G.TOOL_NAME): s for s in sink.spans("the spans of a failing and a working tool")}
failed = spans_by_tool["refund"]
wb.checks.equal((failed["status"], failed["attributes"].get(G.ERROR_TYPE)), ("ERROR", "PermissionError"),
                "the failing tool's (status, error.type)", "set the status to ERROR: the call failed")
wb.checks.equal([e["name"] for e in failed["events"]], ["exception"], "the failing tool's events", "span.record_exception(e)")
looked_up = spans_by_tool["get_order"]["attributes"]
for key in (G.TOOL_CALL_ARGUMENTS, G.TOOL_CALL_RESULT):
    value = looked_up.get(key)
    assert type(value) is str and "[email]" in value and "ann@example.com" not in value, \
        f"with record_content, {key} holds the text masked: got {value!r}"
with wb.checks.no_raise("traced_tools with a tool that returns text", hint="a str result is the observation as it is"), \
        sink.collecting():
    out = traced_tools(traced, parent, calls[1:], {"get_order": lambda order_id: "Order A-1001 is shipped."})
wb.checks.equal([m.get("content") for m in out], ["Order A-1001 is shipped."], "the observation of a tool that returns text",
                "json.dumps the result unless it is a str: a text goes as it is")
print("traced_tools: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "traced_tools_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: three calls at once, in order, all under the parent; an unknown tool and bad JSON
arguments as ERROR spans (KeyError, JSONDecodeError); a text result kept as it is; a tool that
returns no error stays UNSET; no calls give no spans; content only with the flag."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh
from workbook.notebook_side import notebook_side

tracer_for = notebook_side("workbook.trace.otel:tracer_for")

wb = fresh()
S, G = wb.scenarios, wb.trace.genai
trace_id, parent_id = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
parent = f"00-{trace_id}-{parent_id}-01"
three = S.scripted(S.calls(*(S.Call("get_order", {"order_id": f"A-100{i}"}) for i in (3, 1, 2))), tools=("get_order",))
calls = wb.fake_llm.FakeLLM(three).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "orders"}], tools=three.openai_tools()).choices[0].message.tool_calls
probe = wb.checks.Overlap(3, hold=2.0)
sink = wb.trace.sink.Sink()
traced = tracer_for(sink.export)
with wb.checks.no_raise("traced_tools on three calls", hint="one worker thread per call, each span under the "
                        "parent (propagate.extract)"), sink.collecting():
    out = traced_tools(traced, parent, calls, {"get_order": probe.tool("get_order")})
wb.checks.equal([m["tool_call_id"] for m in out], [c.id for c in calls], "the tool messages' order")
wb.checks.equal(len(probe.together), 3, "three calls at the same time")
found = sink.spans("the spans of three tool calls")
wb.checks.equal(sorted((s["trace_id"], s["parent_id"], s["attributes"].get(G.TOOL_CALL_ID)) for s in found),
                sorted((trace_id, parent_id, c.id) for c in calls), "three spans under the parent")
starts, ends = [s["start_ns"] for s in found], [s["end_ns"] for s in found]
assert max(starts) < min(ends), "three calls at once: every span starts before any ends"

odd = S.scripted(S.calls(S.Call("nope", {}), S.Call("get_order", {"order_id": "A-1"}), S.Call("note", {"text": "x"})),
                 tools=("get_order",))
calls = wb.fake_llm.FakeLLM(odd).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "x"}], tools=odd.openai_tools()).choices[0].message.tool_calls
calls[1].function.arguments = '{"order_id": '
with wb.checks.no_raise("traced_tools on an unknown tool and bad arguments",
                        hint="an unknown tool and bad JSON are error observations and ERROR spans"), sink.collecting():
    out = traced_tools(traced, parent, calls, {"get_order": lambda order_id: order_id, "note": lambda text: "noted: " + text})
assert "nope" in wb.checks.error_text(out[0]["content"], "an unknown tool's observation"), "an unknown tool's error observation names the tool"
assert "JSONDecodeError" in wb.checks.error_text(out[1]["content"], "bad arguments' observation"), "arguments that are not JSON: the error observation names JSONDecodeError"
wb.checks.equal(out[2]["content"], "noted: x", "a text result, as it is")
by_name = {s["name"]: s for s in sink.spans("the spans of failing tools")}
wb.checks.equal({n: (s["status"], s["attributes"].get(G.ERROR_TYPE)) for n, s in by_name.items()},
                {"execute_tool nope": ("ERROR", "KeyError"), "execute_tool get_order": ("ERROR", "JSONDecodeError"),
                 "execute_tool note": ("UNSET", None)}, "each span's (status, error.type)")
wb.checks.equal([k for s in by_name.values() for k in s["attributes"] if k in G.CONTENT], [], "content without the flag")

with wb.checks.no_raise("traced_tools with no calls",
                        hint="no calls: no messages and no spans (a pool needs max_workers >= 1)"), sink.collecting():
    out = traced_tools(traced, parent, [], {})
wb.checks.equal((out, sink.spans("the spans of no calls")), ([], []), "no calls: no messages and no spans")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · The whole loop, traced
#
# `run_traced` is chapter 03's loop with your two functions in it and one `invoke_agent` span
# around the run. It retries a 429 by hand, once (chapter 08; the fake needs no wait), so each
# attempt is a model call of its own, and a span of its own. (A retry the SDK makes inside one
# `create`, with `max_retries`, is one call to your code: the conventions say its span covers
# every attempt, and the trace cannot show them.)

# %% nbgrader={"grade": false, "grade_id": "run_traced", "locked": true, "schema_version": 3, "solution": false}
def run_traced(client, model, question, impl, tools, *, agent="support", conversation_id=None,
               max_steps=6, record_content=False):
    """The loop in an `invoke_agent {agent}` span; a 429 is retried once, as a model call of its own."""
    with tracer.start_as_current_span(f"invoke_agent {agent}") as run:
        run.set_attribute(genai.OPERATION_NAME, genai.INVOKE_AGENT)
        run.set_attribute(genai.AGENT_NAME, agent)
        run.set_attribute(genai.PROVIDER_NAME, genai.OPENAI)
        if conversation_id is not None:
            run.set_attribute(genai.CONVERSATION_ID, conversation_id)
        messages = [{"role": "user", "content": question}]
        for step in range(1, max_steps + 1):
            try:
                response, parent = traced_chat(tracer, client, model, messages, tools, record_content)
            except openai.RateLimitError:
                response, parent = traced_chat(tracer, client, model, messages, tools, record_content)
            message = response.choices[0].message
            messages.append(assistant_turn(message))
            if not message.tool_calls:
                run.set_attribute(genai.STOP_STATUS, "done")
                return AgentResult(message.content, "done", step)
            messages += traced_tools(tracer, parent, message.tool_calls, impl, record_content)
        run.set_attribute(genai.STOP_STATUS, "STOPPED: step limit")
        return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# Two look-ups at once, then the answer. The tool spans sit under the model call that asked for
# them, and their times overlap. (The shop answers in microseconds, so one call could end before
# the other starts; `Overlap` holds each call until both have started, as a slow look-up would.)

# %%
from workbook.probes import Overlap

scenario = scenarios.two_orders()
slow_shop = {"get_order": Overlap(2).tool("get_order", Shop("C-001").get_order)}
recorder.clear()
result = run_traced(FakeLLM(scenario).client(), "fake-model", scenario.question, slow_shop,
                    scenario.openai_tools(), conversation_id="conv-0001")
print(result.status, "·", result.answer)
print(recorder.tree())
one, two = [s for s in recorder.spans() if s["name"].startswith("execute_tool")]
print("the two tool spans overlap:", one["start_ns"] < two["end_ns"] and two["start_ns"] < one["end_ns"])

# %% [markdown]
# A 429 and its retry: two `chat` spans, the first one `ERROR` with `error.type` and the
# exception's event. A trace that showed one happy call would hide the second's cost in time:

# %%
scenario = scenarios.rate_limited(1)
recorder.clear()
run_traced(FakeLLM(scenario).client(max_retries=0), "fake-model", scenario.question, Shop("C-001").tools(),
           scenario.openai_tools())
print(recorder.tree())
failed = recorder.spans()[1]
print(failed["status"], failed["status_description"][:60], [e["name"] for e in failed["events"]])

# %% [markdown]
# A team (chapter 14): the front agent hands a question to a worker through a tool, `ask_billing`.
# The worker's run is an `invoke_agent` span of its own, **nested** inside the tool span that
# called it — the worker thread is inside that span, so its `invoke_agent` becomes the child:

# %%
ASK_BILLING = {"type": "function", "function": {
    "name": "ask_billing", "description": "Ask the billing agent a question about spending.",
    "parameters": {"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}}}
front = scenarios.scripted(scenarios.call("ask_billing", task="Taxi spending in September 2026?"),
                           "The billing agent says: 5000 KZT on taxis in September 2026.")
billing = scenarios.taxi_spending()


def ask_billing(task):
    worker = run_traced(FakeLLM(billing).client(), "fake-model", task, Shop("C-001").tools(),
                        billing.openai_tools(), agent="billing")
    return worker.answer


recorder.clear()
run_traced(FakeLLM(front).client(), "fake-model", "How much on taxis in September?", {"ask_billing": ask_billing},
           [ASK_BILLING], agent="front_desk")
team = recorder.spans()
print(spans.tree(team, times=False))

# %% [markdown]
# ## Exercise 3 — `cost_by_run` (3 points)
#
# A trace holds everything chapter 15's bill needs. Write `cost_by_run(found, prices)`: `found` is
# a list of span dicts (`recorder.spans()`, possibly of many runs), `prices` chapter 15's table
# (`PRICES`: model → US$ per million tokens). It returns one entry per **trace** (one run, with
# every agent nested in it), keyed by `trace_id`:
#
# ```python
# {"input_tokens": ..., "cached_tokens": ..., "output_tokens": ..., "cost": ...}
# ```
#
# - every span whose `gen_ai.operation.name` is `"chat"` counts, at any depth (a worker's calls
#   belong to the run that asked it); other spans are skipped;
# - a span's tokens are its `gen_ai.usage.input_tokens`, `gen_ai.usage.cache_read.input_tokens`
#   and `gen_ai.usage.output_tokens`, 0 for one it lacks (a failed call has no usage);
# - its price is `prices[model]`, the model being `gen_ai.response.model`, or
#   `gen_ai.request.model` when the span has no response model; a model not in `prices` raises
#   `ValueError` naming it;
# - `cost` is chapter 15's OpenAI rule, per span, in US$: `((input − cached) × input price + cached
#   × cached_input price + output × output price) / 1 000 000`, added up over the run.
#
# A trace with no chat span is not in the result.

# %% nbgrader={"grade": false, "grade_id": "cost_by_run", "locked": false, "schema_version": 3, "solution": true}
def cost_by_run(found, prices):
    """Tokens and US$ per trace, from the chat spans alone."""
    ### BEGIN SOLUTION
    runs = {}
    for s in found:
        a = s["attributes"]
        if a.get(genai.OPERATION_NAME) != genai.CHAT:
            continue
        model = a.get(genai.RESPONSE_MODEL) or a.get(genai.REQUEST_MODEL)
        if model not in prices:
            raise ValueError(f"no price for model {model!r}")
        p = prices[model]
        tokens_in, cached, tokens_out = (a.get(k) or 0 for k in (genai.INPUT_TOKENS, genai.CACHE_READ_TOKENS,
                                                                 genai.OUTPUT_TOKENS))
        run = runs.setdefault(s["trace_id"], {"input_tokens": 0, "cached_tokens": 0, "output_tokens": 0, "cost": 0.0})
        run["input_tokens"] += tokens_in
        run["cached_tokens"] += cached
        run["output_tokens"] += tokens_out
        run["cost"] += ((tokens_in - cached) * p["input"] + cached * p["cached_input"]
                        + tokens_out * p["output"]) / 1_000_000
    return runs
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "cost_by_run_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: cost_by_run keeps two runs apart, prices cached tokens at the cached price, counts
a worker's calls nested in a run, skips other spans (a trace without a chat span has no entry),
prices a call by the model that answered (the request's model only when there is none), and
refuses a model without a price."""
from workbook.checks import fresh

wb = fresh()
G, P = wb.trace.genai, wb.prices.PRICES
run_a = wb.trace.spans.from_trajectory(wb.trace.sample("two_orders"), model="gpt-5-mini")
run_b = wb.trace.spans.from_trajectory(wb.trace.sample("weather_and_math"), model="gpt-5.4")
with wb.checks.no_raise("cost_by_run(two runs, PRICES)",
                        hint="count the chat spans only; price each by gen_ai.response.model"):
    got = cost_by_run(run_a + run_b, P)
assert type(got) is dict, f"cost_by_run returns a dict keyed by trace_id, got {type(got).__name__}"
wb.checks.equal(sorted(got), sorted({run_a[0]["trace_id"], run_b[0]["trace_id"]}), "the runs (trace ids)")
a = got[run_a[0]["trace_id"]]
wb.checks.equal({k: a[k] for k in ("input_tokens", "cached_tokens", "output_tokens")},
                {"input_tokens": 96 + 286, "cached_tokens": 0, "output_tokens": 91 + 50}, "run A's tokens",
                "add up each run's own chat spans: tokens of another run are not this run's")
assert abs(a["cost"] - ((96 + 286) * 0.25 + (91 + 50) * 2.0) / 1e6) < 1e-12, f"run A's cost: {a['cost']!r}"

T, S1, S2 = "ab" * 16, "01" * 8, "02" * 8
make = wb.trace.spans.span
cached_call = make("chat gpt-5-mini", T, S1, kind="CLIENT", attributes={
    G.OPERATION_NAME: "chat", G.RESPONSE_MODEL: "gpt-5-mini", G.INPUT_TOKENS: 2000,
    G.CACHE_READ_TOKENS: 1536, G.OUTPUT_TOKENS: 100})
worker = make("invoke_agent billing", T, S2, S1, attributes={G.OPERATION_NAME: "invoke_agent"})
nested = make("chat gpt-5.4", T, "03" * 8, S2, kind="CLIENT", attributes={
    G.OPERATION_NAME: "chat", G.REQUEST_MODEL: "gpt-5.4", G.INPUT_TOKENS: 10, G.OUTPUT_TOKENS: 5})
tool = make("execute_tool refund", T, "04" * 8, S1, attributes={G.OPERATION_NAME: "execute_tool", G.INPUT_TOKENS: 999})
with wb.checks.no_raise("cost_by_run on cached and nested calls",
                        hint="skip spans that are not chat (a tool span has no model); a chat span without "
                        "gen_ai.response.model is priced by its gen_ai.request.model"):
    got = cost_by_run([cached_call, worker, nested, tool], P)
assert type(got) is dict and T in got, (f"cost_by_run should have an entry for trace {T}, got {got!r}: every chat "
                                        "span of the trace counts, a nested worker's too")
wb.checks.equal({k: got[T][k] for k in ("input_tokens", "cached_tokens", "output_tokens")},
                {"input_tokens": 2010, "cached_tokens": 1536, "output_tokens": 105}, "tokens with a nested worker",
                "every chat span of the trace counts; a tool span is not a model call")
want = ((2000 - 1536) * 0.25 + 1536 * 0.025 + 100 * 2.0 + 10 * 2.5 + 5 * 15.0) / 1e6
other = make("execute_tool refund", "cd" * 16, "05" * 8, attributes={G.OPERATION_NAME: "execute_tool"})
with wb.checks.no_raise("cost_by_run on a trace whose only span is a tool's",
                        hint="skip spans that are not chat before you make the trace's entry"):
    alone = cost_by_run([other], P)
wb.checks.equal(alone, {}, "cost_by_run of a trace without a chat span", "a trace with no chat span is not in the result")
assert abs(got[T]["cost"] - want) < 1e-12, f"cached tokens are billed at the cached price: cost {got[T]['cost']!r}, want {want!r}"
answered = make("chat gpt-5.4", T, S1, kind="CLIENT", attributes={
    G.OPERATION_NAME: "chat", G.REQUEST_MODEL: "gpt-5.4", G.RESPONSE_MODEL: "gpt-5-mini",
    G.INPUT_TOKENS: 1000, G.OUTPUT_TOKENS: 100})
with wb.checks.no_raise("cost_by_run on a call answered by another model than it asked for",
                        hint="price a call by gen_ai.response.model, the model that answered"):
    got = cost_by_run([answered], P)
want = (1000 * 0.25 + 100 * 2.0) / 1e6
assert abs(got[T]["cost"] - want) < 1e-12, (
    f"a call that asked for gpt-5.4 and was answered by gpt-5-mini costs gpt-5-mini's price, {want!r}; got "
    f"{got[T]['cost']!r}: price by gen_ai.response.model, gen_ai.request.model only when there is none")
with wb.checks.raises(ValueError, match="gpt-9", what="cost_by_run with an unknown model"):
    cost_by_run([make("chat gpt-9", T, S1, attributes={G.OPERATION_NAME: "chat", G.RESPONSE_MODEL: "gpt-9"})], P)
print("cost_by_run: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "cost_by_run_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: the spans of a real traced run priced as chapter 15 prices its usage, three runs
apart, a failed call without usage, no chat span gives no entry, the response model before the
request model."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
G, P, make = wb.trace.genai, wb.prices.PRICES, wb.trace.spans.span
runs = [wb.trace.spans.from_trajectory(wb.trace.sample(n), model="gpt-5-mini") for n in wb.trace.samples()]
with wb.checks.no_raise("cost_by_run on three runs", hint="one entry per trace_id, from its chat spans"):
    got = cost_by_run([s for r in runs for s in r], P)
for r, name in zip(runs, wb.trace.samples(), strict=True):
    traj = wb.trace.sample(name)
    tin, tout = traj.totals()
    entry = got[r[0]["trace_id"]]
    wb.checks.equal((entry["input_tokens"], entry["output_tokens"]), (tin, tout), f"run {name}'s tokens")
    assert abs(entry["cost"] - (tin * 0.25 + tout * 2.0) / 1e6) < 1e-12, f"run {name}'s cost"

T = "cd" * 16
usages = [{"prompt_tokens": 1200, "completion_tokens": 80, "prompt_tokens_details": {"cached_tokens": 1024}},
          {"prompt_tokens": 1400, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 1152}}]
chat = [make("chat deepseek-flash", T, f"{i + 1:016x}", kind="CLIENT", start_ns=i, end_ns=i + 1, attributes={
    G.OPERATION_NAME: "chat", G.REQUEST_MODEL: "gpt-5.4", G.RESPONSE_MODEL: "deepseek-flash",
    G.INPUT_TOKENS: u["prompt_tokens"], G.OUTPUT_TOKENS: u["completion_tokens"],
    G.CACHE_READ_TOKENS: u["prompt_tokens_details"]["cached_tokens"]}) for i, u in enumerate(usages)]
failed = make("chat deepseek-flash", T, "0f" * 8, kind="CLIENT", status="ERROR",
              attributes={G.OPERATION_NAME: "chat", G.REQUEST_MODEL: "deepseek-flash", G.ERROR_TYPE: "RateLimitError"})
lonely = make("invoke_agent idle", "ef" * 16, "aa" * 8, attributes={G.OPERATION_NAME: "invoke_agent"})
with wb.checks.no_raise("cost_by_run on priced calls, a failed one and an idle run",
                        hint="a failed call has no usage (0 tokens) and no response model (its request "
                        "model prices it); a run with no chat span has no entry"):
    got = cost_by_run(chat + [failed, lonely], P)
wb.checks.equal(sorted(got), [T], "only runs with a model call")
p = P["deepseek-flash"]
want = sum(((u["prompt_tokens"] - u["prompt_tokens_details"]["cached_tokens"]) * p["input"]
            + u["prompt_tokens_details"]["cached_tokens"] * p["cached_input"] + u["completion_tokens"] * p["output"]) / 1e6
           for u in usages)
assert abs(got[T]["cost"] - want) < 1e-12, "chapter 15's cost of the same usage, priced by the response model"
wb.checks.equal((got[T]["input_tokens"], got[T]["cached_tokens"], got[T]["output_tokens"]), (2600, 2176, 100), "the tokens")
wb.checks.equal(cost_by_run([], P), {}, "no spans")
### END HIDDEN TESTS

# %% [markdown]
# The team's run, priced from its trace, and chapter 15's way: `cost` of the usage of each
# response the two fakes sent (asking for `gpt-5-mini` this time), noted as it came back:

# %%
front_llm, billing_llm = FakeLLM(front), FakeLLM(billing)
usages = []


def billed(client):
    """The client, with the usage of every response it returns noted in `usages`."""
    create = client.chat.completions.create

    def create_and_note(**kwargs):
        response = create(**kwargs)
        usages.append(response.usage.model_dump())
        return response

    client.chat.completions.create = create_and_note
    return client


def ask_billing(task):
    return run_traced(billed(billing_llm.client()), "gpt-5-mini", task, Shop("C-001").tools(),
                      billing.openai_tools(), agent="billing").answer


recorder.clear()
run_traced(billed(front_llm.client()), "gpt-5-mini", "How much on taxis in September?",
           {"ask_billing": ask_billing}, [ASK_BILLING], agent="front_desk")
bill = cost_by_run(recorder.spans(), PRICES)
print(bill)
print("chapter 15:", sum(cost(u, PRICES["gpt-5-mini"]) for u in usages), "for", len(usages), "responses")

# %% [markdown]
# ## Part 5 · Beside the official instrumentation
#
# `opentelemetry-instrumentation-openai-v2` is OpenTelemetry's own instrumentation of the openai
# SDK: switched on, it wraps `chat.completions.create` and makes a `chat {model}` span for every
# call, with no code of yours. `otel.official(recorder)` switches it on for a block, into the same
# recorder. Run the two-orders loop with both:

# %%
scenario = scenarios.two_orders()
recorder.clear()
with otel.official(recorder):
    run_traced(FakeLLM(scenario).client(), "fake-model", scenario.question, Shop("C-001").tools(),
               scenario.openai_tools())
print(recorder.tree(times=False))
both = [s for s in recorder.spans() if s["name"] == "chat fake-model"]
yours, theirs = both[0]["attributes"], both[1]["attributes"]
print("only the official one:", sorted(set(theirs) - set(yours)))
print("only yours:", sorted(set(yours) - set(theirs)))

# %% [markdown]
# Each official span is a child of yours (yours was current when `create` ran). What the table
# says:
#
# | | official instrumentation | your spans |
# |---|---|---|
# | model calls | every `create`, with no code; `openai.response.system_fingerprint` too | every call your loop makes |
# | tool calls, the run, a team | nothing: it sees the SDK, not your loop | `execute_tool`, `invoke_agent`, nested agents |
# | the SDK's own retries | inside one span | inside one span (the call your code made) |
# | `traceparent` on the request | not sent | sent, so a service that reads it joins the trace |
# | content | opt-in by `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, not masked | opt-in by `record_content`, masked |
#
# In a real project you would switch the official one on for the model calls and write the
# agent and tool spans yourself: the loop is yours, so only you can say where a step begins.
#
# ## Part 6 · The trace in Phoenix (optional)
#
# Arize Phoenix is a trace viewer that runs on your machine: no account, nothing sent out. It
# lives in a venv of its own (its pins clash with the course's), the course's venv needs only the
# OTLP exporter; the README's "Traces in Phoenix" has the commands. Start it in a terminal:
#
# ```bash
# PHOENIX_HOST=127.0.0.1 PHOENIX_PORT=6006 PHOENIX_TELEMETRY_ENABLED=false \
#   PHOENIX_ALLOW_EXTERNAL_RESOURCES=false ~/.venv-phoenix/bin/phoenix serve   # http://127.0.0.1:6006
# ```
#
# Then set `WORKBOOK_PHOENIX=1` for this notebook and run the cell: `otel.send` sends the spans
# over OTLP to 127.0.0.1 only. Open the trace in the browser: the same tree, with a timeline.

# %%
import os

if os.environ.get("WORKBOOK_PHOENIX") == "1":
    otel.send(team)
    print("sent", len(team), "spans to Phoenix: open http://127.0.0.1:6006")
else:
    print("Phoenix skipped: start it (README, 'Traces in Phoenix') and set WORKBOOK_PHOENIX=1 to send this trace.")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **A tool span not parented to its model call.** A thread from a pool starts with no current
#   span: `start_as_current_span` there makes a new trace of its own, and the run's trace loses
#   its tools. Pass the parent's context.
# - **Parallel calls serialised.** Spans one after the other say the calls waited for each other;
#   if the code really runs them one by one, the trace is right and the loop is slow.
# - **An error recorded as OK.** Catching an exception is right, the loop goes on; leaving the
#   span `UNSET` (or setting `OK`) hides the failure from every dashboard that counts errors.
# - **Swallowing a model error.** The span says ERROR, but the caller gets `None` instead of the
#   exception and cannot retry it.
# - **Content recorded without opt-in**, or recorded unmasked: the trace store now holds
#   customers' e-mails and cards.
# - **No `traceparent`** on the request, or injected outside the span: a service that reads it
#   (a tool server, a gateway) cannot join its half of the trace to yours.
# - **Pricing by the model you asked for.** The bill is the model that answered,
#   `gen_ai.response.model`; the request's model stands in only when a failed call has none.
# - **Tokens summed across runs.** Each trace is one run: its bill is its own spans' bill.
# - **Cached tokens at the full price**, or a worker's calls missed because only the run's direct
#   children were counted.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("23_traces")

# %% [markdown]
# ## Live cell (optional)
#
# The same traced loop against a real model: the span tree shows the real latencies and token
# counts. It runs when `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded.

# %%
from workbook import scenarios
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.shop import Shop

if live_enabled():
    try:
        live_client, live_model = make_client()
        recorder.clear()
        taxi = scenarios.taxi_spending()
        live = run_traced(live_client, live_model, taxi.question, Shop("C-001").tools(), taxi.openai_tools())
        print(live.answer)
        print(recorder.tree())
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# Your loop now writes down what it did in the form every observability tool reads. The same
# conventions define metrics (token counts and durations: `gen_ai.client.token.usage` in 0.66b2,
# being replaced by input and output token metrics on the conventions' `main`) and evaluations
# (`gen_ai.evaluation.*`, chapter 20's scores on a trace), and an MCP tool server that reads your
# `traceparent` hangs its own spans under your `execute_tool` span.
