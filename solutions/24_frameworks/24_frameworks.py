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
# # 24 · The same agent in a framework
#
# You have built the loop by hand for twenty chapters. Frameworks offer the same loop ready-made,
# plus provider adapters, retries, memory, tracing and a UI. What they cost is that they decide
# things for you, out of sight: which text goes into the prompt, what the model is told when a
# tool fails, how often a failed call is sent again, when the run gives up. Anthropic's *Building
# effective agents* puts it plainly: start with direct API calls; if you use a framework, make sure
# you understand the code underneath, because abstractions hide the prompts and responses.
#
# This chapter runs one support agent three ways on the same fake model — your own loop, the
# **OpenAI Agents SDK** (`openai-agents` 0.24.0) and **pydantic-ai** (`pydantic-ai-slim` 2.78.0) —
# and reads what each one sent. The fake records every request (`llm.requests`), whoever sent it,
# so nothing a framework does is hidden from you here.
#
# **Learning goals.** After this chapter you can
# - drive both frameworks from your own tool registry (chapter 02's `ToolSpec`s), keeping types,
#   descriptions, `strict` and your error observations;
# - put side by side, step by step, what each loop sent, without counting a framework's retries
#   as steps;
# - find what a framework decided (its step limit, its retries, what a failing tool tells the
#   model, its `tool_choice`) by running a fault and reading the requests, not from memory;
# - say, for a project, whether to build the loop by hand, take a framework, or build no agent.
#
# **Time:** about 75 minutes.
#
# **Builds on:** 02 · The loop (`ToolSpec`), 03 · The OpenAI wire format, 05 · Errors are
# observations, 08 · Timeouts, retries and idempotency keys, 21 · The Responses API (items, flat
# tool definitions).

# %% [markdown]
# ## Given code
#
# `ToolSpec` from chapter 02; `TYPES`, the JSON Schema type of each Python type a tool may take;
# `REGISTRY`, the shop's four tools as `ToolSpec`s (their docstrings are the descriptions);
# `run_by_hand`, the loop of chapter 03 with a system prompt: your own loop, the one to compare; and
# `tool_message(call, registry)`, the `tool` message it sends for one tool call (the result as JSON
# text, or an error observation when the function raises).
#
# `frameworks` (the course's `workbook/frameworks.py`) gives each framework a client on the fake:
# `frameworks.agents_sdk(client, tools, instructions)` returns an Agents SDK `Agent` and the
# `RunConfig` that points it at `client`'s fake (tracing off: nothing leaves the machine), and
# `frameworks.pydantic_ai_agent(client, tools, instructions)` a pydantic-ai `Agent` on its OpenAI
# (Chat Completions) model. Both frameworks are asynchronous: in a notebook you `await` them (a
# cell runs in an event loop already, so `asyncio.run` would fail here).

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass

import agents
from agents import FunctionTool
from pydantic_ai import StructuredDict, Tool

from workbook import frameworks, scenarios
from workbook.fake_llm import FakeLLM, tokens
from workbook.shop import Shop
from workbook.trace import from_messages, otel, spans


#@include 02_the_loop ToolSpec


TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
SYSTEM = "You are Northwind's support agent. Use the tools; never guess an order's status."


def registry_for(shop):
    """The shop's tools as ToolSpecs: name -> ToolSpec, described by their docstrings."""
    specs = {}
    for name, fn in shop.tools().items():
        hints = typing.get_type_hints(fn)
        params = {p: hints[p] for p in inspect.signature(fn).parameters}
        specs[name] = ToolSpec(name, fn, inspect.getdoc(fn), params)
    return specs


def tool_message(call, registry):
    """The `tool` message for one tool call: the function's result as JSON text, or an error
    observation when it raises (chapter 05)."""
    try:
        result = registry[call.function.name].fn(**json.loads(call.function.arguments))
    except Exception as e:  # news for the model, not a crash
        result = {"error": f"{type(e).__name__}: {e}"}
    return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, ensure_ascii=False, default=str)}


def run_by_hand(client, question, tools, registry, max_steps=10, model="fake-model"):
    """Chapter 03's loop with a system prompt: (answer or None, stop status)."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        message = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, "done"
        messages.extend(tool_message(call, registry) for call in message.tool_calls)
    return None, "STOPPED: step limit"


REGISTRY = registry_for(Shop("C-001"))
print({name: spec.params for name, spec in REGISTRY.items()})

# %% [markdown]
# ## Part 1 · One registry, three loops
#
# Each loop wants the tools in its own form:
#
# | loop | a tool is | what it is sent as |
# |---|---|---|
# | yours (Chat Completions) | a dict `{"type": "function", "function": {...}}` | that dict |
# | Agents SDK | `agents.FunctionTool(name, description, params_json_schema, on_invoke_tool, strict_json_schema)`; `on_invoke_tool(ctx, arguments_json)` is `async` and returns the text the model reads | a **flat** Responses definition: `{"type": "function", "name", "description", "parameters", "strict"}` (its default model uses the Responses API: `agents/models/_openai_shared.py`) |
# | pydantic-ai | `pydantic_ai.Tool.from_schema(function, name, description, json_schema)`; the function is called with keyword arguments | a Chat Completions definition with `strict` |
#
# Both frameworks can also read a Python function's signature and docstring themselves
# (`agents.function_tool(fn)`, `Tool(fn)`). Here the registry is the one source: the types are
# the `ToolSpec`'s, the description is the `ToolSpec`'s, and a tool that raises comes back to the
# model as **your** error observation, as in every chapter since 05 — not as whatever the
# framework would have said (Part 3 shows what that is).

# %% [markdown]
# ## Exercise 1 — `adapt_tools` (4 points)
#
# Write `adapt_tools(specs, framework)`: the list of `ToolSpec`s as `framework`'s tools, in the
# same order. `framework` is `"by hand"`, `"openai-agents"` or `"pydantic-ai"`; any other value is
# a `ValueError` naming it.
#
# - Every tool's parameters are the JSON Schema `{"type": "object", "properties": {name: {"type":
#   TYPES[type]}}, "required": [every name, in order], "additionalProperties": False}`: the
#   `ToolSpec`'s own types, all required, so the schema is **strict**.
# - `"by hand"`: `{"type": "function", "function": {"name", "description", "parameters", "strict": True}}`.
# - `"openai-agents"`: a `FunctionTool` with the name, the description, that schema as
#   `params_json_schema`, `strict_json_schema=True`, and an `async` `on_invoke_tool(ctx, arguments)`.
# - `"pydantic-ai"`: `Tool.from_schema(function, name, description, schema)`.
# - Each framework's tool runs `spec.fn(**arguments)` and returns the **observation text**:
#   `json.dumps(result, ensure_ascii=False, default=str)`, or, when the function raises, the error
#   observation `json.dumps({"error": f"{type(e).__name__}: {e}"})`. It never raises.

# %% nbgrader={"grade": false, "grade_id": "adapt_tools", "locked": false, "schema_version": 3, "solution": true}
def adapt_tools(specs, framework):
    """ToolSpecs -> the tools of "by hand", "openai-agents" or "pydantic-ai", in order."""
    ### BEGIN SOLUTION
    if framework not in ("by hand", "openai-agents", "pydantic-ai"):
        raise ValueError(f"unknown framework {framework!r}: 'by hand', 'openai-agents' or 'pydantic-ai'")

    def schema(spec):
        return {"type": "object", "properties": {p: {"type": TYPES[t]} for p, t in spec.params.items()},
                "required": list(spec.params), "additionalProperties": False}

    def observe(spec, arguments):
        try:
            return json.dumps(spec.fn(**arguments), ensure_ascii=False, default=str)
        except Exception as e:  # an error observation, never an exception out of the framework
            return json.dumps({"error": f"{type(e).__name__}: {e}"}, ensure_ascii=False)

    def for_agents(spec):
        async def invoke(ctx, arguments):
            return observe(spec, json.loads(arguments or "{}"))

        return FunctionTool(name=spec.name, description=spec.description, params_json_schema=schema(spec),
                            on_invoke_tool=invoke, strict_json_schema=True)

    def for_pydantic_ai(spec):
        async def run(**arguments):  # async: pydantic-ai runs a plain function in a worker thread
            return observe(spec, arguments)

        return Tool.from_schema(run, name=spec.name, description=spec.description, json_schema=schema(spec))

    if framework == "by hand":
        return [{"type": "function", "function": {"name": s.name, "description": s.description,
                                                  "parameters": schema(s), "strict": True}} for s in specs]
    return [for_agents(s) if framework == "openai-agents" else for_pydantic_ai(s) for s in specs]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "adapt_tools_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: adapt_tools keeps each ToolSpec's types and description in a strict schema; the
Agents SDK and pydantic-ai send that definition, run the function with the model's arguments and
send back its result as JSON text, or an {"error": ...} observation when it raises; an unknown
framework is a ValueError."""
import json
from collections.abc import Callable
from dataclasses import dataclass

from workbook.checks import fresh
from workbook.notebook_side import notebook_side

run_adapted = notebook_side("workbook.frameworks:run_adapted")  # runs a framework in your notebook


#@include 02_the_loop ToolSpec


wb = fresh()
S = wb.scenarios
refunds = []


def refund(order_id: str, amount: int) -> dict:
    """Refund an order."""
    if order_id != "A-1001":
        raise KeyError(f"no order {order_id} for this customer")
    refunds.append((order_id, amount))
    return {"order_id": order_id, "refunded": amount}


spec = ToolSpec("refund", refund, "Refund money for an order to the customer's card.", {"order_id": str, "amount": int})
schema = {"type": "object", "properties": {"order_id": {"type": "string"}, "amount": {"type": "integer"}},
          "required": ["order_id", "amount"], "additionalProperties": False}
by_hand = adapt_tools([spec], "by hand")
wb.checks.equal(by_hand, [{"type": "function", "function": {
    "name": "refund", "description": spec.description, "parameters": schema, "strict": True}}],
    "adapt_tools([refund], 'by hand')", "types from spec.params (int is 'integer'), the description, strict")
with wb.checks.raises(ValueError, match="langchain", what="adapt_tools(specs, 'langchain')"):
    adapt_tools([spec], "langchain")

model = S.scripted(S.call("refund", order_id="A-1001", amount=2450), S.call("refund", order_id="A-1003", amount=5),
                   "Refunded A-1001; A-1003 does not exist.")
want_ok = json.dumps({"order_id": "A-1001", "refunded": 2450})
for framework in ("openai-agents", "pydantic-ai"):
    refunds.clear()
    llm = wb.fake_llm.FakeLLM(model)
    with wb.checks.no_raise(f"a {framework} run on adapt_tools([refund], {framework!r})",
                            hint="catch the function's exception inside the tool: an error observation, never a raise"):
        got = run_adapted(adapt_tools, [spec], framework, llm.client(max_calls=5, max_retries=0), "Refund A-1001", "Help.")
    wb.checks.equal(got["error"], None, f"the exception that ended the {framework} run",
                    "a tool that raises must return an error observation, or the framework ends the run with the exception")
    wb.checks.equal(got, {"output": "Refunded A-1001; A-1003 does not exist.", "error": None},
                    f"how the {framework} run ended", "a tool that raises must return an error observation, "
                    "or the framework ends the run with the exception")
    sent = llm.requests[0]["tools"]
    definition = {"type": "function", "name": "refund", "description": spec.description, "parameters": schema,
                  "strict": True} if framework == "openai-agents" else by_hand[0]
    wb.checks.equal(sent, [definition], f"the tool definition {framework} sent", "the spec's types and description, strict")
    wb.checks.equal(refunds, [("A-1001", 2450)], f"the refunds {framework}'s tool made", "call spec.fn with the model's arguments")
    outputs = ([i["output"] for i in r["input"] if i.get("type") == "function_call_output"] for r in llm.requests[1:]) \
        if framework == "openai-agents" else ([m["content"] for m in r["messages"] if m["role"] == "tool"] for r in llm.requests[1:])
    first, second = list(outputs)
    wb.checks.equal(first, [want_ok], f"the observation {framework} sent back", "json.dumps of the function's result")
    assert "A-1003" in wb.checks.error_text(second[-1], f"the observation of a failing tool in {framework}"), \
        "the error observation names what went wrong"
print("adapt_tools: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "adapt_tools_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: several tools keep their order, a float, a bool and no parameters at all, the
description is the spec's own; the error observation carries the exception's type and message in
both frameworks."""
### BEGIN HIDDEN TESTS
import json
from collections.abc import Callable
from dataclasses import dataclass

from workbook.checks import fresh
from workbook.notebook_side import notebook_side

run_adapted = notebook_side("workbook.frameworks:run_adapted")


#@include 02_the_loop ToolSpec


wb = fresh()
S = wb.scenarios
seen = []


def tip(amount: float, round_up: bool) -> dict:
    """Tip."""
    seen.append((amount, round_up))
    raise ValueError("tips are closed on Sundays")


def ping() -> str:
    """Ping."""
    return "pong"


specs = [ToolSpec("tip", tip, "Add a tip to a bill, in KZT.", {"amount": float, "round_up": bool}),
         ToolSpec("ping", ping, "Check that the shop answers.", {})]
got = adapt_tools(specs, "by hand")
wb.checks.equal([t["function"]["name"] for t in got], ["tip", "ping"], "the order of the tools")
wb.checks.equal(got[0]["function"]["parameters"], {
    "type": "object", "properties": {"amount": {"type": "number"}, "round_up": {"type": "boolean"}},
    "required": ["amount", "round_up"], "additionalProperties": False}, "a float and a bool")
wb.checks.equal(got[1]["function"], {"name": "ping", "description": "Check that the shop answers.", "parameters": {
    "type": "object", "properties": {}, "required": [], "additionalProperties": False}, "strict": True}, "no parameters")
model = S.scripted(S.calls(S.Call("tip", {"amount": 12.5, "round_up": True}), S.Call("ping", {})), "ok")
for framework in ("openai-agents", "pydantic-ai"):
    llm = wb.fake_llm.FakeLLM(model)
    with wb.checks.no_raise(f"a {framework} run with two tools", hint="an error observation, never a raise"):
        got = run_adapted(adapt_tools, specs, framework, llm.client(max_calls=4, max_retries=0), "tip", "Help.")
    wb.checks.equal(got["output"], "ok", f"the {framework} run's answer")
    last = llm.requests[-1]
    outputs = [i["output"] for i in last["input"] if i.get("type") == "function_call_output"] \
        if framework == "openai-agents" else [m["content"] for m in last["messages"] if m["role"] == "tool"]
    wb.checks.equal(outputs[1], json.dumps("pong"), f"{framework}: a str result as JSON text")
    wb.checks.equal(json.loads(outputs[0]), {"error": "ValueError: tips are closed on Sundays"},
                    f"{framework}: the error observation")
    tools = llm.requests[0]["tools"]
    descriptions = [t.get("description") or t.get("function", {}).get("description") for t in tools]
    wb.checks.equal(descriptions, [s.description for s in specs], f"{framework}: the descriptions sent")
wb.checks.equal(seen, [(12.5, True), (12.5, True)], "the arguments the tip tool got, once per framework")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · The same agent, three ways
#
# One scenario for all three: the customer asks about two orders, the model asks for both at
# once (parallel tool calls), and one of the orders does not exist, so one tool fails. The same
# registry, the same system prompt, the same fake model behind each: only the loop changes.

# %%
ORDERS = scenarios.scripted(
    scenarios.calls(scenarios.Call("get_order", {"order_id": "A-1001"}), scenarios.Call("get_order", {"order_id": "A-1003"})),
    "Order A-1001 (Svet desk lamp) is shipped; I could not find an order A-1003.",
    name="orders_one_missing", question="Where are my orders A-1001 and A-1003?")
specs = list(REGISTRY.values())

hand_llm = FakeLLM(ORDERS)
hand_answer, hand_status = run_by_hand(hand_llm.client(), ORDERS.question, adapt_tools(specs, "by hand"), REGISTRY)
print("by hand:      ", hand_answer, f"({hand_status})")

agents_llm = FakeLLM(ORDERS)
agent, config = frameworks.agents_sdk(agents_llm.client(), adapt_tools(specs, "openai-agents"), SYSTEM)
result = await agents.Runner.run(agent, ORDERS.question, run_config=config)
print("openai-agents:", result.final_output)

pydantic_llm = FakeLLM(ORDERS)
pydantic_agent = frameworks.pydantic_ai_agent(pydantic_llm.client(), adapt_tools(specs, "pydantic-ai"), SYSTEM)
answer = await pydantic_agent.run(ORDERS.question)
print("pydantic-ai:  ", answer.output)
logs = {"by hand": hand_llm.requests, "openai-agents": agents_llm.requests, "pydantic-ai": pydantic_llm.requests}

# %% [markdown]
# The same answer three times. The requests are not the same. Here is the Agents SDK's second
# request, the one that carries the two observations back:

# %%
print(json.dumps(agents_llm.requests[1], indent=1)[:1800])

# %% [markdown]
# It speaks the Responses API (chapter 21): `instructions` instead of a system message, `input`
# items, flat tool definitions, and an `include` list. pydantic-ai speaks Chat Completions, like
# your loop, but sends `tool_choice: "auto"` that you never asked for. To see all of it at once,
# turn each log into a table.
#
# ## Exercise 2 — `step_table` (3 points)
#
# Write `step_table(requests)`: one row per **model step** of one loop's recorded requests (request
# bodies, Chat Completions or Responses), each a dict:
#
# | key | value |
# |---|---|
# | `"step"` | 1, 2, ... |
# | `"api"` | `"chat"` when the body has `messages`, else `"responses"` |
# | `"system"` | the system text: Chat Completions, the `content` of the first message when its role is `system` or `developer`; Responses, the body's `instructions`; `None` when there is none |
# | `"tools"` | the names of the tools sent, in order (Chat nests them in `"function"`, Responses does not) |
# | `"strict"` | each tool's `strict` as sent, in the same order (`None` where it is not sent) |
# | `"tool_choice"`, `"parallel_tool_calls"` | as sent, `None` when not sent: the provider's default then applies |
# | `"outputs"` | the observations this step sends for the first time: the `content` of the `tool` messages, or the `output` of the `function_call_output` items, at the **end** of the messages or input |
# | `"retries"` | how many times this same request was sent again right after it |
#
# A request equal to the one just before it is the same step sent again (a retry after a 429 or a
# 5xx): it adds 1 to that step's `"retries"`, never a new row. Do not change the requests.

# %% nbgrader={"grade": false, "grade_id": "step_table", "locked": false, "schema_version": 3, "solution": true}
def step_table(requests):
    """One loop's recorded requests -> one row per model step (a retry is not a step)."""
    ### BEGIN SOLUTION
    rows, previous = [], None
    for body in requests:
        if rows and body == previous:
            rows[-1]["retries"] += 1
            continue
        previous = body
        chat = "messages" in body
        items = body["messages"] if chat else body.get("input")
        items = items if isinstance(items, list) else []
        if chat:
            first = items[0] if items else {}
            system = first.get("content") if first.get("role") in ("system", "developer") else None
        else:
            system = body.get("instructions")
        tools = [t.get("function", t) if chat else t for t in body.get("tools") or []]
        outputs = []
        for item in reversed(items):
            if chat and item.get("role") == "tool":
                outputs.insert(0, item.get("content"))
            elif not chat and item.get("type") == "function_call_output":
                outputs.insert(0, item.get("output"))
            else:
                break
        rows.append({"step": len(rows) + 1, "api": "chat" if chat else "responses", "system": system,
                     "tools": [t.get("name") for t in tools], "strict": [t.get("strict") for t in tools],
                     "tool_choice": body.get("tool_choice"), "parallel_tool_calls": body.get("parallel_tool_calls"),
                     "outputs": outputs, "retries": 0})
    return rows
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "step_table_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: step_table makes one row per model step of a Chat Completions log and of a
Responses log: the system text (a system message, or instructions), the tool names and their
strict, tool_choice and parallel_tool_calls as sent, the new observations only (those at the end,
not the earlier steps'); a request sent again is a retry of its step, not a step."""
import copy

from workbook.checks import fresh

wb = fresh()
tool = {"type": "function", "function": {"name": "get_order", "parameters": {}, "strict": True}}
ask = [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "A-1001?"}]
call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                              "function": {"name": "get_order", "arguments": "{}"}}]}
first = {"model": "m", "messages": ask, "tools": [tool], "tool_choice": "auto"}
second = {"model": "m", "messages": ask + [call, {"role": "tool", "tool_call_id": "c1", "content": "shipped"}],
          "tools": [tool], "tool_choice": "auto"}
again = {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function",
                                                               "function": {"name": "get_order", "arguments": "{}"}}]}
third = second | {"messages": second["messages"] + [again, {"role": "tool", "tool_call_id": "c2", "content": "delivered"}]}
chat_log = [first, copy.deepcopy(first), second, third]
rows = step_table(chat_log)
wb.checks.equal([(r["step"], r["retries"]) for r in rows], [(1, 1), (2, 0), (3, 0)],
                "(step, retries) of a log with one retry",
                "a request equal to the one before it is that step sent again: count it in retries, not as a step")
wb.checks.equal(rows[0], {"step": 1, "api": "chat", "system": "Be kind.", "tools": ["get_order"], "strict": [True],
                          "tool_choice": "auto", "parallel_tool_calls": None, "outputs": [], "retries": 1},
                "the first row of a Chat Completions log")
wb.checks.equal([r["outputs"] for r in rows[1:]], [["shipped"], ["delivered"]], "the observations steps 2 and 3 send",
                "only the tool messages at the end: the earlier ones went out with an earlier step")

flat = {"type": "function", "name": "get_order", "parameters": {}}
fc = {"type": "function_call", "call_id": "c1", "name": "get_order", "arguments": "{}"}
out = {"type": "function_call_output", "call_id": "c1", "output": "shipped"}
responses_log = [{"model": "m", "instructions": "Help.", "input": [{"role": "user", "content": "A-1001?"}],
                  "tools": [flat], "parallel_tool_calls": False},
                 {"model": "m", "instructions": "Help.", "input": [{"role": "user", "content": "A-1001?"}, fc, out],
                  "tools": [flat], "parallel_tool_calls": False}]
rows = step_table(responses_log)
wb.checks.equal([(r["api"], r["system"], r["tools"], r["strict"], r["tool_choice"], r["parallel_tool_calls"], r["outputs"])
                 for r in rows], [("responses", "Help.", ["get_order"], [None], None, False, []),
                                  ("responses", "Help.", ["get_order"], [None], None, False, ["shipped"])],
                "the rows of a Responses log", "the system text is `instructions`; tools are flat; strict not sent is None")
print("step_table: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "step_table_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: a developer message, no system text, two retries, parallel outputs after a
second round, no tools; an empty log."""
### BEGIN HIDDEN TESTS
import copy

from workbook.checks import fresh

wb = fresh()
t = {"type": "function", "function": {"name": "a", "parameters": {}}}
u = {"type": "function", "function": {"name": "b", "parameters": {}, "strict": False}}
call = {"role": "assistant", "content": None, "tool_calls": []}
one = {"messages": [{"role": "developer", "content": "Dev."}, {"role": "user", "content": "q"}], "tools": [t, u]}
two = {"messages": one["messages"] + [call, {"role": "tool", "tool_call_id": "1", "content": "x"}], "tools": [t, u],
       "parallel_tool_calls": True}
three = {"messages": two["messages"] + [call, {"role": "tool", "tool_call_id": "2", "content": "y"},
                                        {"role": "tool", "tool_call_id": "3", "content": "z"}]}
rows = step_table([one, copy.deepcopy(one), copy.deepcopy(one), two, three, copy.deepcopy(three)])
wb.checks.equal([(r["step"], r["system"], r["tools"], r["strict"], r["parallel_tool_calls"], r["outputs"], r["retries"])
                 for r in rows],
                [(1, "Dev.", ["a", "b"], [None, False], None, [], 2), (2, "Dev.", ["a", "b"], [None, False], True, ["x"], 0),
                 (3, "Dev.", [], [], None, ["y", "z"], 1)], "a log with a developer message and retries")
plain = step_table([{"messages": [{"role": "user", "content": "hi"}]}, {"input": "hi", "model": "m"}])
wb.checks.equal([(r["step"], r["api"], r["system"], r["outputs"]) for r in plain],
                [(1, "chat", None, []), (2, "responses", None, [])], "no system text, a string input")
wb.checks.equal(step_table([]), [], "an empty log")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the log it handed step_table, so only it can see whether that
# list changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(step_table, [{"model": "m", "messages": [{"role": "system", "content": "Be kind."},
                                                        {"role": "user", "content": "A-1001?"}]}]))

# %% [markdown]
# Now the side-by-side table of the three runs above. `tokens(body)` is the fake's size of a
# request (a token per 4 characters of its JSON); every request is counted, retries too.

# %%
tables = {name: step_table(log) for name, log in logs.items()}
lines = {
    "model steps": lambda t, log: len(t),
    "requests sent (retries)": lambda t, log: f"{len(log)} ({sum(r['retries'] for r in t)})",
    "API": lambda t, log: t[0]["api"],
    "system text": lambda t, log: (t[0]["system"] or "")[:17] + "…",
    "tool definitions strict": lambda t, log: t[0]["strict"][0],
    "tool_choice sent": lambda t, log: t[0]["tool_choice"],
    "parallel_tool_calls sent": lambda t, log: t[0]["parallel_tool_calls"],
    "failed call's observation": lambda t, log: t[1]["outputs"][-1][:17] + "…",
    "tokens sent (fake's rule)": lambda t, log: sum(tokens(body) for body in log),
}
print(f"{'':26}" + "".join(f"{name:>20}" for name in logs))
for label, cell in lines.items():
    print(f"{label:26}" + "".join(f"{str(cell(tables[n], logs[n])):>20}" for n in logs))

# %% [markdown]
# With one registry and your adapter, the three loops send the same tools and the same error
# observation. What differs is what the frameworks chose, and each sends a few more tokens per
# request than your loop here: the Agents SDK speaks Responses (its items carry ids and statuses);
# pydantic-ai adds `tool_choice: "auto"`, the API's default anyway. Neither added hidden text to the system
# prompt at these versions: that is a finding about 0.24.0 and 2.78.0, not a promise about the
# next release — which is why you keep the log and the table.
#
# ## Part 3 · What the framework decided
#
# Your loop decides nothing you did not write. A framework decides a lot, and its defaults are
# the framework's, not the API's. Three faults and the first request show four decisions. Here each framework gets the
# shop's tools **its own way** (`agents.function_tool(fn)`, `Tool(fn)`), as its documentation
# suggests, so you see its defaults rather than your adapter's:
#
# - `never_stops`: a model that asks for a tool at every step (its step limit);
# - `rate_limit`: the taxi question, with one 429 before the first answer (who retries);
# - `tool_raises`: an order that does not exist, so the tool raises `KeyError` (what the model is told);
# - and, in any of them, the `tool_choice` the first request carries.

# %%
shop = Shop("C-001")
own_tools = {"openai-agents": [agents.function_tool(fn) for fn in shop.tools().values()],
             "pydantic-ai": [Tool(fn) for fn in shop.tools().values()]}
faults = {"never_stops": scenarios.repeat_forever(), "rate_limit": scenarios.rate_limited(1),
          "tool_raises": scenarios.missing_order()}
fault_runs, endings = {}, {}
for framework, tools in own_tools.items():
    fault_runs[framework] = {}
    for fault, scenario in faults.items():
        llm = FakeLLM(scenario)
        ended = frameworks.run(framework, llm.client(), tools, scenario.question, SYSTEM)
        fault_runs[framework][fault] = llm.requests
        endings[framework, fault] = ended["error"] or ended["output"]
for (framework, fault), ending in endings.items():
    ending = ending if len(ending) <= 56 else ending[:55] + "…"
    print(f"{framework:14} {fault:12} requests: {len(fault_runs[framework][fault]):2}  ended: {ending}")

# %% [markdown]
# ## Exercise 3 — `decided` (3 points)
#
# Write `decided(runs)`: from the requests of one framework's three fault runs (a dict with the
# keys `"never_stops"`, `"rate_limit"`, `"tool_raises"`, each a list of request bodies), what the
# framework decided, as a dict:
#
# - `"step_limit"`: how many model **steps** the `never_stops` run made before the framework
#   stopped it: the requests, less the retries (a request equal to the one just before it);
# - `"retries_on_429"`: how many times the `rate_limit` run sent its first request again;
# - `"tool_error"`: the text the `tool_raises` run sent back to the model for the failing call
#   (the last observation of its last request: a `tool` message's `content` or a
#   `function_call_output`'s `output`), or `None` when no request carried one (the framework ended
#   the run instead);
# - `"tool_choice"`: the `tool_choice` of the first request of `never_stops` as sent, `None` when
#   it was not sent. Not what you believe the default is: what the request says.
#
# Write it on its own (do not call `step_table`).

# %% nbgrader={"grade": false, "grade_id": "decided", "locked": false, "schema_version": 3, "solution": true}
def decided(runs):
    """One framework's fault runs -> its step limit, its 429 retries, its tool error text, its tool_choice."""
    ### BEGIN SOLUTION
    never = runs["never_stops"]
    steps = sum(1 for i, body in enumerate(never) if i == 0 or body != never[i - 1])
    limited = runs["rate_limit"]
    retries = 0
    while retries + 1 < len(limited) and limited[retries + 1] == limited[0]:
        retries += 1
    error = None
    for body in runs["tool_raises"]:
        items = body.get("messages") or body.get("input") or []
        for item in items if isinstance(items, list) else []:
            if item.get("role") == "tool":
                error = item.get("content")
            elif item.get("type") == "function_call_output":
                error = item.get("output")
    return {"step_limit": steps, "retries_on_429": retries, "tool_error": error,
            "tool_choice": never[0].get("tool_choice") if never else None}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "decided_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: decided reads a step limit without its retries, the retries of a 429, the text
a failing tool sent back (or None when the run ended), and tool_choice as sent (None when not)."""
from workbook.checks import fresh

wb = fresh()


def chat(*contents, choice=None):
    messages = [{"role": "user", "content": "q"}] + [{"role": "tool", "tool_call_id": str(i), "content": c}
                                                     for i, c in enumerate(contents)]
    return {"model": "m", "messages": messages} | ({"tool_choice": choice} if choice else {})


never = [chat(choice="auto"), chat("1", choice="auto"), chat("1", choice="auto"), chat("1", "2", choice="auto")]
runs = {"never_stops": never, "rate_limit": [chat(), chat(), chat(), chat("ok")],
        "tool_raises": [chat(), chat('{"error": "KeyError: no A-1003"}')]}
wb.checks.equal(decided(runs), {"step_limit": 3, "retries_on_429": 2, "tool_error": '{"error": "KeyError: no A-1003"}',
                                "tool_choice": "auto"}, "decided on a Chat Completions framework",
                "a request equal to the one before it is a retry, not a step")
runs = {"never_stops": [{"model": "m", "input": "q"}], "rate_limit": [{"model": "m", "input": "q"}],
        "tool_raises": [{"model": "m", "input": [{"role": "user", "content": "q"}]}]}
wb.checks.equal(decided(runs), {"step_limit": 1, "retries_on_429": 0, "tool_error": None, "tool_choice": None},
                "decided on a framework that sent no tool_choice and ended the run when its tool raised",
                "tool_choice not sent is None (not a default from memory)")
print("decided: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "decided_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: the Agents SDK's and pydantic-ai's real fault runs, recorded on the fake with
their defaults and with other settings (a step limit of 3, five retries)."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
out = {"type": "function_call_output", "call_id": "c", "output": "An error occurred while running the tool."}
fc = {"type": "function_call", "call_id": "c", "name": "get_order", "arguments": "{}"}
ask = {"role": "user", "content": "q"}
never = [{"model": "m", "input": [ask] + [fc, out] * i, "tool_choice": "required"} for i in range(3)]
runs = {"never_stops": never, "rate_limit": [{"input": [ask]}] * 6 + [{"input": [ask, fc, out]}],
        "tool_raises": [{"input": [ask]}, {"input": [ask, fc, out]}, {"input": [ask, fc, out, fc, out]}]}
wb.checks.equal(decided(runs), {"step_limit": 3, "retries_on_429": 5, "tool_error": out["output"],
                                "tool_choice": "required"}, "decided on a Responses framework")
runs = {"never_stops": [{"messages": [ask]}] * 2 + [{"messages": [ask, {"role": "tool", "content": "x"}]}],
        "rate_limit": [{"messages": [ask]}, {"messages": [ask, {"role": "tool", "content": "x"}]}, {"messages": [ask]}],
        "tool_raises": [{"messages": [ask]}]}
wb.checks.equal(decided(runs), {"step_limit": 2, "retries_on_429": 0, "tool_error": None, "tool_choice": None},
                "retries only right after the first request; no tool output at all")
### END HIDDEN TESTS

# %%
for framework in own_tools:
    print(framework, decided(fault_runs[framework]))

# %% [markdown]
# What those numbers are, and where each comes from in the source (docs/SOURCES.md, "Chapter 24").
# `retries_on_429` counts the retries this run needed, one for its one 429: how many a framework
# would make is the table's row.
#
# | decision | OpenAI Agents SDK 0.24.0 | pydantic-ai 2.78.0 | your loop |
# |---|---|---|---|
# | step limit | `max_turns=10` (`DEFAULT_MAX_TURNS`, `agents/run_config.py`), then `MaxTurnsExceeded` | `UsageLimits.request_limit = 50` (`pydantic_ai/usage.py`), then `UsageLimitExceeded` | your `max_steps` |
# | retry on 429 / 5xx | none of its own unless you opt in (`ModelRetrySettings`, `agents/retry.py`): the openai client's `max_retries`, 2 by default (`openai/_constants.py`) | none of its own: the same openai client's retries | yours (chapter 08) |
# | a tool that raises | `function_tool`'s default `failure_error_function` sends the model *"An error occurred while running the tool. Please try again."* (`agents/tool.py`) — the error's text never reaches it, and here the model guessed; a bare `FunctionTool` whose `on_invoke_tool` raises ends the run with `UserError` | the exception ends the run; only `ModelRetry` goes back to the model (`pydantic_ai/_tool_execution.py`) | an error observation (chapter 05) |
# | `tool_choice` | not sent unless `ModelSettings.tool_choice` is set (`convert_tool_choice`, `agents/models/openai_responses.py`) | `"auto"` sent whenever tools are (`resolve_tool_choice`, `pydantic_ai/models/_tool_choice.py`) | not sent |
#
# Each is reasonable. None of them is what you would have guessed for all four, and the hidden
# error text is the expensive one: the model cannot tell "no such order" from a crash, and answers
# anyway. Read the requests, then the source; a blog post about an older version tells you neither.
#
# One more decision shows in the `rate_limit` run above: the Agents SDK's answer quotes
# `{'category': 'taxi', ...}`. A `function_tool` that returns a dict is sent to the model as
# `str(result)`, Python's own notation with single quotes, not JSON (`ItemHelpers._convert_tool_output`,
# `agents/items.py`); the fake reads observations as JSON, could not read this one, and said so.
# pydantic-ai sends that dict as compact JSON (`{"category":"taxi",...}`), your loop as
# `json.dumps` writes it.
#
# ## Part 4 · One framework feature, by hand
#
# A framework sells features: handoffs, guardrails, structured output. Each is a few lines of a
# loop, and the fake shows which lines. Take pydantic-ai's **structured output**:
# `Agent(..., output_type=...)` makes a run's result data of your schema instead of text. You might
# expect the API's own structured output (`response_format` on Chat Completions, or `text.format`
# on Responses, which is what the Agents SDK's `output_type` sends: `get_response_format`,
# `agents/models/openai_responses.py`). pydantic-ai 2.78.0 does something else by default. Give it
# a schema (`StructuredDict` takes a JSON Schema) and read what it sent:

# %%
VERDICT = {"type": "object", "properties": {"order_id": {"type": "string"}, "status": {"type": "string"}},
           "required": ["order_id", "status"], "additionalProperties": False}
STATUS = scenarios.scripted(scenarios.call("get_order", order_id="A-1001"),
                            scenarios.call("final_result", order_id="A-1001", status="shipped"),
                            name="order_status", question="What is the status of my order A-1001?")

framework_llm = FakeLLM(STATUS)
structured_agent = frameworks.pydantic_ai_agent(framework_llm.client(), adapt_tools(specs, "pydantic-ai"), SYSTEM,
                                                output_type=StructuredDict(VERDICT))
structured = await structured_agent.run(STATUS.question)
print("output:", structured.output)
for number, body in enumerate(framework_llm.requests, 1):
    print(f"request {number}: tool_choice {body.get('tool_choice')!r}, "
          f"tools {', '.join(t['function']['name'] for t in body['tools'])}")
print(json.dumps(framework_llm.requests[0]["tools"][-1], indent=1))

# %% [markdown]
# Structured output is **a tool**. pydantic-ai adds one definition after yours, `final_result`,
# described *"The final response which ends this conversation"*, whose parameters are your schema
# (strict, because the schema allows it), and it sends `tool_choice: "required"`: the model must
# call a tool at every step, and the only way to finish is to call that one. When it does, the run
# ends with the call's arguments as the output, and nothing more is sent. (`DEFAULT_OUTPUT_TOOL_NAME`
# in `pydantic_ai/output.py`, `DEFAULT_OUTPUT_TOOL_DESCRIPTION` in `pydantic_ai/_output.py`,
# `resolve_tool_choice` in `pydantic_ai/models/_tool_choice.py`; docs/SOURCES.md.)
#
# One more decision hides in that ending. The model may ask for other tools in the same reply as
# `final_result`. pydantic-ai 2's default, `end_strategy="graceful"`, runs every one of them, in
# order, and then ends the run: their results never reach the model. (Version 1's default,
# `"early"`, skipped them; and when one reply calls `final_result` twice, the first wins.) A refund
# asked for beside the final answer is made, and nobody reads its result.
#
# ## Exercise 4 — `run_with_output` (3 points)
#
# Write `run_with_output(client, question, tools, registry, schema, max_steps=10, model="fake-model")`:
# `run_by_hand` with pydantic-ai's structured output, sending what pydantic-ai 2.78.0 sends. It
# returns `(output, stop status)`.
#
# - Every request sends `tools` and then one more definition, the output tool: `{"type":
#   "function", "function": {"name": OUTPUT_NAME, "description": OUTPUT_DESCRIPTION, "parameters":
#   schema, "strict": True}}` (both names are given in the answer cell), and `tool_choice:
#   "required"`. The `tools` list you were given stays as it was.
# - The calls of a reply run in order, each answered with `tool_message(call, registry)`, except
#   the `final_result` calls, which run nothing.
# - A reply that called `final_result` ends the run once its other calls have run: return the
#   arguments of its **first** `final_result` call, parsed (a dict), and `"done"`. No request
#   follows it.
# - After `max_steps` requests without a `final_result` call: `(None, "STOPPED: step limit")`.

# %% nbgrader={"grade": false, "grade_id": "run_with_output", "locked": false, "schema_version": 3, "solution": true}
OUTPUT_NAME = "final_result"  # pydantic_ai/output.py, 2.78.0
OUTPUT_DESCRIPTION = "The final response which ends this conversation"  # pydantic_ai/_output.py


def run_with_output(client, question, tools, registry, schema, max_steps=10, model="fake-model"):
    """run_by_hand with pydantic-ai's structured output: (the output as a dict, or None; stop status)."""
    ### BEGIN SOLUTION
    output_tool = {"type": "function", "function": {"name": OUTPUT_NAME, "description": OUTPUT_DESCRIPTION,
                                                    "parameters": schema, "strict": True}}
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        message = client.chat.completions.create(model=model, messages=messages, tools=[*tools, output_tool],
                                                 tool_choice="required").choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        outputs = [json.loads(c.function.arguments) for c in message.tool_calls or [] if c.function.name == OUTPUT_NAME]
        messages.extend(tool_message(c, registry) for c in message.tool_calls or [] if c.function.name != OUTPUT_NAME)
        if outputs:
            return outputs[0], "done"
    return None, "STOPPED: step limit"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_with_output_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_with_output sends what pydantic-ai 2.78.0 sends for structured output on the
same fake (tests/test_frameworks.py runs pydantic-ai on this scenario and checks it sends exactly
this): your tools and then final_result with its description, the schema and strict, with
tool_choice "required", and no request after final_result; the other calls of that reply still
run; the first final_result's arguments come back as a dict; max_steps stops a model that
never calls final_result."""
import json
from collections.abc import Callable
from dataclasses import dataclass

from workbook.checks import fresh


#@include 02_the_loop ToolSpec


wb = fresh()
S = wb.scenarios
ran = []


def get_order(order_id: str) -> dict:
    """Look an order up."""
    ran.append(f"get_order {order_id}")
    return {"order_id": order_id, "status": "shipped"}


def block_card() -> dict:
    """Block the customer's card."""
    ran.append("block_card")
    return {"blocked": True}


def strict(properties):
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def as_tool(name, description, parameters):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters,
                                             "strict": True}}


registry = {"get_order": ToolSpec("get_order", get_order, "Look an order up.", {"order_id": str}),
            "block_card": ToolSpec("block_card", block_card, "Block the customer's card.", {})}
tools = [as_tool("get_order", "Look an order up.", strict({"order_id": {"type": "string"}})),
         as_tool("block_card", "Block the customer's card.", strict({}))]
verdict = strict({"order_id": {"type": "string"}, "status": {"type": "string"}})
output_tool = as_tool("final_result", "The final response which ends this conversation", verdict)
model = S.scripted(S.call("get_order", order_id="A-1001"),
                   S.calls(S.Call("final_result", {"order_id": "A-1001", "status": "shipped"}), S.Call("block_card", {}),
                           S.Call("final_result", {"order_id": "A-1001", "status": "lost"})),
                   "The run should have ended at final_result.")

llm = wb.fake_llm.FakeLLM(model)
got = run_with_output(llm.client(max_calls=4, max_retries=0), "Where is A-1001?", tools, registry, verdict)
wb.checks.equal(len(llm.requests), 2, "how many requests the run sent (pydantic-ai sends 2)",
                "a final_result call ends the run: no request follows it")
for number, body in enumerate(llm.requests, 1):
    wb.checks.equal(body.get("tools"), tools + [output_tool], f"the tools of request {number}",
                    "your tools, then final_result: OUTPUT_DESCRIPTION, the schema as parameters, strict True")
    wb.checks.equal(body.get("tool_choice"), "required", f"the tool_choice of request {number}")
wb.checks.equal([m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"],
                [json.dumps({"order_id": "A-1001", "status": "shipped"})], "the observations of request 2")
wb.checks.equal(ran, ["get_order A-1001", "block_card"], "the tools that ran",
                "the other calls of the last reply run too, before the run ends")
wb.checks.equal(got, ({"order_id": "A-1001", "status": "shipped"}, "done"), "run_with_output's answer",
                "the arguments of the first final_result call, parsed, and 'done'")

endless = wb.fake_llm.FakeLLM(S.scripted(S.call("get_order", order_id="A-1001")))
wb.checks.equal(run_with_output(endless.client(max_calls=2, max_retries=0), "Where is A-1001?", tools, registry, verdict,
                                max_steps=2), (None, "STOPPED: step limit"), "a model that never calls final_result, max_steps=2")
print("run_with_output: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_with_output_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: three steps with parallel calls, a failing tool; no tools of your own; the exact
step limit; non-ASCII arguments."""
### BEGIN HIDDEN TESTS
import json
from collections.abc import Callable
from dataclasses import dataclass

from workbook.checks import fresh


#@include 02_the_loop ToolSpec


#@include 24_frameworks strict


#@include 24_frameworks as_tool


wb = fresh()
S = wb.scenarios


def balance(account: str) -> dict:
    """Balance."""
    if account != "main":
        raise KeyError(f"no account {account}")
    return {"account": account, "kzt": 120000}


def rate(currency: str) -> dict:
    """Rate."""
    return {"currency": currency, "kzt": 512.5}


registry = {"balance": ToolSpec("balance", balance, "The balance of an account.", {"account": str}),
            "rate": ToolSpec("rate", rate, "Today's rate of a currency, in KZT.", {"currency": str})}
tools = [as_tool("balance", "The balance of an account.", strict({"account": {"type": "string"}})),
         as_tool("rate", "Today's rate of a currency, in KZT.", strict({"currency": {"type": "string"}}))]
answer = strict({"usd": {"type": "number"}, "note": {"type": "string"}})
output_tool = as_tool("final_result", "The final response which ends this conversation", answer)

model = S.scripted(S.calls(S.Call("balance", {"account": "main"}), S.Call("rate", {"currency": "USD"})),
                   S.call("rate", currency="EUR"),
                   S.call("final_result", usd=234.38, note="Баланс: 120 000 ₸"))
llm = wb.fake_llm.FakeLLM(model)
got = run_with_output(llm.client(max_calls=5, max_retries=0), "How many dollars?", tools, registry, answer)
wb.checks.equal(got, ({"usd": 234.38, "note": "Баланс: 120 000 ₸"}, "done"), "a three-step run's answer")
wb.checks.equal([(b.get("tools"), b.get("tool_choice"), [m["content"] for m in b["messages"] if m["role"] == "tool"])
                 for b in llm.requests],
                [(tools + [output_tool], "required", observed) for observed in (
                    [], [json.dumps(balance("main")), json.dumps(rate("USD"))],
                    [json.dumps(balance("main")), json.dumps(rate("USD")), json.dumps(rate("EUR"))])],
                "three requests as pydantic-ai sends them")

failing = wb.fake_llm.FakeLLM(S.scripted(S.call("balance", account="savings"), S.call("final_result", usd=0, note="none")))
got = run_with_output(failing.client(max_calls=3, max_retries=0), "q", tools, registry, answer)
wb.checks.equal(got, ({"usd": 0, "note": "none"}, "done"), "the answer after a failing tool")
error = wb.checks.error_text(failing.requests[1]["messages"][-1]["content"], "the observation of a failing tool")
assert "savings" in error, "a tool that raises is an error observation, as in run_by_hand"

alone = wb.fake_llm.FakeLLM(S.scripted(S.call("final_result", usd=1.5, note="ok")))
got = run_with_output(alone.client(max_calls=2, max_retries=0), "q", [], {}, answer)
wb.checks.equal(got, ({"usd": 1.5, "note": "ok"}, "done"), "no tools of your own")
wb.checks.equal((alone.requests[0]["tools"], alone.requests[0]["tool_choice"]), ([output_tool], "required"),
                "the tools and tool_choice sent when there are none of your own")

endless = wb.fake_llm.FakeLLM(S.scripted(S.call("rate", currency="USD")))
wb.checks.equal(run_with_output(endless.client(max_calls=4, max_retries=0), "q", tools, registry, answer, max_steps=3),
                (None, "STOPPED: step limit"), "max_steps=3")
wb.checks.equal(len(endless.requests), 3, "requests sent with max_steps=3")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the tools list it handed run_with_output, so only it can see
# whether final_result was added to it (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(run_with_output, FakeLLM(scenarios.scripted(scenarios.call("final_result", answer="ok"))).client(),
               "q", [], {}, {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
                             "additionalProperties": False}))

# %% [markdown]
# Your loop and pydantic-ai, side by side on the same scenario: the same tools, the same
# `tool_choice`, the same observations, as many requests. What is left over is what pydantic-ai
# adds that the feature does not need:

# %%
by_hand_llm = FakeLLM(STATUS)
print("by hand:    ", run_with_output(by_hand_llm.client(), STATUS.question, adapt_tools(specs, "by hand"), REGISTRY, VERDICT))
print("pydantic-ai:", structured.output)
for number, (mine, theirs) in enumerate(zip(by_hand_llm.requests, framework_llm.requests, strict=True), 1):
    same = [key for key in ("tools", "tool_choice", "messages") if mine.get(key) == theirs.get(key)]
    if [m for m in mine["messages"] if m["role"] == "tool"] == [m for m in theirs["messages"] if m["role"] == "tool"]:
        same.append("observations")
    extra = {key: theirs[key] for key in theirs.keys() - mine.keys()}
    print(f"request {number}: the same {', '.join(same)}; only pydantic-ai sent {extra}")

# %% [markdown]
# The messages differ only in how each writes the model's own tool call back (pydantic-ai
# re-serialises the arguments without spaces), and pydantic-ai says `"stream": false` where your
# loop leaves the default. A handoff (chapter 14) or an output guardrail (a check on the output
# before it is returned) comes apart the same way: run the framework's version on the fake, read
# its requests, and write the few lines that send the same thing.
#
# ## Part 5 · By hand, a framework, or no agent
#
# The course's source texts give the criteria; this is their summary:
#
# - **No agent** when the steps are fixed and known in advance, or the result must be
#   deterministic: an endpoint with a form, validation and ordinary business logic is more
#   reliable. The model may extract the parameters from free text, but it does not choose the
#   route. The same goes for an irreversible action, a formal approval or a strict audit of every
#   business rule: the model extracts and drafts, a service with an explicit sequence of checks acts.
# - **A framework** when your code would repeat infrastructure work: several providers, retrieval
#   over documents, stored traces and evaluations, several agents to coordinate. Permissions,
#   schemas, the step limit and the audit stay yours either way.
# - **By hand** otherwise: one transparent route through known tools is easier to control in your
#   own code on the provider's SDK than in a framework added for its name. There is **no threshold
#   in the number of tools**: one reversible call can live in a hand loop for years. What moves the
#   choice is observability, how often the tools change, and the price of a wrong action.
#
# ## Exercise 5 — `build_or_buy` (2 points)
#
# Write `build_or_buy(project)`. `project` is a dict: `"fixed_steps"` (bool: the steps are known in
# advance, or the result must be deterministic), `"irreversible"` (bool: an action that cannot be
# undone, a formal approval, or a strict audit of every business rule),
# `"providers"` (int), `"retrieval"`, `"traces_and_evals"` (bools) and `"agents"` (int: how many
# agents work together), `"tools"` (int). Return `(choice, reason)`, in this order of rules:
#
# 1. fixed steps or an irreversible action → `("no agent", "a service with explicit checks")`;
# 2. more than one provider, retrieval, traces and evaluations, or more than one agent →
#    `("framework", "infrastructure your code would repeat")`;
# 3. otherwise → `("by hand", "one transparent route")`, whatever the number of tools.

# %% nbgrader={"grade": false, "grade_id": "build_or_buy", "locked": false, "schema_version": 3, "solution": true}
def build_or_buy(project):
    """A project's facts -> ("no agent" | "framework" | "by hand", the reason)."""
    ### BEGIN SOLUTION
    if project["fixed_steps"] or project["irreversible"]:
        return ("no agent", "a service with explicit checks")
    if project["providers"] > 1 or project["retrieval"] or project["traces_and_evals"] or project["agents"] > 1:
        return ("framework", "infrastructure your code would repeat")
    return ("by hand", "one transparent route")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "build_or_buy_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: a fixed flow needs no agent, several providers call for a framework, many
tools on one provider with one route stay by hand."""
from workbook.checks import fresh

wb = fresh()
plain = {"fixed_steps": False, "irreversible": False, "providers": 1, "retrieval": False, "traces_and_evals": False,
         "agents": 1, "tools": 2}
wb.checks.equal(build_or_buy(plain | {"fixed_steps": True}), ("no agent", "a service with explicit checks"),
                "a refund form whose steps are fixed")
wb.checks.equal(build_or_buy(plain | {"providers": 3}), ("framework", "infrastructure your code would repeat"),
                "one agent on three providers")
wb.checks.equal(build_or_buy(plain | {"tools": 12}), ("by hand", "one transparent route"),
                "twelve tools, one provider, one route", "the number of tools is no threshold")
print("build_or_buy: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "build_or_buy_hidden_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Hidden tests: an irreversible action, retrieval, traces, a team, the plain case, and the order
of the rules."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
plain = {"fixed_steps": False, "irreversible": False, "providers": 1, "retrieval": False, "traces_and_evals": False,
         "agents": 1, "tools": 1}
cases = [({"irreversible": True}, "no agent"), ({"retrieval": True}, "framework"), ({"traces_and_evals": True}, "framework"),
         ({"agents": 2}, "framework"), ({}, "by hand"), ({"fixed_steps": True, "providers": 4, "agents": 3}, "no agent"),
         ({"tools": 40, "providers": 1}, "by hand")]
for change, choice in cases:
    wb.checks.equal(build_or_buy(plain | change)[0], choice, f"the choice for {change}")
### END HIDDEN TESTS

# %% [markdown]
# ## Reading: three traces of one run
#
# Both frameworks trace, each its own way. The Agents SDK traces **by default**: unless
# `tracing_disabled=True` (as `frameworks.agents_sdk` sets it) or `OPENAI_AGENTS_DISABLE_TRACING=1`,
# its default processor sends every run's trace to OpenAI's servers
# (`https://api.openai.com/v1/traces/ingest`, `agents/tracing/processors.py`), in span types of its
# own (`agents/tracing/span_data.py`), not OpenTelemetry's. pydantic-ai writes **OpenTelemetry**
# spans in chapter 23's GenAI conventions, only when you switch its instrumentation on
# (`Agent.instrument_all()`, or the `Instrumentation` capability), to the tracer provider you give
# it.
#
# Here is the `ORDERS` run of Part 2 traced three times, every trace kept on this machine: the
# Agents SDK's through a processor that keeps its spans (`agents.set_trace_processors` replaces
# the exporter to OpenAI), pydantic-ai's into chapter 23's recorder, and your loop's drawn from its
# messages in chapter 23's spans.

# %%
sdk_trace = frameworks.AgentsTrace()
agents.set_trace_processors([sdk_trace])  # the SDK's only processor from now on: nothing goes to OpenAI
traced_llm = FakeLLM(ORDERS)
traced, traced_config = frameworks.agents_sdk(traced_llm.client(), adapt_tools(specs, "openai-agents"), SYSTEM,
                                              tracing=True)
await agents.Runner.run(traced, ORDERS.question, run_config=traced_config)
print("OpenAI Agents SDK, its own trace:")
print(spans.tree(sdk_trace.spans(), times=False))

recorder = otel.Recorder()
instrumented = frameworks.pydantic_ai_agent(FakeLLM(ORDERS).client(), adapt_tools(specs, "pydantic-ai"), SYSTEM,
                                            tracer_provider=recorder.provider, name="support")
await instrumented.run(ORDERS.question)
print("\npydantic-ai, OpenTelemetry once switched on:")
print(spans.tree(recorder, times=False))

print("\nyour loop, in chapter 23's spans (drawn from its messages and tools):")
hand_run = from_messages(hand_llm.requests[-1]["messages"] + [{"role": "assistant", "content": hand_answer}],
                         hand_llm.requests[-1]["tools"])
print(spans.tree(spans.from_trajectory(hand_run, agent="support"), times=False))

function = next(e["span_data"] for e in sdk_trace.exported if e["span_data"]["type"] == "function")
print("\nthe content the SDK's first function span holds:")
print("  input: ", function["input"])
print("  output:", function["output"])
print("traceparent headers the Agents SDK sent:", traced_llm.traceparents)

# %% [markdown]
# | | your loop (chapter 23) | pydantic-ai 2.78.0 | OpenAI Agents SDK 0.24.0 |
# |---|---|---|---|
# | the run | `invoke_agent support` | `invoke_agent support` | `task Agent workflow`, then `agent support` |
# | a step | the model call | the model call | a `turn` span of its own |
# | a model call | `chat fake-model`, CLIENT | `chat fake-model`, CLIENT | `response` (`generation` on Chat Completions) |
# | a tool call | `execute_tool`, **a child of the model call** that asked for it | `execute_tool`, a sibling of the model call | `function`, a sibling of the model call, in its turn |
# | content (arguments, results) | only on opt-in, masked | recorded by default (`include_content=True`) | recorded by default (`trace_include_sensitive_data`, true unless `OPENAI_AGENTS_TRACE_INCLUDE_SENSITIVE_DATA` says otherwise) |
# | where it goes | the exporter you set up | the tracer provider you give it, when switched on | OpenAI's servers, unless you replace the processor or switch tracing off |
# | `traceparent` on the request | yes | no | no |
#
# Chapter 23's spans are what your loop writes because you wrote them: a tool call hangs under the
# model call that asked for it, a failed lookup is an `ERROR` span (to both frameworks your
# adapter's error observation is an ordinary result), content is recorded only when you opt in, and
# the `traceparent` header lets a service that reads it (a gateway, a tool server) join the same
# trace; whether a model provider reads it we could not confirm, as no public LLM API documents it.
# A framework's trace is what the framework chose to record, in the shape it chose, sent where it
# chose, by default; two of those choices (content on, and for the Agents SDK the destination) are
# the ones to change first.
#
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **An adapter that drops a parameter's type** (everything a string) or the tool's description:
#   the model is told less than your registry knows, and strict mode holds it to the wrong type.
# - **A schema that is not strict**: without `additionalProperties: false` the framework sends
#   `strict` off, and the model may invent arguments.
# - **Letting a tool's exception out of the adapter**: both frameworks then end the run, and the
#   customer gets a crash where your loop would have sent an error observation.
# - **Counting a framework's retries as model steps**: a 429 retried twice is one step, three requests.
# - **Reading only the system message**: a Responses framework sends its system text as `instructions`.
# - **Reading `strict` where Chat Completions does not put it**: it is inside `"function"`.
# - **Taking every observation so far as this step's**: a step sends only the ones at the end; the
#   earlier ones went out with the steps before.
# - **A framework default stated from memory**: `tool_choice` absent is not `"auto"`; read the
#   request, then the source of the version you run.
# - **An output tool the model may pass by**: without `tool_choice: "required"` it may answer in
#   text, and the run never gets its data.
# - **An output tool that is not the framework's**: first instead of last, or without `strict`:
#   the model is told something the framework does not tell it, and the two runs stop matching.
# - **Ending the run before the reply's other calls ran**: pydantic-ai 2 runs them (`graceful`);
#   the `early` you may remember is version 1's default.
# - **One more request after `final_result`**: the output ends the run; nothing goes back to the model.
# - **The last `final_result` taken**: the first one wins.
# - **The output returned as JSON text**: parse the arguments; the caller wants a dict.
# - **`final_result` added to the caller's `tools`**: the next run would send it twice. (Not graded:
#   only your kernel can see its own list change; the cell after the tests checks it.)
# - **Choosing a framework by the number of tools**, or an agent for a flow whose steps are fixed.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("24_frameworks")

# %% [markdown]
# ## Live cell (optional)
#
# Both frameworks against a real model, when `LLM_PROVIDER` names a live provider (chapter 00):
# the shop's tools made each framework's own way, one question, the answer and what the run cost
# by the framework's own count. Never graded. The cell needs nothing from the cells above, so it
# runs after a restart too; on Anthropic (no Responses API) the Agents SDK uses its Chat
# Completions model. A failure is blamed on the provider only when the provider's error says so.
# Rehearsed on the fake server (README, "Live providers"), the Agents SDK answers that it could not
# look the orders up: its tools send Python's `str()` of a dict (Part 3), which the fake does not
# read as JSON; a real model reads it.

# %%
import agents
from pydantic_ai import Tool

from workbook import frameworks, scenarios
from workbook.providers import SKIP_HINT, ProviderError, current, live_enabled, live_failure, make_client
from workbook.shop import Shop

if live_enabled():
    try:
        live_client, live_model = make_client()
        live_tools, live_question = Shop("C-001").tools().values(), scenarios.two_orders().question
        live_system = "You are Northwind's support agent. Use the tools; never guess an order's status."
        live_sdk, live_config = frameworks.agents_sdk(live_client, [agents.function_tool(fn) for fn in live_tools],
                                                      live_system, model=live_model,
                                                      responses=current().name != "anthropic")
        live_pydantic = frameworks.pydantic_ai_agent(live_client, [Tool(fn) for fn in live_tools], live_system,
                                                     model=live_model)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is
        print(live_failure(e, "making the two agents"))
    else:
        for name, start in (("openai-agents", lambda: agents.Runner.run(live_sdk, live_question, run_config=live_config)),
                            ("pydantic-ai", lambda: live_pydantic.run(live_question))):
            try:
                live = await start()
            except Exception as e:  # its own text (no key), and whose failure it is: the provider's or the framework's
                print(f"{name}: {live_failure(e, name)}")
            else:
                usage = live.context_wrapper.usage if name == "openai-agents" else live.usage
                print(f"{name}: {live.final_output if name == 'openai-agents' else live.output}\n"
                      f"  {usage.requests} requests, {usage.input_tokens} input and {usage.output_tokens} output tokens")
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# You have read two frameworks the way this chapter reads any of them: run it on the fake, put its
# requests beside your loop's, find what it decided in the source of the version you run, and
# rebuild the one feature you need in a few lines when that is all you need. **25 · An agent that
# writes and runs code** lets the model answer with a program instead of a tool call, and asks what
# must stand between that program and your machine.
