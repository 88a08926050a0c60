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
# observations, 08 · Retries, 21 · The Responses API (items, flat tool definitions).

# %% [markdown]
# ## Given code
#
# `ToolSpec` from chapter 02; `TYPES`, the JSON Schema type of each Python type a tool may take;
# `REGISTRY`, the shop's four tools as `ToolSpec`s (their docstrings are the descriptions); and
# `run_by_hand`, the loop of chapter 03 with a system prompt: your own loop, the one to compare.
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
from pydantic_ai import Tool

from workbook import frameworks, scenarios
from workbook.fake_llm import FakeLLM, tokens
from workbook.shop import Shop


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


def run_by_hand(client, question, tools, registry, max_steps=10, model="fake-model"):
    """Chapter 03's loop with a system prompt: (answer or None, stop status). A tool that raises
    is an error observation (chapter 05)."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        message = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, "done"
        for call in message.tool_calls:
            try:
                result = registry[call.function.name].fn(**json.loads(call.function.arguments))
            except Exception as e:  # news for the model, not a crash
                result = {"error": f"{type(e).__name__}: {e}"}
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
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
        def run(**arguments):
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
print("by hand:      ", run_by_hand(hand_llm.client(), ORDERS.question, adapt_tools(specs, "by hand"), REGISTRY))

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
strict, tool_choice and parallel_tool_calls as sent, the new observations only; a request sent
again is a retry of its step, not a step."""
import copy

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
tool = {"type": "function", "function": {"name": "get_order", "parameters": {}, "strict": True}}
ask = [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "A-1001?"}]
call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                              "function": {"name": "get_order", "arguments": "{}"}}]}
first = {"model": "m", "messages": ask, "tools": [tool], "tool_choice": "auto"}
second = {"model": "m", "messages": ask + [call, {"role": "tool", "tool_call_id": "c1", "content": "shipped"}],
          "tools": [tool], "tool_choice": "auto"}
chat_log = [first, copy.deepcopy(first), second]
before = copy.deepcopy(chat_log)
rows = step_table(chat_log)
assert after(chat_log) == before, "step_table must not change the requests"
wb.checks.equal([(r["step"], r["retries"]) for r in rows], [(1, 1), (2, 0)], "(step, retries) of a log with one retry",
                "a request equal to the one before it is that step sent again: count it in retries, not as a step")
wb.checks.equal(rows[0], {"step": 1, "api": "chat", "system": "Be kind.", "tools": ["get_order"], "strict": [True],
                          "tool_choice": "auto", "parallel_tool_calls": None, "outputs": [], "retries": 1},
                "the first row of a Chat Completions log")
wb.checks.equal(rows[1]["outputs"], ["shipped"], "the observations the second step sends")

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

# %% [markdown]
# Now the side-by-side table of the three runs above. `tokens(body)` is the fake's size of a
# request (a token per 4 characters of its JSON); every request is counted, retries too.

# %%
tables = {name: step_table(log) for name, log in logs.items()}
lines = {
    "model steps": lambda t, log: len(t),
    "requests sent (retries)": lambda t, log: f"{len(log)} ({sum(r['retries'] for r in t)})",
    "API": lambda t, log: t[0]["api"],
    "system text": lambda t, log: (t[0]["system"] or "")[:24] + "…",
    "tool definitions strict": lambda t, log: t[0]["strict"][0],
    "tool_choice sent": lambda t, log: t[0]["tool_choice"],
    "parallel_tool_calls sent": lambda t, log: t[0]["parallel_tool_calls"],
    "observation of the failed call": lambda t, log: t[1]["outputs"][-1][:34] + "…",
    "tokens sent (fake's rule)": lambda t, log: sum(tokens(body) for body in log),
}
print(f"{'':32}" + "".join(f"{name:>38}" for name in logs))
for label, cell in lines.items():
    print(f"{label:32}" + "".join(f"{str(cell(tables[n], logs[n])):>38}" for n in logs))

# %% [markdown]
# With one registry and your adapter, the three loops send the same tools and the same error
# observation. What differs is what the frameworks chose: the Agents SDK speaks Responses (its
# items carry ids and statuses, a few more tokens per request here); pydantic-ai adds
# `tool_choice: "auto"`, the API's default anyway. Neither added hidden text to the system
# prompt at these versions: that is a finding about 0.24.0 and 2.78.0, not a promise about the
# next release — which is why you keep the log and the table.
#
# ## Part 3 · What the framework decided
#
# Your loop decides nothing you did not write. A framework decides a lot, and its defaults are
# the framework's, not the API's. Four faults show four decisions. Here each framework gets the
# shop's tools **its own way** (`agents.function_tool(fn)`, `Tool(fn)`), as its documentation
# suggests, so you see its defaults rather than your adapter's:
#
# - `never_stops`: a model that asks for a tool at every step (its step limit);
# - `rate_limit`: one 429 before the first answer (who retries, how often);
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
    print(f"{framework:14} {fault:12} {len(fault_runs[framework][fault]):3} requests, ended: {ending[:90]}")

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
# What those numbers are, and where each comes from in the source (docs/SOURCES.md, "Chapter 24"):
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
# ## Part 4 · By hand, a framework, or no agent
#
# The course's source texts give the criteria; this is their summary:
#
# - **No agent** when the steps are fixed and known in advance: an endpoint with a form, validation
#   and ordinary business logic is more reliable. The model may extract the parameters from free
#   text, but it does not choose the route. The same goes for an irreversible action or a formal
#   approval: the model drafts, a service with explicit checks acts.
# - **A framework** when your code would repeat infrastructure work: several providers, retrieval
#   over documents, stored traces and evaluations, several agents to coordinate. Permissions,
#   schemas, the step limit and the audit stay yours either way.
# - **By hand** otherwise: one transparent route through known tools is easier to control in your
#   own code on the provider's SDK than in a framework added for its name. There is **no threshold
#   in the number of tools**: one reversible call can live in a hand loop for years.
#
# ## Exercise 4 — `build_or_buy` (2 points)
#
# Write `build_or_buy(project)`. `project` is a dict: `"fixed_steps"` (bool: the steps are known in
# advance), `"irreversible"` (bool: an action that cannot be undone, or needs formal approval),
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
# ## Reading: the frameworks' own traces
#
# Both frameworks trace, each its own way. The Agents SDK traces **by default**: unless
# `tracing_disabled=True` (as here) or `OPENAI_AGENTS_DISABLE_TRACING=1`, its default processor
# sends every run's trace to OpenAI's servers (`https://api.openai.com/v1/traces/ingest`,
# `agents/tracing/processors.py`), with its own span types (agent, generation, function, handoff,
# guardrail) rather than OpenTelemetry's. pydantic-ai writes **OpenTelemetry** spans, only when you
# switch instrumentation on (`Agent.instrument_all()` or `instrument=`), to whatever OTel exporter
# you set up: the same kind of spans as chapter 23's, under its own names. Chapter 23's spans are
# what your loop writes because you wrote them; a framework's trace is what the framework chose to
# record, sent where the framework chose, by default.
#
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch, except the one marked "not graded".
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
# - **Taking every observation so far as this step's**: a step sends only the ones at the end
#   (not graded yet: no test tells the two apart).
# - **A framework default stated from memory**: `tool_choice` absent is not `"auto"`; read the
#   request, then the source of the version you run.
# - **Choosing a framework by the number of tools**, or an agent for a flow whose steps are fixed.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("24_frameworks")

# %% [markdown]
# ## Live cell (optional)
#
# The same three loops against a real model, when `LLM_PROVIDER` names a live provider (chapter
# 00). Never graded; it prints each loop's answer and how many requests it sent.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        print("by hand:", run_by_hand(live_client, ORDERS.question, adapt_tools(specs, "by hand"), REGISTRY,
                                      model=live_model))
        live_agent = frameworks.pydantic_ai_agent(live_client, adapt_tools(specs, "pydantic-ai"), SYSTEM, model=live_model)
        print("pydantic-ai:", (await live_agent.run(ORDERS.question)).output)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # the provider is down or refused: no traceback (and no key) in a cell
        print(f"The live call failed ({type(e).__name__}): check LLM_PROVIDER, the key and the network.")
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# One framework feature rebuilt by hand is a good next exercise: an output guardrail is a check on
# the final answer before it is returned (a few lines after your loop's last step), and
# structured output is one more request field (`response_format` on Chat Completions, `text.format`
# on Responses). Run the framework's version on the fake, yours beside it, and compare the two
# requests with `step_table`: when they match, you know exactly what the feature does.
