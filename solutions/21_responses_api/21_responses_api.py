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
# # 21 · The Responses API
#
# Chat Completions (chapter 03) sends *messages*; OpenAI's newer **Responses API** sends
# *items*. A request is `client.responses.create(model=, input=, tools=)`; `input` is a string or
# a list of items; the reply's `output` is a list of items too: a `reasoning` item (the model's
# hidden thinking, encrypted), `function_call` items (each with an `id` *and* a `call_id`), and a
# `message` with the text. It is what the OpenAI Agents SDK uses by default, and DeepSeek, Ollama
# and LM Studio serve it as well.
#
# Two things are new. The model's own items must go back **verbatim and in order**, reasoning
# included, and each result is a `function_call_output` that names its `call_id`. And the server
# can **keep the conversation** for you: `previous_response_id` continues a stored response, so a
# request sends only what is new. What that saves, and what it does not, is measured below.
#
# The agent you grade is a small one written without a framework: a calculator,
# `client.responses.create` in a loop, `trim_memory`, retries on connection errors and
# 408/409/429/5xx, a log line per step. The fake model behind
# `llm.client()` speaks the Responses wire and refuses what OpenAI refuses, with OpenAI's texts.
#
# **Learning goals.** After this chapter you can
# - run a tool loop on items: answer each `function_call` by `call_id`, send the output back whole;
# - say what `response.output_text` is (the SDK's join of the text parts, not a field on the wire);
# - retry only what is worth retrying, and trim a conversation without orphaning a call;
# - keep state either way, stateless replay (`store=False`) or `previous_response_id`, and
#   measure what each sends and what each is billed;
# - convert a Chat Completions trajectory into items, so one conversation replays on either API.
#
# **Time:** about 90 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (calls and results paired by id), 08 · Timeouts,
# retries and idempotency keys (`is_retryable`), 10 · Real providers (dialects). What you need is
# restated below as given code.

# %% [markdown]
# ## Given code
#
# `AgentResult` (chapter 02), `call_tool` (chapter 06: a tool's result, or `{"error": ...}`; it
# never raises), `is_retryable` (chapter 08: connection errors, 408, 409, 429 and 5xx, unless the
# provider says `x-should-retry`), and `flat_tools`: Responses describes a function tool *flat*,
# `{"type": "function", "name", "description", "parameters"}`, without Chat Completions'
# `"function": {...}` wrapper.

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import json
import time
from dataclasses import dataclass

import openai

from workbook import scenarios
from workbook.fake_llm import FakeLLM, anthropic_tools
from workbook.shop import Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 08_retries_and_idempotency is_retryable


def flat_tools(openai_tools):
    """Chat Completions tool definitions as Responses' flat function tools."""
    return [{"type": "function", **t["function"]} for t in openai_tools]


# %% [markdown]
# ## One request, read item by item
#
# The question of scenario `two_orders` needs two order look-ups. The model is `gpt-5-mini`, a
# reasoning model: it thinks before it answers, and that thinking comes back as an item. (A model
# that does not reason, such as `gpt-4.1-mini`, sends no reasoning item; chapter 15 measures what
# the thinking costs.) Look at what comes back:

# %%
scenario = scenarios.two_orders()
llm = FakeLLM(scenario)
client = llm.client()
TOOLS = flat_tools(scenario.openai_tools())
response = client.responses.create(model="gpt-5-mini", input=scenario.question, tools=TOOLS)
for item in response.output:
    print(item.type, item.id, getattr(item, "call_id", ""), getattr(item, "arguments", ""))
print(repr(response.output_text), response.status, response.usage.input_tokens)

# %% [markdown]
# A `reasoning` item first (`summary: []`, an `encrypted_content` you cannot read), then two
# `function_call` items. Each has two ids: `id` (`fc_…`) names the *item*, `call_id` (`call_…`)
# names the *call*, and a result answers the call:
# `{"type": "function_call_output", "call_id": ..., "output": "<text>"}`.
#
# `usage.output_tokens_details.reasoning_tokens` counts the thinking, billed as output.
#
# `response.output_text` is empty here. It is not on the wire at all: it is a property of the
# SDK's `Response` that joins the `output_text` parts of every `message` item (the raw JSON, in
# `llm.requests` and the fake's reply, has no such key). A model that only calls tools has no
# text; a model that runs out of tokens may have none either.
#
# The results go back with the model's own items, in the order it sent them. Leave the
# reasoning item out and OpenAI refuses the function call that came after it:

# %% tags=["raises-exception"]
items = [i.model_dump(exclude_none=True) for i in response.output]
outputs = [{"type": "function_call_output", "call_id": c["call_id"], "output": "{}"} for c in items[1:]]
client.responses.create(model="gpt-5-mini", tools=TOOLS, store=False,
                        input=[{"role": "user", "content": scenario.question}, *items[1:], *outputs])

# %% [markdown]
# The other rules, each a 400 with OpenAI's words: a `function_call` without its output ("No tool
# output found for function call call_…."), an output whose `call_id` matches no call ("No tool call
# found for function call output with call_id …."), a reasoning item with nothing after it ("…
# was provided without its required following item."), the model's `message` item sent back
# without the reasoning item before it (the same "required 'reasoning' item" text), one item
# sent twice ("Duplicate item found with id rs_…."), and Chat Completions shapes (`role:
# "tool"`, `tool_calls`, tools wrapped in `"function"`), which Responses does not know.
#
# One default differs too: a Responses function tool that omits `strict` is made **strict when
# possible**. If its schema can be made strict, the server does it (every object closed, every
# property required), so an optional argument becomes one the model must fill; if it cannot (a
# keyword strict mode does not support, such as `allOf` or `not`), it falls back to non-strict,
# best-effort calling, and the response lists that tool with `strict: false` (OpenAI's
# function-calling guide; which schemas fall back it does not list, and the fake's rule is those
# keywords). `"strict": false` keeps it non-strict whatever the schema; with `"strict": true` a
# schema that is not strict already is a 400 ("Invalid schema for function 'get_order': In
# context=(), 'additionalProperties' is required to be supplied and to be false."). Chat
# Completions tools are not strict unless asked. The response lists the tools as the server took
# them:

# %%
print(response.tools[0].strict, response.tools[0].parameters)

# %% [markdown]
# ## Exercise 1 — `run_agent`, the loop on items
#
# Write the loop of chapter 03 on items, `run_agent(client, model, prompt, tools, impl, memory, max_rounds=4,
# log=None)`, stateless (`store=False` in every request):
#
# 1. `context` = the items of `memory`, then `{"role": "user", "content": prompt}`.
# 2. Call `client.responses.create(model=, input=context, tools=, store=False)`. Take the
#    `function_call` items of `response.output`; append `f"step={step} calls={n}"` to `log`
#    (a list, when given).
# 3. No calls: the answer is `response.output_text.strip()`. An empty answer is
#    `AgentResult(None, "STOPPED: finished without text", step)`; otherwise add the prompt and
#    `{"role": "assistant", "content": answer}` to `memory` and return `AgentResult(answer,
#    "done", step)`.
# 4. Calls, but this is step `max_rounds + 1`: stop, `AgentResult(None, "STOPPED: tool round
#    limit", step)`.
# 5. Otherwise append **every** output item to `context` as a dict
#    (`item.model_dump(exclude_none=True)`), in order, then one `function_call_output` per call
#    with its `call_id` and `output` = `json.dumps(result)`: the result of `call_tool`, or an
#    `{"error": ...}` that says so when the arguments are not JSON or not a JSON object (the model
#    reads it and sends them again). Go to 2.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, prompt, tools, impl, memory, max_rounds=4, log=None):
    """The agent loop on the Responses API: items in, items out, results by call_id."""
    ### BEGIN SOLUTION
    context = list(memory) + [{"role": "user", "content": prompt}]
    for step in range(1, max_rounds + 2):
        response = client.responses.create(model=model, input=context, tools=tools, store=False)
        calls = [item for item in response.output if item.type == "function_call"]
        if log is not None:
            log.append(f"step={step} calls={len(calls)}")
        if not calls:
            answer = response.output_text.strip()
            if not answer:
                return AgentResult(None, "STOPPED: finished without text", step)
            memory.extend([{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}])
            return AgentResult(answer, "done", step)
        if step > max_rounds:
            return AgentResult(None, "STOPPED: tool round limit", step)
        context.extend(item.model_dump(exclude_none=True) for item in response.output)
        for call in calls:
            try:
                args = json.loads(call.arguments)
            except json.JSONDecodeError as e:
                result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
            else:
                result = call_tool(impl, call.name, args) if isinstance(args, dict) else \
                    {"error": "arguments must be a JSON object with named fields"}
            context.append({"type": "function_call_output", "call_id": call.call_id,
                            "output": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: tool round limit", max_rounds + 1)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers two_orders in two calls (store=False, the reasoning item and
both calls sent back in order, each answered by its call_id), fills memory and the log; memory
goes first in the context; an empty final answer is the "finished without text" status;
arguments that are not JSON are an error output the model can fix, not an exception; calls on
step max_rounds + 1 stop the run with "STOPPED: tool round limit"."""
from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
memory, log = [], []
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("run_agent on two_orders", hint="a 400 names the rule: send every output item "
                        "back in order, reasoning included, and answer each call by its call_id"):
    result = run_agent(llm.client(max_calls=6), "gpt-5-mini", scenario.question, tools,
                       wb.shop.Shop("C-001").tools(), memory, log=log)
memory, log = after(memory), after(log)
assert wb.checks.kind(result) == "AgentResult", f"run_agent returns an AgentResult, got {result!r}"
wb.checks.equal((result.answer, result.status, result.steps), (scenario.answer, "done", 2), "the result")
assert all(b.get("store") is False for b in llm.requests), "every request says store=False"
second = llm.requests[1]["input"]
kinds = [i.get("type", "message") for i in second]
wb.checks.equal(kinds, ["message", "reasoning", "function_call", "function_call", "function_call_output",
                        "function_call_output"], "the item types of the second request")
wb.checks.equal(memory, [{"role": "user", "content": scenario.question},
                         {"role": "assistant", "content": scenario.answer}], "memory after the run")
wb.checks.equal(log, ["step=1 calls=2", "step=2 calls=0"], "the log")

silent = wb.scenarios.scripted("", tools=("get_order",), question="Anything?")
llm = wb.fake_llm.FakeLLM(silent)
memory = []
with wb.checks.no_raise("run_agent on a model that says nothing",
                        hint='no calls and no text: AgentResult(None, "STOPPED: finished without text", step)'):
    result = run_agent(llm.client(max_calls=3), "gpt-5-mini", "Anything?", tools, {}, memory)
memory = after(memory)
wb.checks.equal((result.answer, result.status, result.steps), (None, "STOPPED: finished without text", 1),
                "an empty answer")
wb.checks.equal(memory, [], "memory after an empty answer")

broken = wb.scenarios.broken_json_then_fix()  # its first call's arguments are not JSON
llm = wb.fake_llm.FakeLLM(broken)
not_json = "arguments that are not JSON are an {\"error\": ...} output the model can fix, not an exception"
with wb.checks.no_raise("run_agent when a call's arguments are not JSON", hint=not_json):
    result = run_agent(llm.client(max_calls=4), "gpt-5-mini", broken.question,
                       [{"type": "function", **t["function"]} for t in broken.openai_tools()],
                       wb.shop.Shop("C-001").tools(), [])
outputs = [i for i in llm.requests[1]["input"] if i.get("type") == "function_call_output"]
wb.checks.equal(len(outputs), 1, "outputs sent after the call whose arguments are not JSON", not_json)
error = wb.checks.error_text(outputs[0]["output"], "the output for arguments that are not JSON")
assert "json" in error.lower(), f"the error should say the arguments are not JSON, got {error!r}"
wb.checks.equal((result.answer, result.status), (broken.answer, "done"), "the result once the model fixed its call")

earlier = [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello, how can I help?"}]
llm = wb.fake_llm.FakeLLM(scenario)
with wb.checks.no_raise("run_agent with two items of memory", hint="the context is memory's items, then the prompt"):
    run_agent(llm.client(max_calls=6), "gpt-5-mini", scenario.question, tools, wb.shop.Shop("C-001").tools(),
              list(earlier))
wb.checks.equal(llm.requests[0]["input"], earlier + [{"role": "user", "content": scenario.question}],
                "the input of the first request", hint="the items of memory first, then the prompt as a user message")
never = wb.scenarios.never_finishes()
llm = wb.fake_llm.FakeLLM(never)
with wb.checks.no_raise("run_agent on a model that keeps calling tools, max_rounds=1",
                        hint="calls on step max_rounds + 1 stop the run with a status"):
    result = run_agent(llm.client(max_calls=4), "gpt-5-mini", never.question,
                       [{"type": "function", **t["function"]} for t in never.openai_tools()],
                       {"search_kb": lambda query: {"hits": []}}, [], max_rounds=1)
wb.checks.equal((result.answer, result.status, result.steps, llm.calls), (None, "STOPPED: tool round limit", 2, 2),
                "(answer, status, steps, requests) with max_rounds=1",
                hint="one round of tools, then the model is asked again: its calls on step 2 stop the run")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: memory goes first, the round limit, broken arguments, every dialect."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
S = wb.scenarios


def run(scenario, impl, memory, cap=8, dialect="openai",
        hint="send every output item back in order, each call answered by its call_id", **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario, dialect=dialect)
    tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
    with wb.checks.no_raise(f"run_agent on {scenario.name}", hint=hint):
        r = run_agent(llm.client(max_calls=cap), "gpt-5-mini", scenario.question, tools, impl, memory,
                      **kwargs)
    assert wb.checks.kind(r) == "AgentResult", f"run_agent returns an AgentResult, got {r!r}"
    return r, llm


earlier = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello! How can I help?"}]
memory = list(earlier)
r, llm = run(S.taxi_spending(), wb.shop.Shop("C-001").tools(), memory)
memory = after(memory)
wb.checks.equal((r.answer, r.status), (S.taxi_spending().answer, "done"), "taxi_spending")
wb.checks.equal(llm.requests[0]["input"][:2], earlier, "the memory, first in the context")
wb.checks.equal(memory[2:], [{"role": "user", "content": S.taxi_spending().question},
                             {"role": "assistant", "content": S.taxi_spending().answer}], "memory")
last = llm.requests[-1]["input"]
asked = [i["call_id"] for i in last if i.get("type") == "function_call"]
answered = [i["call_id"] for i in last if i.get("type") == "function_call_output"]
wb.checks.equal(answered, asked, "the call_ids answered, in order")
for max_rounds in (1, 2):
    r, llm = run(S.never_finishes(), {"search_kb": lambda query: {"hits": []}}, [], max_rounds=max_rounds)
    wb.checks.equal((r.answer, r.status, r.steps, llm.calls), (None, "STOPPED: tool round limit",
                                                                max_rounds + 1, max_rounds + 1),
                    f"never_finishes with max_rounds={max_rounds}")
r, llm = run(S.broken_json_then_fix(), wb.shop.Shop("C-001").tools(), [],
             hint="arguments that are not JSON are an {\"error\": ...} output, not an exception")
wb.checks.equal((r.answer, r.status), (S.broken_json_then_fix().answer, "done"), "broken arguments")
outputs = [i for b in llm.requests for i in b["input"] if i.get("type") == "function_call_output"]
assert all(type(i["output"]) is str for i in outputs), "each output is a JSON string"
assert "error" in json.loads(outputs[0]["output"]), "broken arguments are an {\"error\": ...} observation"
for dialect in ("ollama", "deepseek"):
    r, llm = run(S.two_orders(), wb.shop.Shop("C-001").tools(), [], dialect=dialect)
    wb.checks.equal((r.answer, r.status, r.steps), (S.two_orders().answer, "done", 2), f"on {dialect}")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — `create_response`, retries that help
#
# A careful loop wraps the call: up to 3 attempts, retry only connection errors and 408/409/429/5xx,
# wait `2 ** attempt` seconds (1, then 2), re-raise anything else at once. A 400 says *the request*
# is wrong: sending it again gets the same 400 and burns a rate limit.
#
# Write `create_response(client, *, attempts=3, sleep=time.sleep, log=None, **request)`: call
# `client.responses.create(**request)`; on `openai.APIConnectionError` or `openai.APIStatusError`,
# re-raise when `is_retryable` says no or when it was the last attempt; otherwise append
# `f"model_retry={attempt + 1} error={type(error).__name__}"` to `log` (when given), call
# `sleep(2 ** attempt)` (attempt 0 first) and try again.

# %% nbgrader={"grade": false, "grade_id": "create_response", "locked": false, "schema_version": 3, "solution": true}
def create_response(client, *, attempts=3, sleep=time.sleep, log=None, **request):
    """client.responses.create(**request), retrying transient failures with backoff."""
    ### BEGIN SOLUTION
    for attempt in range(attempts):
        try:
            return client.responses.create(**request)
        except (openai.APIConnectionError, openai.APIStatusError) as error:
            if not is_retryable(error) or attempt == attempts - 1:
                raise
            if log is not None:
                log.append(f"model_retry={attempt + 1} error={type(error).__name__}")
            sleep(2 ** attempt)
    raise ValueError(f"attempts must be at least 1, got {attempts!r}")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "create_response_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: a 500 then a 503 are retried after 1 s and 2 s (the third call answers); a server
that keeps failing is raised after the third attempt, without a third sleep; a 400 is raised at
once, after one request."""
import openai

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
scenario = wb.scenarios.flaky_server()
llm = wb.fake_llm.FakeLLM(scenario)
sleeps, log = [], []
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("create_response on flaky_server", hint="retry a 500 and a 503"):
    r = create_response(llm.client(max_retries=0, max_calls=4), model="gpt-5-mini", input=scenario.question,
                        tools=tools, sleep=sleeps.append, log=log)
log = after(log)
assert r.status == "completed", f"the third attempt answers; got {r!r}"
wb.checks.equal((llm.calls, sleeps), (3, [1, 2]), "(requests made, sleeps)")
wb.checks.equal(log, ["model_retry=1 error=InternalServerError", "model_retry=2 error=InternalServerError"],
                "the log")

llm = wb.fake_llm.FakeLLM(wb.scenarios.two_orders())
sleeps = []
orphan = [{"type": "function_call_output", "call_id": "call_nobody", "output": "{}"}]
with wb.checks.raises(openai.BadRequestError, match="No tool call found", what="create_response with a 400"):
    create_response(llm.client(max_retries=0, max_calls=4), model="gpt-5-mini", input=orphan, sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (1, []), "a 400 is not retried: (requests made, sleeps)",
                hint="ask is_retryable(error) before you retry: a 400 is raised at once")

down = wb.scenarios.scripted(wb.scenarios.server_error(503))
llm, sleeps = wb.fake_llm.FakeLLM(down), []
with wb.checks.raises(openai.InternalServerError, what="create_response on a server that keeps answering 503"):
    create_response(llm.client(max_retries=0, max_calls=5), model="gpt-5-mini", input="Hi", sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (3, [1, 2]), "(requests made, sleeps) when every attempt fails",
                hint="the last attempt's failure is raised at once, with no sleep after it")
print("create_response: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "create_response_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: 429 and timeouts are retried, the last failure is raised after `attempts`, a 404
and the fake's own 500 (x-should-retry: false) are not retried, the request passes through."""
### BEGIN HIDDEN TESTS
import openai

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
sleeps = []
llm = wb.fake_llm.FakeLLM(S.rate_limited(failures=2))
with wb.checks.no_raise("create_response on rate_limited", hint="a 429 is retried, after 1 s, then 2 s"):
    r = create_response(llm.client(max_retries=0, max_calls=5), model="gpt-5-mini", input="taxi?", sleep=sleeps.append,
                        instructions="Be brief.", store=False)
wb.checks.equal((llm.calls, sleeps), (3, [1, 2]), "429 twice: (requests, sleeps)")
assert all(b.get("instructions") == "Be brief." and b.get("store") is False for b in llm.requests), (
    "pass every request argument through to responses.create")
sleeps = []
llm = wb.fake_llm.FakeLLM(S.rate_limited(failures=9))
with wb.checks.raises(openai.RateLimitError, what="create_response when every attempt fails"):
    create_response(llm.client(max_retries=0, max_calls=9), model="gpt-5-mini", input="taxi?", attempts=4,
                    sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (4, [1, 2, 4]), "attempts=4: (requests, sleeps)")
sleeps = []
llm = wb.fake_llm.FakeLLM(S.slow_provider(), hang_seconds=0.01)
with wb.checks.no_raise("create_response on a timeout", hint="a timeout (openai.APITimeoutError) is retried"):
    create_response(llm.client(max_retries=0, max_calls=4), model="gpt-5-mini", input="taxi?", sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (2, [1]), "a timeout is retried: (requests, sleeps)")
sleeps = []
llm = wb.fake_llm.FakeLLM(S.two_orders())
bare = [{"type": "item_reference", "id": "msg_gone"}]
with wb.checks.raises(openai.NotFoundError, what="create_response with a 404"):
    create_response(llm.client(max_retries=0, max_calls=4), model="gpt-5-mini", input=bare, sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (1, []), "a 404 is not retried")


def broken(conv):
    raise RuntimeError("the scenario cannot go on")


llm = wb.fake_llm.FakeLLM(S.Scenario("broken", "Fails.", broken, (), None, "?"))
sleeps = []
with wb.checks.raises(openai.InternalServerError, what="create_response on x-should-retry: false"):
    create_response(llm.client(max_retries=0, max_calls=4), model="gpt-5-mini", input="?", sleep=sleeps.append)
wb.checks.equal((llm.calls, sleeps), (1, []), "x-should-retry: false is not retried")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 — `trim_memory` that never orphans a call
#
# A simple loop keeps the context short with `memory[-12:]`. On a list of items that cut can land
# between a `function_call` and its output, or between a reasoning item and the call it produced,
# and the next request is a 400. Cut at a **user message** instead: every call after it is
# answered after it too.
#
# Write `trim_memory(memory, max_items=12)`: the longest tail of `memory` with at most `max_items`
# items whose first item is a user message (a dict with `"role": "user"` whose `type` is missing
# or `"message"`), as a new list; `[]` when no such tail exists.

# %% nbgrader={"grade": false, "grade_id": "trim_memory", "locked": false, "schema_version": 3, "solution": true}
def trim_memory(memory, max_items=12):
    """The longest tail of at most max_items items that starts at a user message."""
    ### BEGIN SOLUTION
    for i in range(max(len(memory) - max_items, 0), len(memory)):
        item = memory[i]
        if item.get("role") == "user" and item.get("type", "message") == "message":
            return list(memory[i:])
    return []
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "trim_memory_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: two conversations of items (8, then 3) trimmed to 9: the tail starts at the
second question, and the fake accepts it as a context; trimmed to 12, the longest tail is the
whole memory, from the first question; items without a user message give []."""
import copy
import json

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
client = llm.client(max_calls=8)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
impl = wb.shop.Shop("C-001").tools()
memory = []
for question in ("Where are my orders A-1001 and A-1002?", scenario.question):
    memory.append({"role": "user", "content": question})
    for _ in range(3):
        r = client.responses.create(model="gpt-5-mini", input=memory, tools=tools, store=False)
        memory += [i.model_dump(exclude_none=True) for i in r.output]
        calls = [i for i in r.output if i.type == "function_call"]
        if not calls:
            break
        memory += [{"type": "function_call_output", "call_id": c.call_id,
                    "output": json.dumps(impl[c.name](**json.loads(c.arguments)))} for c in calls]
assert len(memory) == 11, f"the setup made {len(memory)} items"
before = copy.deepcopy(memory)
kept = trim_memory(memory, 9)
assert type(kept) is list, f"trim_memory returns a list, got {type(kept).__name__}"
wb.checks.equal(kept, before[8:], "trim_memory(memory, 9): the tail from the second question",
                hint="start the tail at a user message: memory[-9:] cuts between a call and its output")
wb.checks.equal(before[8], {"role": "user", "content": scenario.question}, "the setup's second question")
wb.checks.equal(trim_memory(memory, 12), before, "trim_memory(memory, 12): the whole memory fits",
                "keep the longest tail: cut at the earliest user message whose tail fits, not at the last one")
wb.checks.equal(trim_memory(before[1:8], 12), [], "trim_memory(items without a user message, 12)",
                "no tail starts at a user message: []")
with wb.checks.no_raise("the trimmed context, sent to the model",
                        hint="a tail that starts at a user message answers every call it holds"):
    client.responses.create(model="gpt-5-mini", input=kept + [{"role": "user", "content": "Thanks!"}], tools=tools,
                            store=False)
print("trim_memory: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "trim_memory_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: short memory kept whole, the default 12, no user message, assistant messages are
not a boundary."""
### BEGIN HIDDEN TESTS
import copy

from workbook.checks import fresh

wb = fresh()
u = [{"role": "user", "content": f"q{i}"} for i in range(5)]
a = {"role": "assistant", "content": "ok"}
call = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
out = {"type": "function_call_output", "call_id": "call_1", "output": "{}"}
short = [u[0], a]
kept = trim_memory(short)
wb.checks.equal(kept, [u[0], a], "a short memory")
long = [u[0], call, out, a] * 3 + [u[1], a, call, out, a]
expected = copy.deepcopy(long)
wb.checks.equal(trim_memory(long), expected[8:], "the default max_items=12")
wb.checks.equal(trim_memory(long, 5), expected[-5:], "exactly max_items")
wb.checks.equal(trim_memory(long, 4), [], "no tail of 4 starts at a user message")
wb.checks.equal(trim_memory([a, call, out, a], 3), [], "an assistant message is not a boundary")
typed = [{"type": "message", "role": "user", "content": "q"}, a, {"type": "message", "role": "user",
                                                                  "content": [{"type": "input_text", "text": "r"}]}]
wb.checks.equal(trim_memory(typed, 2), copy.deepcopy(typed[2:]), "a message item with type 'message'")
wb.checks.equal(trim_memory([], 3), [], "an empty memory")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the memory it handed trim_memory, so only it can see whether
# that list changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(trim_memory, [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "ok"},
                             {"role": "user", "content": "q2"}, {"role": "assistant", "content": "ok"}], 2))

# %% [markdown]
# ## Keeping state on the server: `previous_response_id`
#
# So far every request carried the whole conversation (`store=False`). The Responses API can keep
# it instead: a response is stored by default (`store=True`), and a request with
# `previous_response_id=<its id>` continues it. The model then sees the stored conversation (the
# earlier input and output), then the new `input`. Two rules matter:
#
# - **`instructions` are not carried over**: send them with every request.
# - **The chain is billed again.** `usage.input_tokens` counts the whole conversation the model
#   saw, as if you had sent it (prompt caching makes the repeated part cheaper, chapter 15).
#
# `chained_agent` below is the same loop with server-side state: after the first request, each
# request is built by a function you write, `next_request`.

# %% nbgrader={"grade": false, "grade_id": "given_chained_agent", "locked": true, "schema_version": 3, "solution": false}
def function_output(call, impl):
    """One function_call item answered: its function_call_output, by call_id."""
    try:
        args = json.loads(call.arguments)
    except json.JSONDecodeError as e:
        args, result = None, {"error": f"arguments are not valid JSON ({e})"}
    if args is not None:
        result = call_tool(impl, call.name, args) if isinstance(args, dict) else {"error": "not an object"}
    return {"type": "function_call_output", "call_id": call.call_id,
            "output": json.dumps(result, ensure_ascii=False, default=str)}


def chained_agent(client, model, prompt, tools, impl, instructions, build, max_rounds=4):
    """The loop with previous_response_id: (AgentResult, every response). The first request sends
    the prompt; each later one is build(previous, outputs, model, tools, instructions)."""
    response = client.responses.create(model=model, input=prompt, tools=tools, instructions=instructions)
    responses = [response]
    for step in range(1, max_rounds + 2):
        calls = [i for i in response.output if i.type == "function_call"]
        if not calls:
            answer = response.output_text.strip()
            return AgentResult(answer or None, "done" if answer else "STOPPED: finished without text",
                               step), responses
        if step > max_rounds:
            break
        outputs = [function_output(c, impl) for c in calls]
        response = client.responses.create(**build(response, outputs, model, tools, instructions))
        responses.append(response)
    return AgentResult(None, "STOPPED: tool round limit", len(responses)), responses


# %% [markdown]
# ## Exercise 4 — `next_request`
#
# Write `next_request(previous, outputs, model, tools, instructions)`: the keyword arguments of the
# next `responses.create` in a chain, as a dict: `model`, `tools`, `instructions` (again: they are
# not carried), `previous_response_id` = `previous.id`, and `input` = the new items only (the
# `outputs`, as a list). Nothing the server already holds goes again.

# %% nbgrader={"grade": false, "grade_id": "next_request", "locked": false, "schema_version": 3, "solution": true}
def next_request(previous, outputs, model, tools, instructions):
    """The next request of a chain: only the new items, previous_response_id, the instructions again."""
    ### BEGIN SOLUTION
    return {"model": model, "tools": tools, "instructions": instructions,
            "previous_response_id": previous.id, "input": list(outputs)}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "next_request_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: next_request's dict, and chained_agent with it answers two_orders: the second
request sends only the two outputs, the instructions again, and the model sees them once (the
test runs its own copy of chained_agent)."""
import json
import types
from dataclasses import dataclass

from workbook.checks import fresh


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 21_responses_api function_output


#@include 21_responses_api chained_agent


wb = fresh()
previous = types.SimpleNamespace(id="resp_abc", output=[])
outs = [{"type": "function_call_output", "call_id": "call_1", "output": "{}"}]
wb.checks.equal(next_request(previous, outs, "m", [], "Be brief."),
                {"model": "m", "tools": [], "instructions": "Be brief.", "previous_response_id": "resp_abc",
                 "input": outs}, "next_request(...)")
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("chained_agent with your next_request",
                        hint="input is only the new outputs; previous_response_id is previous.id"):
    result, responses = chained_agent(llm.client(max_calls=6), "gpt-5-mini", scenario.question, tools,
                                      wb.shop.Shop("C-001").tools(), "You are Northwind support.", next_request)
wb.checks.equal((result.answer, result.status), (scenario.answer, "done"), "the chained run")
second = llm.requests[1]
wb.checks.equal([i.get("type") for i in second["input"]], ["function_call_output"] * 2,
                "the item types the second request sends")
wb.checks.equal(second.get("previous_response_id"), responses[0].id, "previous_response_id")
wb.checks.equal(second.get("instructions"), "You are Northwind support.", "the instructions, sent again")
roles = [m["role"] for m in llm.seen[-1]]
wb.checks.equal(roles, ["system", "user", "assistant", "tool", "tool"], "what the model saw last")
print("next_request: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "next_request_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: a three-call chain, each request's input only the new outputs, a fresh list."""
### BEGIN HIDDEN TESTS
import json
import types
from dataclasses import dataclass

from workbook.checks import fresh


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 21_responses_api function_output


#@include 21_responses_api chained_agent


wb = fresh()
S = wb.scenarios
outs = [{"type": "function_call_output", "call_id": "call_9", "output": "[]"}]
req = next_request(types.SimpleNamespace(id="resp_x", output=[]), outs, "gpt-4.1-mini", [{"type": "function"}], None)
assert type(req) is dict and type(req.get("input")) is list, f"a dict whose input is a list; got {req!r}"
wb.checks.equal(set(req), {"model", "tools", "instructions", "previous_response_id", "input"}, "its keys")
scenario = S.deepseek_thinking()
llm = wb.fake_llm.FakeLLM(scenario)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("chained_agent on a three-call question",
                        hint="input is only the new outputs; previous_response_id is previous.id"):
    result, responses = chained_agent(llm.client(max_calls=6), "gpt-5-mini", scenario.question, tools,
                                      wb.shop.Shop("C-001").tools(), "Answer briefly.", next_request)
wb.checks.equal((result.answer, result.status, result.steps), (scenario.answer, "done", 3), "the chain")
for i, body in enumerate(llm.requests[1:], 1):
    assert body.get("previous_response_id") == responses[i - 1].id, f"request {i + 1} continues response {i}"
    assert all(item.get("type") == "function_call_output" for item in body["input"]), (
        f"request {i + 1} sends only the new outputs; it sent {[x.get('type', 'message') for x in body['input']]}")
    assert body.get("instructions") == "Answer briefly.", f"request {i + 1} sends the instructions again"
seen = llm.seen[-1]
wb.checks.equal([m["role"] for m in seen].count("system"), 1, "system prompts the model saw")
wb.checks.equal([m["role"] for m in seen].count("user"), 1, "user questions the model saw")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 5 — `measure`: what was sent, what was billed
#
# Write `measure(requests, responses)`: from the request bodies a fake received (`llm.requests`)
# and the responses, a dict with `calls` (the number of responses), `bytes_sent` (the size of each
# body as compact UTF-8 JSON, `json.dumps(body, ensure_ascii=False, separators=(",", ":"))`
# encoded, summed), and the sums of `usage.input_tokens`, `usage.input_tokens_details.cached_tokens`
# and `usage.output_tokens` as `input_tokens`, `cached_tokens`, `output_tokens`.

# %% nbgrader={"grade": false, "grade_id": "measure", "locked": false, "schema_version": 3, "solution": true}
def measure(requests, responses):
    """Calls, bytes sent, and the tokens billed, of one run."""
    ### BEGIN SOLUTION
    size = sum(len(json.dumps(b, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for b in requests)
    return {"calls": len(responses), "bytes_sent": size,
            "input_tokens": sum(r.usage.input_tokens for r in responses),
            "cached_tokens": sum(r.usage.input_tokens_details.cached_tokens for r in responses),
            "output_tokens": sum(r.usage.output_tokens for r in responses)}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "measure_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: measure on a chained run of a Russian question: bytes, not characters; the
chain's input tokens as billed, not as sent."""
import json

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
client = llm.client(max_calls=4)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
first = client.responses.create(model="gpt-5-mini", input="Где мои заказы A-1001 и A-1002?", tools=tools)
outs = [{"type": "function_call_output", "call_id": c.call_id, "output": "{\"status\": \"отправлен\"}"}
        for c in first.output if c.type == "function_call"]
second = client.responses.create(model="gpt-5-mini", input=outs, tools=tools, previous_response_id=first.id)
m = measure(llm.requests, [first, second])
size = sum(len(json.dumps(b, ensure_ascii=False, separators=(",", ":")).encode()) for b in llm.requests)
wb.checks.equal(m, {"calls": 2, "bytes_sent": size,
                    "input_tokens": first.usage.input_tokens + second.usage.input_tokens,
                    "cached_tokens": 0, "output_tokens": first.usage.output_tokens + second.usage.output_tokens},
                "measure(...)", hint="bytes_sent counts each body's UTF-8 bytes (.encode()), not its "
                "characters; the tokens are summed over every response's usage")
assert second.usage.input_tokens > first.usage.input_tokens, "the setup: the chain is billed again"
print("measure: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "measure_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: cached tokens summed, no requests, stateless replay."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
llm = wb.fake_llm.FakeLLM(wb.scenarios.two_orders())
client = llm.client(max_calls=4)
long = "Northwind support: be brief, cite order ids. " * 120
rs = [client.responses.create(model="gpt-5-mini", input="Where is A-1001?", instructions=long) for _ in range(2)]
m = measure(llm.requests, rs)
assert rs[1].usage.input_tokens_details.cached_tokens > 0, "the setup: the second request hits the cache"
wb.checks.equal(m["cached_tokens"], rs[1].usage.input_tokens_details.cached_tokens, "cached_tokens")
wb.checks.equal(m["input_tokens"], 2 * rs[0].usage.input_tokens, "input_tokens")
wb.checks.equal(measure([], []), {"calls": 0, "bytes_sent": 0, "input_tokens": 0, "cached_tokens": 0,
                                  "output_tokens": 0}, "measure([], [])")
### END HIDDEN TESTS

# %% [markdown]
# ## Four ways, measured
#
# The same question four ways: Chat Completions (chapter 03's messages), Anthropic's Messages API
# (chapter 10's `run_messages_agent`), Responses stateless (your `run_agent`), and Responses
# chained (`previous_response_id`, your `next_request`). Per way: the model calls, the bytes the
# loop sent, and the input tokens billed.

# %%
def chat_loop(client, question, tools, impl, max_steps=6):
    """Chapter 03's loop on Chat Completions, for the comparison: every reply."""
    messages, replies = [{"role": "user", "content": question}], []
    for _ in range(max_steps):
        replies.append(client.chat.completions.create(model="gpt-5-mini", messages=messages, tools=tools))
        message = replies[-1].choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for c in message.tool_calls:
            result = call_tool(impl, c.function.name, json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(result)})
    return replies


#@include 10_real_providers run_messages_agent


class Recorder:
    """A client that keeps every reply it returns (of `responses.create`, or of `messages.create`
    with api="messages"), for measure()."""

    def __init__(self, inner, api="responses"):
        self.inner, self.api, self.kept = inner, api, []
        setattr(self, api, self)

    def create(self, **kwargs):
        self.kept.append(getattr(self.inner, self.api).create(**kwargs))
        return self.kept[-1]


def sizes(llm):
    return [len(json.dumps(b, ensure_ascii=False, separators=(",", ":")).encode()) for b in llm.requests]


scenario = scenarios.deepseek_thinking()  # three model calls: two look-ups, then the answer
chat_llm, stateless_llm, chained_llm = FakeLLM(scenario), FakeLLM(scenario), FakeLLM(scenario)
replies = chat_loop(chat_llm.client(), scenario.question, scenario.openai_tools(), Shop("C-001").tools())
messages_llm = FakeLLM(scenario)
claude = Recorder(messages_llm.anthropic_client(), api="messages")
run_messages_agent(claude, "claude-haiku-4-5", scenario.question, anthropic_tools(scenario.openai_tools()),
                   Shop("C-001").tools())
stateless, chained = Recorder(stateless_llm.client()), Recorder(chained_llm.client())
run_agent(stateless, "gpt-5-mini", scenario.question, flat_tools(scenario.openai_tools()),
          Shop("C-001").tools(), [])
chained_agent(chained, "gpt-5-mini", scenario.question, flat_tools(scenario.openai_tools()),
              Shop("C-001").tools(), None, next_request)
print(f"{'way':<26}{'calls':>6}{'bytes sent':>12}{'input tokens':>14}   bytes per step")
print(f"{'chat completions (03)':<26}{len(replies):>6}{sum(sizes(chat_llm)):>12}"
      f"{sum(r.usage.prompt_tokens for r in replies):>14}   {sizes(chat_llm)}")
print(f"{'messages api (10)':<26}{len(claude.kept):>6}{sum(sizes(messages_llm)):>12}"
      f"{sum(r.usage.input_tokens for r in claude.kept):>14}   {sizes(messages_llm)}")
for way, llm, recorder in (("responses, stateless", stateless_llm, stateless),
                           ("responses, chained", chained_llm, chained)):
    m = measure(llm.requests, recorder.kept)
    print(f"{way:<26}{m['calls']:>6}{m['bytes_sent']:>12}{m['input_tokens']:>14}   {sizes(llm)}")

# %% [markdown]
# The chained run sends a fraction of the bytes, and is billed the same input tokens as the
# stateless one: the server replays the chain into the model. What `previous_response_id` saves is
# upload and your own bookkeeping, not tokens.
#
# What breaks:
# - an id that was never stored (`store=False`) or has expired (OpenAI keeps a response 30 days by
#   default)
#   is a 400 "Previous response with id '…' not found.". Here a response made with `store=False`,
#   continued:

# %% tags=["raises-exception"]
llm = FakeLLM(scenarios.two_orders())
unstored = llm.client().responses.create(model="gpt-5-mini", input=llm.scenario.question, tools=TOOLS, store=False)
llm.client().responses.create(model="gpt-5-mini", previous_response_id=unstored.id, input="And A-1003?", tools=TOOLS)

# %% [markdown]
# - **Ollama** serves only the stateless half of the API and *ignores* `previous_response_id`
#   without an error. The model never sees the question:

# %%
llm = FakeLLM(scenarios.two_orders(), dialect="ollama")
result, responses = chained_agent(llm.client(), "qwen3:4b", scenarios.two_orders().question,
                                  flat_tools(llm.scenario.openai_tools()), Shop("C-001").tools(), None,
                                  next_request)
print(result)
print("the second request's context, as the model saw it:", [m["role"] for m in llm.seen[1]])
print("previous_response_id in the reply:", responses[1].previous_response_id)

# %% [markdown]
# Stateless replay works on every server that speaks Responses; `previous_response_id` only where
# the server keeps state (OpenAI, LM Studio), and costs the same tokens there.
#
# | | Chat Completions (03) | Messages API (10) | Responses, stateless | Responses, `previous_response_id` |
# |---|---|---|---|---|
# | what a request sends | every message | every message, `system=` apart | every item, reasoning included | the new items, the instructions |
# | where the conversation lives | your list | your list | your list | the server (30 days) |
# | input tokens billed | the whole conversation | the whole conversation | the whole conversation | the whole chain, the same |
# | what breaks | a missing tool message | a `tool_use` without its `tool_result` right after | a dropped or reordered item | an unstored or expired id; Ollama ignores it |

# %% [markdown]
# ## Exercise 6 — `to_items`, one trajectory for either API
#
# A trajectory saved from a Chat Completions loop (chapter 09) replays on Responses once its
# messages become items. Write `to_items(messages)`:
#
# - a `system`, `developer` or `user` message: `{"role": ..., "content": <its text>}` (a list of
#   text parts becomes the joined text);
# - an `assistant` message: its text (when there is any) as `{"role": "assistant", "content":
#   ...}`, then one `{"type": "function_call", "call_id": <the tool call's id>, "name", "arguments"}`
#   per tool call, `arguments` still the JSON string;
# - a `tool` message: `{"type": "function_call_output", "call_id": <its tool_call_id>, "output":
#   <its text>}`.
#
# The other direction is given: `to_messages(items)` below.

# %% nbgrader={"grade": false, "grade_id": "given_to_messages", "locked": true, "schema_version": 3, "solution": false}
def text_of(content):
    """A message's content as text: a list of parts keeps the text of each."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def to_messages(items):
    """Responses items as Chat Completions messages (reasoning items have no message: dropped)."""
    messages = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            messages.append({"role": item["role"], "content": text_of(item["content"])})
        elif kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if messages and messages[-1]["role"] == "assistant":
                messages[-1].setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": text_of(item["output"])})
    return messages


# %% nbgrader={"grade": false, "grade_id": "to_items", "locked": false, "schema_version": 3, "solution": true}
def to_items(messages):
    """Chat Completions messages as Responses input items."""
    ### BEGIN SOLUTION
    items = []
    for m in messages:
        role = m["role"]
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"],
                          "output": text_of(m.get("content"))})
        elif role == "assistant":
            if text_of(m.get("content")):
                items.append({"role": "assistant", "content": text_of(m["content"])})
            for c in m.get("tool_calls") or ():
                items.append({"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                              "arguments": c["function"]["arguments"]})
        else:
            items.append({"role": role, "content": text_of(m.get("content"))})
    return items
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "to_items_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: a two_orders trajectory from Chat Completions, converted, is accepted by the
Responses face, which answers it as the chat face did; it converts back unchanged (by the
test's own copy of to_messages); a content of text parts is joined; an assistant turn with text
and a call gives a message, then the function_call."""
import json

from workbook.checks import fresh


#@include 21_responses_api text_of


#@include 21_responses_api to_messages


wb = fresh()
scenario = wb.scenarios.two_orders()
chat = wb.fake_llm.FakeLLM(scenario).client(max_calls=4)
impl = wb.shop.Shop("C-001").tools()
messages = [{"role": "system", "content": "You are Northwind support."},
            {"role": "user", "content": scenario.question}]
reply = chat.chat.completions.create(model="gpt-5-mini", messages=messages, tools=scenario.openai_tools())
calls = reply.choices[0].message.tool_calls
messages.append({"role": "assistant", "content": None, "tool_calls": [
    {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
    for c in calls]})
messages += [{"role": "tool", "tool_call_id": c.id, "content": json.dumps(impl[c.function.name](
    **json.loads(c.function.arguments)))} for c in calls]
items = to_items(messages)
wb.checks.equal([i.get("type", "message") for i in items],
                ["message", "message", "function_call", "function_call", "function_call_output",
                 "function_call_output"], "the item types",
                hint='a tool message becomes {"type": "function_call_output", "call_id": <its '
                'tool_call_id>, "output": <its text>}')
wb.checks.equal(items[2], {"type": "function_call", "call_id": calls[0].id, "name": "get_order",
                           "arguments": calls[0].function.arguments}, "the first function_call item")
llm = wb.fake_llm.FakeLLM(scenario)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("the converted trajectory, sent to the Responses API",
                        hint="every function_call item is answered by a function_call_output with its call_id"):
    r = llm.client(max_calls=2).responses.create(model="gpt-5-mini", input=items, tools=tools, store=False)
wb.checks.equal(r.output_text, scenario.answer, "the Responses face's answer to the converted trajectory")
wb.checks.equal(to_messages(items), messages, "to_messages(to_items(messages))")
said = [{"role": "user", "content": [{"type": "text", "text": "Where is "}, {"type": "text", "text": "A-1001?"}]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "A-1001"}'}}]}]
wb.checks.equal(to_items(said), [{"role": "user", "content": "Where is A-1001?"},
                                 {"role": "assistant", "content": "Let me look."},
                                 {"type": "function_call", "call_id": "call_9", "name": "get_order",
                                  "arguments": '{"order_id": "A-1001"}'}],
                "to_items(a user message of text parts, an assistant turn with text and a call)",
                "text parts joined into one text; an assistant's text first, then one function_call per tool call")
print("to_items: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "to_items_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: text parts, an assistant turn with text and calls, a developer message, a
taxi_spending trajectory, and the capstone's trajectories (chapter 11: both kinds of model, their
scripted failures) replayed on both APIs to the same reply."""
### BEGIN HIDDEN TESTS
import ast
import inspect
import json
import operator

from workbook.checks import fresh

wb = fresh()
parts = [{"role": "user", "content": [{"type": "text", "text": "Где "}, {"type": "text", "text": "заказ?"}]},
         {"role": "assistant", "content": "Looking.", "tool_calls": [
             {"id": "call_a", "type": "function", "function": {"name": "get_order", "arguments": "{\"order_id\":\"A-1\"}"}},
             {"id": "call_b", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}]},
         {"role": "tool", "tool_call_id": "call_b", "content": "{\"e\":1}"},
         {"role": "tool", "tool_call_id": "call_a", "content": [{"type": "text", "text": "ok"}]},
         {"role": "developer", "content": "Be brief."}]
wb.checks.equal(to_items(parts), [
    {"role": "user", "content": "Где заказ?"},
    {"role": "assistant", "content": "Looking."},
    {"type": "function_call", "call_id": "call_a", "name": "get_order", "arguments": "{\"order_id\":\"A-1\"}"},
    {"type": "function_call", "call_id": "call_b", "name": "get_order", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_b", "output": "{\"e\":1}"},
    {"type": "function_call_output", "call_id": "call_a", "output": "ok"},
    {"role": "developer", "content": "Be brief."}], "to_items on parts, text with calls, a developer turn")
scenario = wb.scenarios.taxi_spending()
chat_llm = wb.fake_llm.FakeLLM(scenario)
chat = chat_llm.client(max_calls=8)
impl = wb.shop.Shop("C-001").tools()
messages = [{"role": "user", "content": scenario.question}]
for _ in range(6):
    msg = chat.chat.completions.create(model="gpt-5-mini", messages=messages, tools=scenario.openai_tools()).choices[0].message
    messages.append(msg.model_dump(exclude_none=True))
    if not msg.tool_calls:
        break
    messages += [{"role": "tool", "tool_call_id": c.id, "content": json.dumps(impl[c.function.name](
        **json.loads(c.function.arguments)))} for c in msg.tool_calls]
final = messages.pop()
llm = wb.fake_llm.FakeLLM(scenario)
tools = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
with wb.checks.no_raise("a taxi_spending trajectory, converted and sent to the Responses API",
                        hint="every function_call item is answered by a function_call_output with its call_id"):
    r = llm.client(max_calls=2).responses.create(model="gpt-5-mini", input=to_items(messages), tools=tools, store=False)
wb.checks.equal(r.output_text, final["content"], "the same answer on either API")
def shape(seen):
    return [(m["role"], m.get("content"), [c["id"] for c in m.get("tool_calls") or ()]) for m in seen]


wb.checks.equal(shape(llm.seen[-1]), shape(chat_llm.seen[-1]), "the conversation the model saw, on either API")
OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def capstone_tools():
    """Working tools for the capstone's tasks (chapter 11); a wrong argument name is an error
    that names the right ones, as chapter 11's execute says it."""
    def rag_search(query, k=4):
        return "\n\n".join(f"[{h.source} § {h.section}]\n{h.text}" for h in wb.kb.search(query, k))

    def read_file(path):
        found = {p.relative_to(wb.paths.AGENT_FILES).as_posix(): p for p in wb.paths.AGENT_FILES.rglob("*.md")}
        return found[path].read_text(encoding="utf-8") if path in found else f"no such file: {path}"

    def write_note(filename, text):
        return f"saved out/{filename} ({len(text)} chars)"

    def calculate(expression):
        def ev(node):
            if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
                return node.value
            if isinstance(node, ast.BinOp) and type(node.op) in OPS:
                return OPS[type(node.op)](ev(node.left), ev(node.right))
            raise ValueError("only + - * / on numbers")
        return ev(ast.parse(expression, mode="eval").body)

    return {f.__name__: f for f in (rag_search, read_file, write_note, calculate)}


def observe(impl, call):
    fn = impl[call.function.name]
    try:
        args = json.loads(call.function.arguments)
        if set(args) - set(inspect.signature(fn).parameters):
            raise TypeError(f"bad arguments for {call.function.name}: expected "
                            f"{', '.join(inspect.signature(fn).parameters)}")
        return json.dumps(fn(**args), ensure_ascii=False)
    except Exception as e:
        return json.dumps({"error": f"{type(e).__name__}: {e}"})


def capstone_trajectory(kind, task, run, steps=8):
    """A capstone run on Chat Completions, up to its answer or `steps` calls: the messages the model
    was sent last (the answer left out), text tool calls nudged once as chapter 11's loop does."""
    llm = wb.scenarios.capstone.fake(kind, task, run)
    client, impl, nudged = llm.client(max_calls=steps), capstone_tools(), False
    messages = [{"role": "system", "content": "Archived pages hold old rules; never present them as current."},
                {"role": "user", "content": llm.scenario.question}]
    for _ in range(steps):
        msg = client.chat.completions.create(model="m", messages=messages,
                                             tools=llm.scenario.openai_tools()).choices[0].message
        if not msg.tool_calls and ("<tool_call>" not in (msg.content or "") or nudged):
            return messages
        messages.append(msg.model_dump(exclude_none=True))
        if msg.tool_calls:
            messages += [{"role": "tool", "tool_call_id": c.id, "content": observe(impl, c)} for c in msg.tool_calls]
        else:
            nudged = True
            messages.append({"role": "user", "content": "Call the tool through tool_calls."})
    return messages


for kind, task, run in (("cloud-like", "lamps", 0), ("cloud-like", "payment", 0), ("cloud-like", "wander", 0),
                        ("small-local-like", "lamps", 0), ("small-local-like", "lamps", 3),
                        ("small-local-like", "payment", 0), ("small-local-like", "wander", 0)):
    messages = capstone_trajectory(kind, task, run)
    chat_llm, llm = wb.scenarios.capstone.fake(kind, task, run), wb.scenarios.capstone.fake(kind, task, run)
    tools = llm.scenario.openai_tools()
    want = chat_llm.client(max_calls=1).chat.completions.create(model="m", messages=messages,
                                                                 tools=tools).choices[0].message
    what = f"the capstone's {task} trajectory ({kind}, run {run}), converted"
    with wb.checks.no_raise(f"{what} and sent to the Responses API",
                            hint="every call needs its output, by call_id, after it"):
        r = llm.client(max_calls=1).responses.create(model="m", input=to_items(messages), store=False,
                                                     tools=[{"type": "function", **t["function"]} for t in tools])
    got = [(o.name, o.arguments) for o in r.output if o.type == "function_call"]
    wb.checks.equal((r.output_text or None, got), (want.content or None, [
        (c.function.name, c.function.arguments) for c in want.tool_calls or ()]), f"the reply to {what}")
    wb.checks.equal(shape(llm.seen[-1]), shape(chat_llm.seen[-1]), f"what the model saw of {what}")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Answering by position.** `call_id=f"call_{i}"`, or the item's `id` (`fc_…`) instead of its
#   `call_id`: "No tool call found for function call output with call_id …".
# - **Dropping reasoning items.** The function call that followed one is refused: "Item 'fc_…' of
#   type 'function_call' was provided without its required 'reasoning' item: 'rs_…'".
# - **Replaying `output_text` instead of the items.** `output_text` is the SDK's join of the text
#   parts; the calls are not in it, so the outputs answer calls the model never sees.
# - **Letting arguments that are not JSON raise.** `json.loads(call.arguments)` fails on what the
#   model wrote; the loop crashes where an `{"error": ...}` output would have let the model fix it.
# - **Treating an empty answer as one.** A reasoning model can spend its whole budget thinking:
#   `status: "incomplete"`, no message, `output_text == ""`.
# - **Retrying a 400.** The same request gets the same 400; retry connection errors, 408, 409,
#   429 and 5xx only, with growing waits.
# - **Trimming between a call and its output** (`memory[-12:]` on items): cut at a user message.
# - **Cutting at the last user message.** The longest tail that fits may start at an earlier one;
#   cutting later throws away turns the budget had room for.
# - **Re-sending the instructions as an item, or not at all.** With `previous_response_id` a
#   developer message in `input` is stored and piles up turn after turn; `instructions=` is not
#   carried over, so send it every time.
# - **Sending the history again with `previous_response_id`**: the server holds those items
#   already, so OpenAI refuses the request: "Duplicate item found with id rs_…".
# - **Taking `previous_response_id` for free.** The chain is billed as input tokens again;
#   measure `usage.input_tokens`, not the bytes you sent.
# - **`role: "tool"` and `"function": {...}` tools on Responses.** Chat Completions shapes: 400
#   "Invalid value: 'tool'…", "Missing required parameter: 'tools[0].name'.".

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("21_responses_api")

# %% [markdown]
# ## Live cell (optional)
#
# Your `run_agent` on the provider you configured (OpenAI, DeepSeek or Ollama ≥ 0.13.3 speak
# Responses; Anthropic does not). It runs only when `LLM_PROVIDER` names a live provider (see
# chapter 00) and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, current, live_enabled, live_failure, make_client

if live_enabled():
    try:
        if current().name == "anthropic":
            print("Anthropic does not serve the Responses API: use LLM_PROVIDER=openai, deepseek or ollama.")
        else:
            live_client, live_model = make_client()
            scenario = scenarios.two_orders()
            print(run_agent(live_client, live_model, scenario.question, flat_tools(scenario.openai_tools()),
                            Shop("C-001").tools(), [], log=None))
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **22 · Streaming.** The same replies, arriving in pieces: Chat Completions chunks, Messages
# events and Responses events, a stream that stops halfway, and what a loop must do with each.
