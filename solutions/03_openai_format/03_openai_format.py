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
# # 03 · The OpenAI wire format
#
# So far the model was a Python function that returned a small dict. Real providers are reached
# over HTTP, and the messages they exchange have a fixed shape: tools are described as JSON
# Schema, a tool call has an **id**, its arguments arrive as a JSON **string**, and every result
# must name the call it answers. Get the shape wrong and the provider does not guess what you
# meant: it answers **HTTP 400**.
#
# This chapter moves the loop onto `client.chat.completions.create`, the OpenAI Chat Completions
# API, which OpenAI, DeepSeek, Ollama and many others speak. The client is the real `openai`
# package; only the server behind it is the workbook's fake, which enforces the same rules and
# returns the same error texts as the real thing.
#
# **Learning goals.** After this chapter you can
# - describe a tool as JSON Schema, and convert Anthropic-style definitions to OpenAI's;
# - read a reply: `finish_reason`, `message.tool_calls`, `function.arguments` (a JSON string);
# - send results back: the assistant turn first, verbatim, then one `tool` message per
#   `tool_call_id`, its `content` a string;
# - recognise the 400 a provider returns when that pairing is broken;
# - write `run_agent(client, model, question, tools, impl)` returning an `AgentResult`;
# - map the same ideas onto Anthropic Messages and OpenAI Responses.
#
# **Time:** about 75 minutes.
#
# **Builds on:** 02 · The loop (errors as observations, the step limit, `AgentResult`). What you
# need from it is restated below as given code.

# %% [markdown]
# ## Given code from chapter 02
#
# The result object of every loop in this workbook, and `call_tool`: chapter 02's `run_tool` cut
# down to a plain dict of functions, name → function. It returns the tool's result, or an
# `{"error": ...}` observation for an unknown tool or any exception (a wrong argument shows up as
# a `TypeError`). It never raises. Chapter 05 brings back full argument validation.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_02", "locked": true, "schema_version": 3, "solution": false}
import copy
import json
from dataclasses import dataclass

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import SCHEMAS, Shop


#@include 02_the_loop AgentResult


def call_tool(impl, name, args):
    """Run impl[name](**args): the result, or {"error": ...} for an unknown tool or any exception."""
    fn = impl.get(name)
    if fn is None:
        return {"error": f"unknown tool {name!r}; available tools: {', '.join(sorted(impl))}"}
    try:
        return fn(**args)
    except Exception as e:  # a failing tool is news for the model, not a crash
        return {"error": f"{type(e).__name__}: {e}"}


# %% [markdown]
# ## Part 1 · Tools as JSON Schema
#
# A provider cannot read your Python functions. You describe each tool in JSON, and the model
# reads exactly that description — nothing else — to decide whether and how to call it. The
# `parameters` part is **JSON Schema**: `type` says what kind of value, `properties` lists the
# fields, `required` says which must be present, and `"additionalProperties": false` says no
# others are allowed. Here is Northwind's `txn_sum`:

# %%
print(json.dumps(SCHEMAS["txn_sum"], indent=2))

# %% [markdown]
# Write descriptions as you would for a new colleague: what the tool does, the format of each
# argument (`YYYY-MM`), what it returns. Note what is *missing*: there is no `customer_id`. The
# customer comes from the session, as in chapter 02.
#
# The schema is a request, not a guarantee. Models still send a wrong format, an extra field or
# broken JSON, so your code keeps checking (chapter 05).
#
# ### The same tool in Anthropic's format
#
# Anthropic's Messages API describes tools with the same JSON Schema, under different keys: flat
# `name` and `description`, and the schema under `input_schema`. Many tool libraries (and the
# course this workbook grew from) keep their tools in that form.
#
# | | Anthropic Messages | OpenAI Chat Completions |
# |---|---|---|
# | tool definition | `{"name", "description", "input_schema"}` | `{"type": "function", "function": {"name", "description", "parameters"}}` |
#
# Here are Northwind's tools written Anthropic-style:

# %%
NORTHWIND_TOOLS = [
    {"name": "txn_sum",
     "description": "Total spending of the logged-in customer for one category and month.",
     "input_schema": {"type": "object",
                      "properties": {"category": {"type": "string", "description": "e.g. taxi, food"},
                                     "month": {"type": "string", "description": "YYYY-MM, e.g. 2026-09"}},
                      "required": ["category", "month"], "additionalProperties": False}},
    {"name": "get_order",
     "description": "Status, item and total of one of the logged-in customer's orders.",
     "input_schema": {"type": "object",
                      "properties": {"order_id": {"type": "string", "description": "e.g. A-1001"}},
                      "required": ["order_id"], "additionalProperties": False}},
]
print([(t["name"], sorted(t["input_schema"]["properties"])) for t in NORTHWIND_TOOLS])

# %% [markdown]
# ## Exercise 1 — `to_openai_tools` (3 points)
#
# Write `to_openai_tools(specs)`: it takes a list of Anthropic-style definitions and returns a
# **new list** of OpenAI definitions, in the same order:
#
# ```python
# {"name": N, "description": D, "input_schema": S}
#     →  {"type": "function", "function": {"name": N, "description": D, "parameters": S}}
# ```
#
# - `description` is optional in both formats: copy it when the spec has one, leave it out when
#   it has none;
# - copy nothing else: other keys (Anthropic's `cache_control`, for instance) mean nothing to
#   OpenAI;
# - do not change the specs you were given.

# %% nbgrader={"grade": false, "grade_id": "to_openai_tools", "locked": false, "schema_version": 3, "solution": true}
def to_openai_tools(specs):
    """Anthropic-style tool definitions -> OpenAI Chat Completions tool definitions."""
    ### BEGIN SOLUTION
    tools = []
    for spec in specs:
        function = {"name": spec["name"]}
        if spec.get("description"):
            function["description"] = spec["description"]
        function["parameters"] = copy.deepcopy(spec["input_schema"])
        tools.append({"type": "function", "function": function})
    return tools
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "to_openai_tools_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: to_openai_tools turns an Anthropic-style definition into a
{"type": "function", "function": {"name", "description", "parameters"}} dict, leaves out a
missing description and any other key (cache_control)."""
schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
specs = [{"name": "get_weather", "description": "Current weather in a city.",
          "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
         {"name": "ping", "input_schema": {"type": "object", "properties": {}},
          "cache_control": {"type": "ephemeral"}}]
tools = to_openai_tools(specs)
assert type(tools) is list and len(tools) == 2, f"expected a list with two tool definitions, got {tools!r}"
assert type(tools[0]) is dict and tools[0].get("type") == "function", (
    f"an OpenAI tool definition starts with 'type': 'function'; got {tools[0]!r}")
assert tools[0].get("function") == {"name": "get_weather", "description": "Current weather in a city.",
                                    "parameters": schema}, (
    "'function' must hold name, description, and the input_schema under the key 'parameters'; "
    f"got {tools[0].get('function')!r}")
assert tools[1] == {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}, (
    "a spec without a description gives no description, and other keys such as cache_control are not "
    f"copied; got {tools[1]!r}")
print("to_openai_tools: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "to_openai_tools_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: to_openai_tools reproduces the shop's OpenAI schemas exactly, keeps order, uses
the nested Chat Completions shape (not the flat Responses one), copies no foreign keys, handles a
missing description and an empty list, and the fake provider accepts the result."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
expected = [wb.shop.SCHEMAS[n] for n in ("txn_sum", "get_order", "card_block", "refund")]
specs = [{"name": t["function"]["name"], "description": t["function"]["description"],
          "input_schema": t["function"]["parameters"]} for t in expected]
tools = to_openai_tools(specs)
assert type(tools) is list and all(type(t) is dict for t in tools), (
    f"return a list of dicts, got {type(tools).__name__}")
for got in tools:
    assert set(got) == {"type", "function"}, (
        f"a Chat Completions tool has exactly the keys 'type' and 'function' (the flat "
        f"name/parameters shape is the Responses API's); got keys {sorted(got)}")
assert [t["function"].get("name") for t in tools] == ["txn_sum", "get_order", "card_block", "refund"], (
    "return one definition per spec, in the order they were given")
for got, want in zip(tools, expected):
    assert got == want, f"expected {want!r}, got {got!r}"

assert to_openai_tools([]) == [] and type(to_openai_tools([])) is list, "no specs give an empty list"

bare = {"name": "ping", "input_schema": {"type": "object", "properties": {}},
        "cache_control": {"type": "ephemeral"}}
(tool,) = to_openai_tools([bare])
fn = tool.get("function", {})
assert fn.get("name") == "ping" and fn.get("parameters") == {"type": "object", "properties": {}}, (
    f"a spec without a description still converts; got {tool!r}")
assert "description" not in fn or type(fn["description"]) is str, (
    f"leave the description out when there is none (not None); got {fn.get('description')!r}")
assert set(fn) <= {"name", "description", "parameters"} and "cache_control" not in tool, (
    f"copy only name, description and the schema; got {tool!r}")

llm = wb.fake_llm.FakeLLM(wb.scenarios.taxi_spending())
tools = to_openai_tools(specs[:2])
try:
    response = llm.client().chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Taxi in September?"}], tools=tools)
except Exception as e:
    raise AssertionError(f"the fake provider refused the converted tools: {e}") from None
assert response.choices[0].finish_reason == "tool_calls", "with the converted tools the model asks for txn_sum"
assert llm.requests[0]["tools"] == expected[:2], "the tools sent on the wire must be the OpenAI definitions"
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the specs it handed to_openai_tools, so only it can see
# whether they changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(to_openai_tools, [{"name": "ping", "description": "Ping.",
                                  "input_schema": {"type": "object", "properties": {}}}]))

# %% [markdown]
# ## Part 2 · One request on the wire
#
# `FakeLLM(scenario).client()` returns a real `openai.OpenAI` client whose HTTP requests are
# answered in-process by the fake provider. Everything from here on works the same against a live
# provider: only the client changes.

# %%
llm = FakeLLM(scenarios.taxi_spending())
client = llm.client()
QUESTION = "How much did I spend on taxis in September?"

messages = [{"role": "user", "content": QUESTION}]
response = client.chat.completions.create(model="fake-model", messages=messages,
                                          tools=[SCHEMAS["txn_sum"]])
choice = response.choices[0]
print("finish_reason:", choice.finish_reason)
print("message:      ", choice.message)

# %% [markdown]
# Read it from the outside in:
#
# - `response.choices[0]` is the reply (one choice unless you ask for more);
# - `finish_reason == "tool_calls"`: the model stopped because it wants tools run. A normal answer
#   ends with `"stop"`; `"length"` means the reply was cut off;
# - `message.content` is `None`: no text this time;
# - `message.tool_calls` is a **list**: one reply may ask for several tools (chapter 04);
# - each call has an `id`, and its `function.arguments` is a **JSON string**, not a dict.

# %%
call = choice.message.tool_calls[0]
print("id:        ", call.id)
print("name:      ", call.function.name)
print("arguments: ", repr(call.function.arguments), type(call.function.arguments).__name__)
args = json.loads(call.function.arguments)
print("parsed:    ", args, type(args).__name__)
print("usage:     ", response.usage)

# %% [markdown]
# The model wrote those arguments as text, token by token, so they can be broken JSON. Parse them
# with `json.loads`, and treat a failure like any other bad call: an error observation, not a
# crash.
#
# The fake records every request body exactly as it went over the wire, so you can always check
# what your code really sent:

# %%
sent = llm.requests[0]
print("model:   ", sent["model"])
print("messages:", sent["messages"])
print("tools:   ", [t["function"]["name"] for t in sent["tools"]])

# %% [markdown]
# ## Part 3 · Sending the results back
#
# Two rules, and the provider checks both:
#
# 1. **The assistant turn goes in first, verbatim.** Append the model's message — with its
#    `tool_calls` and their ids — to `messages` *before* any result. The model needs to see what
#    it asked for, and the provider needs the ids to pair results with calls.
#    `message.model_dump(exclude_none=True)` turns the SDK object into a plain dict with every
#    field the provider sent (including fields other providers add, like DeepSeek's
#    `reasoning_content`, chapter 10). Do not rebuild it by hand: that is how fields get lost.
# 2. **One `tool` message per `tool_call_id`**, right after the assistant turn:
#    `{"role": "tool", "tool_call_id": call.id, "content": "..."}`. The `content` is a
#    **string**: serialise results with `json.dumps`.

# %%
shop = Shop("C-001")  # the session
messages.append(choice.message.model_dump(exclude_none=True))
result = call_tool(shop.tools(), call.function.name, json.loads(call.function.arguments))
messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})

response = client.chat.completions.create(model="fake-model", messages=messages,
                                          tools=[SCHEMAS["txn_sum"]])
print("finish_reason:", response.choices[0].finish_reason)
print("answer:       ", response.choices[0].message.content)
for m in messages:
    print(m)

# %% [markdown]
# ### Several calls in one reply
#
# When the customer asks about two orders, the model asks for both look-ups at once. Every call
# gets its own result message, with its own id. The model reads each result by its id — so a
# result sent with the wrong id is read as the answer to a different question.

# %%
llm = FakeLLM(scenarios.two_orders())
client = llm.client()
messages = [{"role": "user", "content": "Where are my orders A-1001 and A-1002?"}]
reply = client.chat.completions.create(model="fake-model", messages=messages,
                                       tools=[SCHEMAS["get_order"]]).choices[0].message
messages.append(reply.model_dump(exclude_none=True))
for call in reply.tool_calls:
    result = call_tool(shop.tools(), call.function.name, json.loads(call.function.arguments))
    print(call.id, call.function.arguments, "->", result)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
final = client.chat.completions.create(model="fake-model", messages=messages, tools=[SCHEMAS["get_order"]])
print(final.choices[0].message.content)

# %% [markdown]
# ## Part 4 · The 400 you get when the pairing breaks
#
# The SDK does not check any of this for you; the provider does, and it refuses the whole request.
# Here is the most common mistake: the tool result is sent, but the assistant turn that asked for
# it was never appended. Run the cell and read the error (it is meant to fail):

# %% tags=["raises-exception"]
broken = [messages[0], *messages[2:]]  # the question and the two results, without the assistant turn
client.chat.completions.create(model="fake-model", messages=broken, tools=[SCHEMAS["get_order"]])

# %% [markdown]
# `BadRequestError` is the SDK's exception for HTTP 400. The text is the provider's own (the typo
# "preceeding" is OpenAI's). A few more ways to get a 400, and their messages:

# %%
assistant, first, second = messages[1], messages[2], messages[3]
attempts = {
    "only the first result": [messages[0], assistant, first],
    "a dict as content": [messages[0], assistant, first, {**second, "content": {"status": "processing"}}],
    "the first call's id twice": [messages[0], assistant, first, {**second, "tool_call_id": first["tool_call_id"]}],
    "Anthropic's key, tool_use_id": [messages[0], assistant, first,
                                     {"role": "tool", "tool_use_id": second["tool_call_id"], "content": second["content"]}],
}
for what, attempt in attempts.items():
    try:
        client.chat.completions.create(model="fake-model", messages=attempt, tools=[SCHEMAS["get_order"]])
    except Exception as e:
        print(f"{what}:\n    {type(e).__name__}: {e}\n")

# %% [markdown]
# A 400 means *your request* is wrong. Sending it again gives the same 400: fix the messages,
# never retry (chapter 08 separates errors worth retrying from these).

# %% [markdown]
# ## Exercise 2 — `tool_messages` (4 points)
#
# Write `tool_messages(message, impl)`. `message` is the assistant message from the SDK
# (`response.choices[0].message`); `impl` is a dict, tool name → function. Return a **list** with
# one `tool` message per entry of `message.tool_calls`, in the same order:
#
# ```python
# {"role": "tool", "tool_call_id": <that call's id>, "content": <a str>}
# ```
#
# - parse the call's `function.arguments` with `json.loads`; if it is not valid JSON, the result
#   is `{"error": "..."}` with a text that says the arguments are not valid JSON (and the tool
#   does not run);
# - otherwise the result is `call_tool(impl, name, args)`;
# - `content` is the result as JSON text: `json.dumps(result, ensure_ascii=False, default=str)`.
#   `ensure_ascii=False` keeps letters outside ASCII (Cyrillic, `₸`) as they are, not as `\uXXXX`
#   escapes: chapter 15 counts what the escapes cost in tokens.
#
# A message without tool calls (`tool_calls` is `None`) gives `[]`.

# %% nbgrader={"grade": false, "grade_id": "tool_messages", "locked": false, "schema_version": 3, "solution": true}
def tool_messages(message, impl):
    """One `tool` message per tool call of the assistant message, in order."""
    ### BEGIN SOLUTION
    out = []
    for call in message.tool_calls or []:
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError as e:
            result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
        else:
            result = call_tool(impl, call.function.name, args)
        out.append({"role": "tool", "tool_call_id": call.id,
                    "content": json.dumps(result, ensure_ascii=False, default=str)})
    return out
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "tool_messages_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: for a reply asking for two orders, tool_messages runs each tool with its parsed
arguments and returns two tool messages, one per tool_call_id in order, each with the result as
JSON text; broken JSON arguments give an error observation that says so, and the tool does not
run; an unknown tool gives call_tool's error; a reply without tool calls gives []."""
import json

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
reply = llm.client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message
shop = wb.shop.Shop("C-001")
out = tool_messages(reply, shop.tools())
assert type(out) is list and len(out) == 2, f"two tool calls need two tool messages; got {out!r}"
assert shop.log == [("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"})], (
    f"run each tool once with its parsed arguments (json.loads of function.arguments); the shop saw {shop.log}")
for msg, call in zip(out, reply.tool_calls):
    assert type(msg) is dict and msg.get("role") == "tool", f"each item must be a dict with role 'tool'; got {msg!r}"
    assert msg.get("tool_call_id") == call.id, (
        f"each message must answer its own call: expected tool_call_id {call.id!r}, got {msg.get('tool_call_id')!r}")
    assert type(msg.get("content")) is str, (
        f"content must be a str (json.dumps the result), got {type(msg.get('content')).__name__}")
for msg, order_id in zip(out, ("A-1001", "A-1002")):
    try:
        result = json.loads(msg["content"])
    except ValueError:
        result = None
    assert result == shop.get_order(order_id), (
        f"content must be the result as JSON text, json.dumps(result, ...); got {msg['content']!r}")

broken = wb.scenarios.broken_json_then_fix()
reply = wb.fake_llm.FakeLLM(broken).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": broken.question}],
    tools=broken.openai_tools()).choices[0].message
shop = wb.shop.Shop("C-001")
with wb.checks.no_raise("tool_messages(<a call with broken JSON arguments>)",
                        hint="broken JSON becomes an error observation"):
    out = tool_messages(reply, shop.tools())
assert type(out) is list and len(out) == 1 and "json" in str(out[0].get("content")).lower(), (
    f"say in the observation that the arguments are not valid JSON; got {out!r}")
assert shop.log == [], f"a call with broken JSON must not run the tool; the shop saw {shop.log}"

S = wb.scenarios
asks = S.scripted(S.call("lookup_order", order_id="A-1001"), tools=("get_order",))
reply = wb.fake_llm.FakeLLM(asks).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "Where is A-1001?"}],
    tools=asks.openai_tools()).choices[0].message
with wb.checks.no_raise("tool_messages(<a call of lookup_order, a tool impl does not have>)",
                        hint="run every call through call_tool(impl, name, args), which turns an unknown tool "
                        "into an error observation"):
    out = tool_messages(reply, wb.shop.Shop("C-001").tools())
assert type(out) is list and len(out) == 1 and "get_order" in str(out[0].get("content")), (
    f"an unknown tool gives call_tool's error, which lists the tools there are; got {out!r}")

answers = S.scripted("Your order has shipped.")
reply = wb.fake_llm.FakeLLM(answers).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "Where is A-1001?"}]).choices[0].message
with wb.checks.no_raise("tool_messages(<a reply whose tool_calls is None>)",
                        hint="a message without tool calls gives []"):
    out = tool_messages(reply, {})
assert type(out) is list and out == [], f"a message without tool calls (tool_calls is None) gives []; got {out!r}"
print("tool_messages: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "tool_messages_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: tool_messages runs each tool with the parsed arguments, puts each JSON result under
its own id so the provider accepts the next request and the model reads the right result, turns
broken JSON arguments and unknown tools into error observations without raising, serialises
non-dict results, and returns [] for a reply without tool calls."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def first_reply(scenario, messages=None):
    llm = wb.fake_llm.FakeLLM(scenario)
    messages = messages or [{"role": "user", "content": scenario.question}]
    reply = llm.client().chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenario.openai_tools()).choices[0].message
    return llm, messages, reply


def tool_msgs(reply, impl):
    with wb.checks.no_raise("tool_messages", hint="a bad tool call must become an error observation"):
        out = tool_messages(reply, impl)
    assert type(out) is list, f"tool_messages must return a list, got {type(out).__name__}"
    return out


# Two calls: real results, by id, and a provider that accepts them.
scenario = wb.scenarios.two_orders()
llm, messages, reply = first_reply(scenario)
shop = wb.shop.Shop("C-001")
out = tool_msgs(reply, shop.tools())
assert shop.log == [("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"})], (
    f"run each tool once with its parsed arguments (json.loads of function.arguments); the shop saw {shop.log}")
assert [m.get("tool_call_id") for m in out] == [c.id for c in reply.tool_calls], (
    "one tool message per tool call, each with that call's own id, in order")
for m in out:
    assert type(m.get("content")) is str, f"content must be a str, got {type(m.get('content')).__name__}"
    assert set(m) == {"role", "tool_call_id", "content"} and m["role"] == "tool", (
        f"a tool message has exactly role, tool_call_id and content; got {m!r}")
assert [json.loads(m["content"]) for m in out] == [shop.get_order("A-1001"), shop.get_order("A-1002")], (
    "each content must be json.dumps of that call's result")
follow_up = messages + [reply.model_dump(exclude_none=True)] + out
try:
    answer = llm.client().chat.completions.create(model="fake-model", messages=follow_up,
                                                  tools=scenario.openai_tools()).choices[0].message.content
except Exception as e:
    raise AssertionError(f"the provider refused the tool messages: {e}") from None
assert answer == scenario.answer, f"the model read the results by id and answered {answer!r}"

# Broken JSON arguments: an error observation that says so; the tool does not run.
llm, messages, reply = first_reply(wb.scenarios.broken_json_then_fix())
shop = wb.shop.Shop("C-001")
out = tool_msgs(reply, shop.tools())
assert len(out) == 1 and out[0].get("tool_call_id") == reply.tool_calls[0].id, (
    f"a call with broken arguments still needs its tool message; got {out!r}")
assert type(out[0]["content"]) is str and "json" in out[0]["content"].lower(), (
    f"say that the arguments are not valid JSON, so the model can fix them; got {out[0]['content']!r}")
assert shop.log == [], f"a call with broken JSON must not run the tool; the shop saw {shop.log}"

# An unknown tool: call_tool's error, listing the real tools.
llm, messages, reply = first_reply(wb.scenarios.unknown_tool_then_recover())
out = tool_msgs(reply, wb.shop.Shop("C-001").tools())
assert len(out) == 1 and "get_order" in out[0]["content"], (
    f"run every call through call_tool: an unknown tool gives an error listing the tools; got {out!r}")

# A result that is a number, not a dict.
weather = wb.scenarios.weather_and_math()
llm, messages, reply = first_reply(weather)
messages = messages + [reply.model_dump(exclude_none=True)] + [
    {"role": "tool", "tool_call_id": reply.tool_calls[0].id,
     "content": json.dumps({"city": "Almaty", "temp_c": 21, "sky": "sunny"})}]
llm, messages, reply = first_reply(weather, messages)
out = tool_msgs(reply, {"calculate": lambda expression: 69.8})
assert len(out) == 1 and out[0]["content"] == "69.8", (
    f"a tool returning 69.8 gives content '69.8' (json.dumps); got {out!r}")

# No tool calls, no messages.
llm, messages, reply = first_reply(wb.scenarios.long_chat_small_context())
assert reply.tool_calls is None, "test set-up: this reply has no tool calls"
assert tool_msgs(reply, {}) == [], "a reply without tool calls gives []"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · The loop on the wire
#
# The loop is chapter 02's, with the wire format's details:
#
# ```
#  messages = [user question]
#  for step in 1..max_steps:
#      response = client.chat.completions.create(model=..., messages=messages, tools=tools)
#      append the assistant message (verbatim)
#      no tool calls:  finish_reason "stop"  → AgentResult(content, "done", step)
#                      anything else         → AgentResult(None, "STOPPED: <finish_reason>", step)
#      tool calls:     one tool message per call, then the next step
#  → AgentResult(None, "STOPPED: step limit", max_steps)
# ```
#
# A reply without tool calls is final only when `finish_reason` is `"stop"`. A reply cut off by
# the token limit (`"length"`) or by a content filter is not an answer, even when it has some
# text: the run stops with that reason in its status (chapter 06 says what to do next).

# %% [markdown]
# ## Exercise 3 — `run_agent` (4 points)
#
# Write `run_agent(client, model, question, tools, impl, max_steps=8)`:
#
# - `client` is an `openai.OpenAI` (the fake's or a live one), `model` the model name, `tools`
#   the OpenAI tool definitions, `impl` the dict name → function;
# - start the conversation with the user's `question` only; call
#   `client.chat.completions.create(model=model, messages=messages, tools=tools)` once per step;
# - append the assistant message verbatim (`message.model_dump(exclude_none=True)`) **before**
#   any tool result;
# - if it has tool calls, append one `tool` message per call, exactly as in Exercise 2 (broken
#   JSON and tool errors become error observations), then go on;
# - if not: `finish_reason == "stop"` → `AgentResult(content, "done", step)`; any other reason →
#   `AgentResult(None, f"STOPPED: {finish_reason}", step)`;
# - after `max_steps` model calls: `AgentResult(None, "STOPPED: step limit", max_steps)`.
#
# You may call your `tool_messages`.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, question, tools, impl, max_steps=8):
    """The agent loop over Chat Completions: answer, stop status, and the model calls made."""
    ### BEGIN SOLUTION
    # The tool step is written out here (not tool_messages) so this exercise is graded on its own.
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))  # verbatim, before any result
        if not message.tool_calls:
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        for call in message.tool_calls:
            try:
                args = json.loads(call.function.arguments)
            except json.JSONDecodeError as e:
                result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
            else:
                result = call_tool(impl, call.function.name, args)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers the taxi question through the SDK in two model calls (the first
sends the model name, the tools and the question alone) and returns an AgentResult with status
"done"; broken JSON arguments go back as an observation and the model recovers; a model that never
answers is stopped after max_steps calls with AgentResult(None, "STOPPED: step limit", max_steps); a
reply cut off by the token limit (finish_reason "length") is AgentResult(None, "STOPPED: length", 1),
not an answer."""

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
scenario = S.taxi_spending()
llm = wb.fake_llm.FakeLLM(scenario)
refused = ("a 400 means the provider refused your messages: append the assistant turn first, then one "
           "tool message per tool_call_id with string content")
with wb.checks.no_raise("run_agent on the taxi question", hint=refused):
    result = run_agent(llm.client(), "fake-model-2", scenario.question, scenario.openai_tools(),
                       wb.shop.Shop("C-001").tools())
assert wb.checks.kind(result) == "AgentResult", (
    f"run_agent must return an AgentResult, got {type(result).__name__}: {result!r}")
assert (result.answer, result.status) == (scenario.answer, "done"), (
    f"expected AgentResult({scenario.answer!r}, 'done', 2), got {result!r}")
assert result.steps == 2 and llm.calls == 2, (
    f"the taxi question takes two model calls; steps={result.steps}, calls={llm.calls}")
first = llm.requests[0]
assert first.get("model") == "fake-model-2", f"send the model name you were given; sent {first.get('model')!r}"
assert first.get("tools") == scenario.openai_tools(), "send the tools you were given with every request"
assert first.get("messages") == [{"role": "user", "content": scenario.question}], (
    f"start the conversation with the user's question only; the first request held {first.get('messages')!r}")

broken = S.broken_json_then_fix()
llm = wb.fake_llm.FakeLLM(broken)
with wb.checks.no_raise("run_agent on a call with broken JSON arguments",
                        hint="broken JSON becomes an error observation, as in Exercise 2, never a crash"):
    result = run_agent(llm.client(max_calls=5), "fake-model", broken.question, broken.openai_tools(),
                       wb.shop.Shop("C-001").tools())
assert (result.answer, result.status, result.steps) == (broken.answer, "done", 3), (
    f"broken JSON goes back as an error observation, the model fixes its call and answers in 3 steps; got {result!r}")

llm = wb.fake_llm.FakeLLM(S.never_finishes())
with wb.checks.no_raise("run_agent on a model that never answers", hint='stop after max_steps model calls'):
    result = run_agent(llm.client(max_calls=4), "fake-model", "How long does delivery take?",
                       S.never_finishes().openai_tools(), {"search_kb": lambda query: {"hits": []}}, max_steps=3)
assert llm.calls == 3, f"with max_steps=3 make exactly 3 model calls; made {llm.calls}"
assert (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3), (
    f"a run stopped by the limit is AgentResult(None, 'STOPPED: step limit', 3); got {result!r}")

cut = S.scripted(S.final("Your taxi spending in Sept", finish_reason="length"), tools=("txn_sum",))
llm = wb.fake_llm.FakeLLM(cut)
with wb.checks.no_raise("run_agent on a reply cut off by the token limit", hint="a reply without tool calls ends the run: another finish_reason than 'stop' gives 'STOPPED: <finish_reason>'"):
    result = run_agent(llm.client(max_calls=2), "fake-model", "Taxi in September?", cut.openai_tools(),
                       wb.shop.Shop("C-001").tools())
assert (result.answer, result.status, result.steps) == (None, "STOPPED: length", 1), (
    "finish_reason 'length' is not an answer, even with some text: expect "
    f"AgentResult(None, 'STOPPED: length', 1); got {result!r}")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent sends the model name and tools, appends the assistant turn verbatim
before one string result per tool_call_id, parses the JSON arguments, answers parallel calls by id,
turns broken JSON and unknown tools into observations, stops after max_steps calls with answer
None, and reports a non-"stop" finish_reason as a stop status."""
### BEGIN HIDDEN TESTS
import json
import types

from workbook.checks import fresh

wb = fresh()


def run(scenario, impl, cap=12, model="fake-model", **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario)
    with wb.checks.no_raise("run_agent", hint="a 400 means the provider refused your messages: append the "
                            "assistant turn first, then one tool message per tool_call_id with string content"):
        r = run_agent(llm.client(max_calls=cap), model, scenario.question, scenario.openai_tools(), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, r


# The wire: model name, tools, the assistant turn verbatim, then the result under its id.
shop = wb.shop.Shop("C-002")
taxi = wb.scenarios.taxi_spending()
llm, r = run(taxi, shop.tools(), model="fake-model-2")
assert (r.answer, r.status, r.steps) == ("Taxi in September 2026: 1 rides, 9900 KZT.", "done", 2), (
    f"expected the session customer's answer in 2 steps, got {r!r}")
first, second = llm.requests
assert first["model"] == "fake-model-2", f"send the model name you were given; sent {first['model']!r}"
assert first["tools"] == taxi.openai_tools(), "send the tools you were given with every request"
assert first["messages"] == [{"role": "user", "content": taxi.question}], (
    f"the first request holds only the question; it held {first['messages']!r}")
sent = second["messages"]
assert [m.get("role") for m in sent] == ["user", "assistant", "tool"], (
    f"the second request must be question, assistant turn, tool result; roles were {[m.get('role') for m in sent]}")
replayed = wb.fake_llm.FakeLLM(taxi).handle(first).body["choices"][0]["message"]
assert sent[1].get("tool_calls") == replayed["tool_calls"] and sent[1].get("content") in (None, ""), (
    "append the assistant message verbatim (message.model_dump(exclude_none=True)), tool_calls and ids "
    f"unchanged; sent {sent[1]!r}")
assert sent[2].get("tool_call_id") == replayed["tool_calls"][0]["id"], "the result must carry its call's id"
assert type(sent[2].get("content")) is str and json.loads(sent[2]["content"])["total_kzt"] == 9900, (
    "the tool message's content must be json.dumps of the tool's result")
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})], (
    f"run the tool with the parsed arguments; the shop saw {shop.log}")

# Parallel calls, each answered by id.
scenario = wb.scenarios.two_orders()
llm, r = run(scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), (
    f"answer every tool call, each under its own id; got {r!r}")

# Broken JSON and unknown tools become observations; the model recovers.
for name in ("broken_json_then_fix", "unknown_tool_then_recover"):
    scenario = wb.scenarios.get(name)
    llm, r = run(scenario, wb.shop.Shop("C-001").tools())
    assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 3), (
        f"{name}: the error must go back as an observation the model can act on; got {r!r}")

# The step limit.
search = {"search_kb": lambda query: {"hits": []}}
for max_steps, cap in ((3, 6), (8, 11)):
    kwargs = {"max_steps": max_steps} if max_steps != 8 else {}
    llm, r = run(wb.scenarios.never_finishes(), search, cap=cap, **kwargs)
    assert llm.calls == max_steps, f"with max_steps={max_steps} make exactly {max_steps} model calls; made {llm.calls}"
    assert (r.answer, r.status, r.steps) == (None, "STOPPED: step limit", max_steps), (
        f"a run stopped by the limit is AgentResult(None, 'STOPPED: step limit', {max_steps}); got {r!r}")

# A reply cut off by the token limit is not an answer.
cut = wb.scenarios.scripted(wb.scenarios.final("Your taxi spending in Sept", finish_reason="length"),
                            tools=("txn_sum",), question="How much did I spend on taxis in September?")
llm, r = run(cut, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1), (
    f"finish_reason 'length' is not an answer: expect AgentResult(None, 'STOPPED: length', 1); got {r!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## The loop at work
#
# Your loop against several scenarios, each with its own fake provider and a fresh session.
# `client(max_calls=25)` stops a loop that forgets its limit before it hangs the notebook.

# %%
for name in ["taxi_spending", "two_orders", "asks_other_customer", "broken_json_then_fix",
             "unknown_tool_then_recover", "never_finishes"]:
    scenario = scenarios.get(name)
    llm = FakeLLM(scenario)
    impl = {**Shop("C-001").tools(), "search_kb": lambda query: {"hits": []}}
    result = run_agent(llm.client(max_calls=25), "fake-model", scenario.question,
                       scenario.openai_tools(), impl)
    print(f"{name:26} {result.status:20} steps={result.steps}  answer={result.answer!r}")

# %% [markdown]
# ## Three formats side by side
#
# The same loop exists in every provider's API; only the names change. Chat Completions is what
# this workbook uses (OpenAI, DeepSeek, Ollama all speak it); the two others are what you will meet
# in Anthropic's documentation and in OpenAI's newer Responses API.
#
# | | Anthropic Messages | OpenAI Responses | OpenAI Chat Completions |
# |---|---|---|---|
# | tool definition | `{"name", "description", "input_schema"}` | `{"type": "function", "name", "description", "parameters"}` (flat) | `{"type": "function", "function": {"name", "description", "parameters"}}` |
# | "run my tools" | `stop_reason == "tool_use"` | output items of type `function_call` | `finish_reason == "tool_calls"` |
# | the request | content block `{"type": "tool_use", "id", "name", "input"}` | item `{"type": "function_call", "call_id", "name", "arguments"}` | `message.tool_calls[i]`: `{"id", "type": "function", "function": {"name", "arguments"}}` |
# | arguments | `input`: already an object | `arguments`: a JSON string | `function.arguments`: a JSON string |
# | the id to answer | `tool_use_id` = the block's `id` (`toolu_…`) | `call_id` (`call_…`) | `tool_call_id` = the call's `id` (`call_…`) |
# | the result | block `{"type": "tool_result", "tool_use_id", "content"}` inside the next **user** message | input item `{"type": "function_call_output", "call_id", "output"}` | message `{"role": "tool", "tool_call_id", "content"}` |
# | several results | all blocks in **one** user message | one item per call | one `tool` message per call, right after the assistant turn |
# | a failed tool | `"is_error": true` on the block | no flag: say so in `output` | no flag: say so in `content` |
# | normal end | `stop_reason == "end_turn"` | a `message` output item, no calls | `finish_reason == "stop"` |
# | cut off | `stop_reason == "max_tokens"` | `status == "incomplete"` | `finish_reason == "length"` |
# | system prompt | the `system=` parameter | the `instructions=` parameter | a first message with role `system` |
# | a result missing | 400: "`tool_use` ids were found without `tool_result` blocks immediately after…" | 400: "No tool output found for function call call_…" | 400: "An assistant message with 'tool_calls' must be followed by tool messages…" |
#
# The ideas do not change: the model asks, your code runs the tool, the result goes back under
# the id of the request, and the assistant's turn stays in the history.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch, except those marked "not graded".
#
# - **Dropping the assistant turn.** Only the tool results are appended. The provider answers 400:
#   "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'".
# - **Results before the assistant turn.** The same 400: the order matters.
# - **Passing the raw string.** `fn(call.function.arguments)` or `fn(**call.function.arguments)`:
#   the arguments are a JSON *string*; `json.loads` them first.
# - **A dict as `content`.** `"content": result` gives 400 "Invalid type for
#   'messages[2].content'". Content is text: `json.dumps(result)`.
# - **The wrong id.** Copying the first call's id onto every result (400, duplicate response), or
#   pairing results by tool name (two `get_order` calls get each other's answers).
# - **Answering only `tool_calls[0]`.** 400: "The following tool_call_ids did not have response
#   messages". Loop over all of them (chapter 04 goes further).
# - **Trusting `json.loads`.** Broken arguments raise `JSONDecodeError` and end the run; make them
#   an error observation the model can fix.
# - **Treating every text reply as an answer.** A reply with `finish_reason == "length"` was cut
#   off; it is not `"done"`.
# - **Mixing up formats.** `tool_use_id` (Anthropic) instead of `tool_call_id`, or the flat
#   Responses tool shape sent to Chat Completions.
# - **Retrying a 400.** The same request fails the same way; fix the messages instead.
#   (Not graded here: no exercise of this chapter retries; chapter 08's does.)

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("03_openai_format")

# %% [markdown]
# ## Live cell (optional)
#
# The same `run_agent`, unchanged, against a real model: only the client differs. It runs when
# `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded. Real models vary:
# the answer's wording will differ from the fake's, and a small local model may take more steps or
# stop at the limit.

# %%
from workbook.fake_llm import anthropic_tools
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.shop import SCHEMAS, Shop

if live_enabled():
    try:
        live_client, live_model = make_client()
        live_tools = anthropic_tools([SCHEMAS["txn_sum"], SCHEMAS["get_order"]])  # Anthropic-style, as above
        live = run_agent(live_client, live_model, "How much did I spend on taxis in September?",
                         to_openai_tools(live_tools), Shop("C-001").tools(), max_steps=5)
        print(live)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **04 · Parallel tool calls**: one reply can ask for several tools. You will run every one,
# answer each id, send all results before the next model call, and learn which calls may run at
# the same time (independent reads) and which must not (refunds).
