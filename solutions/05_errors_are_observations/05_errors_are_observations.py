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
# # 05 · Errors are observations
#
# A model writes its tool calls as text, token by token, from a description it read once. So it
# gets them wrong: a tool that does not exist, arguments cut off mid-JSON, a field with the wrong
# name, a month written as "September 2026". Tools fail on their own too: the order is not there,
# the database is down. Small local models add one more: the call written as plain text in the
# message instead of in `tool_calls`.
#
# None of that may crash the loop. Every failure becomes an **observation** — a `tool` message whose
# content is the JSON text `{"error": "..."}` — and the model takes its next step knowing what went wrong. Whether that
# step is a fix or a shrug depends on one thing you control: **how specific the error is.**
#
# **Learning goals.** After this chapter you can
# - name what goes wrong with a tool call and what naive code does then (`KeyError`,
#   `JSONDecodeError`, `TypeError`, an escaping exception);
# - check arguments against a **pydantic model per tool**, with extra fields forbidden;
# - write `execute(name, raw_args, impl)`, which returns a tool's result or an error observation,
#   `{"error": "…"}`, and never raises;
# - write error texts a model can act on, and see the fake model fix its call after a specific
#   error and give up after a vague one;
# - detect a tool call written as text, ask once for a proper call, and otherwise stop with an error
#   status.
#
# **Time:** about 75 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (`run_agent`, `AgentResult`, one `tool` message per
# call) and 04 · Parallel tool calls (every call of a reply answered in one round). What you need
# is restated below as given code.

# %% [markdown]
# ## Given code
#
# The result object; `error_observation(text)`, the one shape of a failure reported to the model
# (Part 1 says why); and `args_model(fn)`: it reads a tool function's signature and builds a
# **pydantic model** of its arguments — one field per parameter, with its type and default, and no
# other fields allowed. Part 2 explains what that buys you.

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import inspect
import json
import re
import typing
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import SCHEMAS, Shop


#@include 02_the_loop AgentResult


def error_observation(text):
    """A failure as the model reads it: the JSON text {"error": text}."""
    return json.dumps({"error": text}, ensure_ascii=False)


def args_model(fn):
    """A pydantic model of fn's arguments: each parameter with its type and default, nothing else."""
    hints = typing.get_type_hints(fn)
    fields = {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = ... if p.default is p.empty else p.default  # ... means "required"
        fields[p.name] = (hints.get(p.name, typing.Any), default)
    name = getattr(fn, "__name__", "tool")
    return create_model(f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields)


# %% [markdown]
# ## Part 1 · What goes wrong, and what naive code does
#
# Here is the tool step many first loops have. It is three lines, and it trusts the model
# completely:
#
# ```python
# args = json.loads(call.function.arguments)
# result = impl[call.function.name](**args)
# content = json.dumps(result)
# ```
#
# Run it against the scenarios that misbehave on purpose (each one's first tool call):

# %%
def naive(name, raw_args, impl):
    return json.dumps(impl[name](**json.loads(raw_args)))


def first_call(scenario):
    """The first tool call a scenario's model makes."""
    reply = FakeLLM(scenario).client().chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": scenario.question}],
        tools=scenario.openai_tools())
    return reply.choices[0].message.tool_calls[0].function


impl = Shop("C-001").tools()
for name in ["unknown_tool_then_recover", "broken_json_then_fix", "wrong_field_then_fix",
             "vague_vs_specific_error", "missing_order"]:
    fn = first_call(scenarios.get(name))
    try:
        outcome = naive(fn.name, fn.arguments, impl)
    except Exception as e:
        outcome = f"CRASH  {type(e).__name__}: {e}"
    print(f"{name:26} {fn.name}({fn.arguments})\n{'':26} {outcome}\n")

# %% [markdown]
# Five calls, five crashes, and each one ends the whole run: the customer gets a traceback instead
# of an answer, and the model never learns what it did wrong. What each case needs instead:
#
# | the model sent | naive code | the observation the model should get |
# |---|---|---|
# | a tool that does not exist | `KeyError` | `{"error": "unknown tool 'lookup_order'. Available tools: card_block, get_order, …"}` |
# | arguments that are not JSON | `JSONDecodeError` | `{"error": "the arguments of get_order are not valid JSON (…). Send one JSON object."}` |
# | arguments that do not fit | `TypeError` (or a wrong value deep inside the tool) | `{"error": "bad arguments for get_order: order_id: Field required; id: Extra inputs are not permitted. …"}` |
# | a call the tool refuses | the tool's exception | `{"error": "txn_sum failed: ValueError: 'month' must look like YYYY-MM, e.g. 2026-09; got 'September 2026'"}` |
#
# And one the table cannot show, because there is no call at all: the call written as text
# (Part 4).
#
# Chat Completions has no "this is an error" flag on a `tool` message — its `content` is just text
# (Anthropic's `tool_result` has `is_error`). So the content says it, in one shape: a result is
# JSON (`json.dumps(result)`), and a failure is the JSON object `{"error": "<what went wrong and
# what to do>"}` — `error_observation(text)` in the given code. The model reads the word "error"
# and the sentence; your code (a trajectory reader, an evaluation) tells a failure from a result
# by parsing, not by guessing from the first characters of some text — a page whose text begins
# with "ERROR" is still a page. Every chapter of this workbook uses this one shape.
#
# The unknown-tool error has a second job. Some tasks no tool can do: "What is the weather on
# Mars?" to an agent whose `get_weather` knows Earth's cities. The right end of that run is the
# model saying it cannot. A model that tries `get_mars_weather` anyway must get the unknown-tool
# error with the real list, so it can give up honestly; the loop must never invent a tool or
# route the call to the nearest real one.

# %% [markdown]
# ## Part 2 · Arguments: a pydantic model per tool
#
# The JSON Schema you send tells the model what to write; nothing makes it comply. (Strict modes
# help where a provider offers one, and not every provider does.) So check the arguments on arrival.
# **pydantic** does it in one call and explains every problem. A model for `get_order`:

# %%
class GetOrderArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a field the schema does not name is an error

    order_id: str


print(GetOrderArgs.model_validate({"order_id": "A-1001"}))
for bad in [{"id": "A-1001"}, {"order_id": 1001}, {"order_id": "A-1001", "customer_id": "C-002"}, ["A-1001"]]:
    try:
        GetOrderArgs.model_validate(bad)
    except ValidationError as e:
        print(f"{json.dumps(bad):50} -> {[(err['loc'], err['msg']) for err in e.errors()]}")

# %% [markdown]
# `e.errors()` is a list with one entry per problem. `loc` says **where** (a tuple of field names;
# empty when the whole input is wrong, as for a list), `msg` says **what**. That is exactly what
# the model needs to fix its call, and it already reads like English.
#
# `extra="forbid"` matters: without it pydantic drops unknown fields silently, so a model that sends
# `customer_id` would never hear that the field does not exist (chapter 07 explains why identity must
# never come from the model). pydantic's default "lax" mode still converts what is safe to convert:
# `"2450"` for an `int` becomes `2450`, `"lots"` is an error.
#
# Writing one class per tool repeats what the function signature already says. `args_model(fn)` (in
# the given code) builds the same model from the signature, and its JSON Schema is what you would
# send to the model:

# %%
shop = Shop("C-001")
GeneratedArgs = args_model(shop.get_order)
print(GeneratedArgs.model_json_schema())
print(SCHEMAS["get_order"]["function"]["parameters"])
print(args_model(shop.txn_sum).model_validate({"category": "taxi", "month": "2026-09"}))

# %% [markdown]
# One source of truth — the typed function — for the schema the model reads and the check its
# calls pass through. (Libraries such as simonw's `llm` build tool schemas from signatures the
# same way.)

# %% [markdown]
# ## Part 3 · The error text is written for the model
#
# An error observation is not a log line; it is the prompt for the model's next step. Compare two
# ways to answer the same bad call. The `vague_vs_specific_error` model sends `month="September
# 2026"` and then reads whatever comes back:

# %%
def next_reply(error_text):
    scenario = scenarios.vague_vs_specific_error()
    client = FakeLLM(scenario).client()
    messages = [{"role": "user", "content": scenario.question}]
    reply = client.chat.completions.create(model="fake-model", messages=messages,
                                           tools=scenario.openai_tools()).choices[0].message
    messages += [reply.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": reply.tool_calls[0].id, "content": error_text}]
    after = client.chat.completions.create(model="fake-model", messages=messages,
                                           tools=scenario.openai_tools()).choices[0].message
    return after.tool_calls[0].function.arguments if after.tool_calls else after.content


for error_text in [error_observation("invalid input"),
                   error_observation("txn_sum failed: ValueError: 'month' must look like YYYY-MM, "
                                     "e.g. 2026-09; got 'September 2026'")]:
    print(f"{error_text}\n    -> {next_reply(error_text)}\n")

# %% [markdown]
# After "invalid input" the model has nothing to go on and apologises to the customer. After the
# specific message it sends `2026-09`. Real models behave the same way, only less predictably.
#
# A good error observation:
#
# - **is the JSON `{"error": "..."}`** and names the tool;
# - says **which argument** and **what was expected**, with an example, and what was received;
# - says **what to do next**: the tools that do exist, "send one JSON object", "fix and call again";
# - is **short**: a traceback costs tokens, buries the one useful line, and shows your internals to
#   a model that may be reading a poisoned page (one written on purpose to mislead it);
# - **never hides a failure.** A tool that fails and returns nothing, or `{}`, tells the model that
#   everything went fine. Watch `missing_order`: told nothing, it makes something up.

# %%
def answer_after(content):
    scenario = scenarios.missing_order()
    client = FakeLLM(scenario).client()
    messages = [{"role": "user", "content": scenario.question}]
    reply = client.chat.completions.create(model="fake-model", messages=messages).choices[0].message
    messages += [reply.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": reply.tool_calls[0].id, "content": content}]
    return client.chat.completions.create(model="fake-model", messages=messages).choices[0].message.content


print("error swallowed:", answer_after("null"))
print("error reported: ", answer_after(error_observation("get_order failed: KeyError: \"no order 'A-1003' for this customer\"")))

# %% [markdown]
# ## Exercise 1 — `execute` (5 points)
#
# Write `execute(name, raw_args, impl)`: one tool call, from the name and the raw JSON string the
# model sent, to the text of its `tool` message. It **never raises**. In this order:
#
# 1. `name` is not in `impl` → `"unknown tool '<name>'. Available tools: <the names in impl,
#    sorted, comma-separated>."`
# 2. `raw_args` is `""` or `None` → treat it as `"{}"` (some providers send that for a tool without
#    parameters). Not valid JSON → an error that names the tool, says the arguments are not valid
#    **JSON**, and includes the parser's message.
# 3. Validate the parsed arguments with `args_model(impl[name])`. A `ValidationError` → an error
#    that names the tool and lists **every** problem as `<field>: <msg>` (the `loc` joined with
#    `"."`, and the `msg`; just the `msg` when `loc` is empty), and asks to fix them and call again.
#    The tool does not run.
# 4. Call the tool with the validated values (`fn(**validated.model_dump())`). If it raises
#    anything → an error that names the tool and gives the exception's type and message.
# 5. Otherwise: `json.dumps(result, ensure_ascii=False, default=str)`.
#
# Every error is an error observation, `error_observation(text)` (the JSON text `{"error": text}`);
# each step above gives its text. Exact wording beyond that is yours, as long as it carries
# those facts.

# %% nbgrader={"grade": false, "grade_id": "execute", "locked": false, "schema_version": 3, "solution": true}
def execute(name, raw_args, impl):
    """One tool call -> the text of its tool message: the JSON result, or an error observation {"error": ...}."""
    ### BEGIN SOLUTION
    fn = impl.get(name)
    if fn is None:
        return error_observation(f"unknown tool {name!r}. Available tools: {', '.join(sorted(impl))}.")
    try:
        args = json.loads(raw_args or "{}")
    except json.JSONDecodeError as e:
        return error_observation(f"the arguments of {name} are not valid JSON ({e}). Send one JSON object.")
    try:
        validated = args_model(fn).model_validate(args)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" if err["loc"] else err["msg"]
                             for err in e.errors())
        return error_observation(f"bad arguments for {name}: {problems}. Fix them and call {name} again.")
    try:
        result = fn(**validated.model_dump())
    except Exception as e:  # whatever the tool does, the loop goes on
        return error_observation(f"{name} failed: {type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "execute_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: execute returns the JSON result of a good call (also with "" or None for a tool
without parameters), and an error observation {"error": ...} (not an exception) for an unknown
tool, for arguments that are not JSON (the tool named, the parser's message), for arguments that
do not fit (the tool and every bad field named, the tool not run) and for a tool that raises (the
tool, its exception's type and message, no traceback)."""
import json

from workbook.checks import fresh

wb = fresh()
shop = wb.shop.Shop("C-001")
impl = shop.tools()


def run(name, raw_args):
    with wb.checks.no_raise(f"execute({name!r}, {raw_args!r})", hint="return an error observation instead"):
        out = execute(name, raw_args, impl)
    assert type(out) is str, f"execute must return a str, got {type(out).__name__}: {out!r}"
    return out


out = run("get_order", '{"order_id": "A-1001"}')
assert json.loads(out) == {"order_id": "A-1001", "item": "Svet desk lamp", "total": 2450, "status": "shipped"}, (
    f"a good call returns json.dumps of the tool's result; got {out!r}")
out = run("lookup_order", '{"order_id": "A-1001"}')
error = wb.checks.error_text(out, "execute('lookup_order', ...)")
assert "lookup_order" in error and "get_order" in error and "txn_sum" in error, (
    f"an unknown tool: an error observation that names it and lists the available tools; got {out!r}")
for raw_args in ("", None):
    out = run("card_block", raw_args)
    assert out.startswith("{") and json.loads(out) == {"status": "blocked"}, (
        f"raw_args {raw_args!r} means no arguments: treat it as '{{}}'; got {out!r}")
out = run("get_order", '{"order_id": "A-1001"')
error = wb.checks.error_text(out, "execute('get_order', <broken JSON>)")
assert "JSON" in error and "get_order" in error, (
    f"broken arguments: say that the arguments of get_order are not valid JSON; got {out!r}")
assert "delimiter" in error, (
    "include the parser's own message (json.JSONDecodeError's, here \"Expecting ',' delimiter: ...\"), which "
    f"says where the JSON broke; got {out!r}")
shop.log.clear()
out = run("get_order", '{"order": "A-1001", "customer_id": "C-002"}')
error = wb.checks.error_text(out, "execute('get_order', <arguments that do not fit>)")
assert all(f in error for f in ("order_id", "order", "customer_id")), (
    f"arguments that do not fit: validate with args_model and name every problem (order_id missing, "
    f"order and customer_id not allowed); got {out!r}")
assert "get_order" in error, f"arguments that do not fit: name the tool they were for; got {out!r}"
assert shop.log == [], f"the tool must not run with arguments that do not fit; it ran: {shop.log}"
out = run("get_order", '{"order_id": "B-2001"}')
error = wb.checks.error_text(out, "execute('get_order', <an order that is not there>)")
assert "KeyError" in error and "B-2001" in error and "get_order" in error, (
    "a tool that raises: an error observation that names the tool and gives the exception's type and message "
    f"(KeyError, about B-2001), never a silent result; got {out!r}")
assert "Traceback" not in error and 'File "' not in error, (
    "a tool that raises: send the exception's type and message, not the traceback (hundreds of tokens, "
    "and your code's internals shown to the model)")
print("execute: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "execute_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: execute names every bad field (missing, extra such as customer_id, wrong type)
without running the tool, treats "" as no arguments, reports a raising tool with its exception's
type and message, serialises results, never raises — and its errors are specific enough for the
fake model to fix its calls in six scenarios."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def run(name, raw_args, impl):
    with wb.checks.no_raise(f"execute({name!r}, {raw_args!r})", hint="every failure must become an error observation"):
        out = execute(name, raw_args, impl)
    assert type(out) is str, f"execute must return a str, got {type(out).__name__}: {out!r}"
    return out


ran = []


def refund(order_id: str, amount: int) -> dict:
    ran.append((order_id, amount))
    if amount > 2450:
        raise ValueError(f"at most 2450 KZT can be refunded for order {order_id}")
    return {"order_id": order_id, "refunded_kzt": amount}


def card_block() -> dict:
    ran.append(("card_block",))
    return {"status": "blocked"}


def broken(order_id: str) -> dict:
    raise RuntimeError("payments database is down")


impl = {"refund": refund, "card_block": card_block, "broken": broken,
        "weekday": lambda day: __import__("datetime").date(2026, 9, int(day))}

# Arguments that do not fit: every problem named, and the tool never runs.
for raw, fields in [('{"order_id": "A-1001"}', ["amount"]),
                    ('{"order_id": "A-1001", "amount": 100, "customer_id": "C-002"}', ["customer_id"]),
                    ('{"order_id": "A-1001", "amount": "lots"}', ["amount"]),
                    ('{"order": "A-1001", "sum": 100}', ["order_id", "amount", "order", "sum"])]:
    out = run("refund", raw, impl)
    assert ran == [], f"validate the arguments (args_model) before running the tool; it ran with {ran}"
    error = wb.checks.error_text(out, f"execute('refund', {raw!r})")
    assert "refund" in error, f"bad arguments give an error observation naming the tool; got {out!r}"
    missing = [f for f in fields if f not in error]
    assert not missing, f"name every field that is wrong ({', '.join(fields)}) for {raw}; got {out!r}"
out = run("refund", '["A-1001", 100]', impl)
assert wb.checks.error_text(out, "execute('refund', '[...]')") and ran == [], (
    f"arguments that are not an object are an error; got {out!r}")
out = run("refund", '{"order_id": "A-1001", "amount": "100"}', impl)
assert json.loads(out) == {"order_id": "A-1001", "refunded_kzt": 100} and ran == [("A-1001", 100)], (
    f"run the tool with the validated values ('100' for an int becomes 100); got {out!r}, ran {ran}")

# "" means no arguments; extra arguments for a tool without parameters are refused.
ran.clear()
for raw in ("", "{}", None):
    assert json.loads(run("card_block", raw, impl)) == {"status": "blocked"}, f"{raw!r} means no arguments"
wb.checks.error_text(run("card_block", '{"confirmed": true}', impl), "card_block with an argument (it takes none)")
assert len(ran) == 3, f"card_block should have run three times, ran {ran}"

# A tool that raises: its exception's type and message, never the exception itself.
out = run("broken", '{"order_id": "A-1001"}', impl)
error = wb.checks.error_text(out, "execute('broken', ...), a tool that raises")
assert "RuntimeError" in error and "payments database is down" in error, (
    f"a tool that raises: an error observation with the exception's type and message; got {out!r}")
out = run("refund", '{"order_id": "A-1001", "amount": 5000}', impl)
assert "ValueError" in out and "at most 2450 KZT" in out, f"the tool's own message is what the model needs; got {out!r}"
out = run("weekday", '{"day": "31"}', impl)
assert "ValueError" in wb.checks.error_text(out, "execute('weekday', '{\"day\": \"31\"}')"), (
    f"any exception becomes an observation; got {out!r}")
assert run("weekday", '{"day": "7"}', impl) == '"2026-09-07"', "serialise results with default=str"
out = run("Refund", '{"order_id": "A-1001", "amount": 1}', impl)
assert "broken, card_block, refund, weekday" in wb.checks.error_text(out, "execute('Refund', ...)"), (
    f"an unknown tool lists the available ones, sorted and comma-separated; got {out!r}")


# Errors the model can act on: a small loop around your execute, five scenarios.
def drive(scenario, impl):
    llm = wb.fake_llm.FakeLLM(scenario)
    client = llm.client(max_retries=0)
    messages = [{"role": "user", "content": scenario.question}]
    for _ in range(5):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenario.openai_tools()).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for c in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": c.id,
                             "content": run(c.function.name, c.function.arguments, impl)})
    return None


for name, why in [("vague_vs_specific_error", "give the tool's exception message (it says YYYY-MM)"),
                  ("wrong_field_then_fix", "name the missing and the unexpected field"),
                  ("unknown_tool_then_recover", "list the available tools"),
                  ("broken_json_then_fix", "say the arguments are not valid JSON"),
                  ("missing_order", "report the tool's failure; never swallow it"),
                  ("asks_other_customer", "refuse the extra customer_id field")]:
    scenario = wb.scenarios.get(name)
    answer = drive(scenario, wb.shop.Shop("C-001").tools())
    assert answer == scenario.answer, f"{name}: the model could not fix its call ({why}); it answered {answer!r}"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · A tool call written as text
#
# Small local models sometimes write the call into the message instead of making it. The reply then
# has no `tool_calls`, `finish_reason` is `"stop"`, and the content looks like this:

# %%
scenario = scenarios.text_tool_call()
reply = FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0]
print("finish_reason:", reply.finish_reason, "| tool_calls:", reply.message.tool_calls)
print("content:      ", reply.message.content)

# %% [markdown]
# By the rules of chapter 03 that is a final answer, and the customer would receive a line of JSON.
# Do not try to run it either: you would be parsing free text (sometimes it is an *example* the
# model is explaining), and the API call has no id to answer.
#
# Instead, the loop:
#
# 1. **detects** it: the content mentions one of the offered tools *and* has a `{`;
# 2. **asks once**: appends a `user` message saying that the call was written as text and must be
#    made through tool calls (naming the tool: specific, as always), and calls the model again;
# 3. if the model does it again, **stops** with an error status, `"STOPPED: text tool call"`. Asking
#    forever only burns steps; a model that cannot call tools needs a human, a bigger model, or fewer
#    and simpler tools.

# %% [markdown]
# ## Exercise 2 — `find_text_call` (3 points)
#
# Write `find_text_call(content, tool_names)`. Return the name of the tool the content calls as
# text, or `None`:
#
# - `content` that is not a string (for example `None`) → `None`;
# - no `{` anywhere in `content` → `None` (mentioning a tool in prose is not a call);
# - otherwise, the tool from `tool_names` whose name appears **first** in `content`, matched as a
#   whole name: `get_order` is found in `get_order(` or `"get_order"`, but not inside `get_orders`
#   or `forget_order` (no letter, digit or `_` right before or after it; a regex with lookarounds
#   `(?<![A-Za-z0-9_])` and `(?![A-Za-z0-9_])` does it — `re.escape` the name);
# - no tool name found → `None`.

# %% nbgrader={"grade": false, "grade_id": "find_text_call", "locked": false, "schema_version": 3, "solution": true}
def find_text_call(content, tool_names):
    """The tool a reply calls in its text instead of in tool_calls, or None."""
    ### BEGIN SOLUTION
    if not isinstance(content, str) or "{" not in content:
        return None
    found = []
    for name in tool_names:
        match = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", content)
        if match:
            found.append((match.start(), name))
    return min(found)[1] if found else None
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "find_text_call_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: find_text_call spots the text_tool_call scenario's call and a name(...) call, gives
the tool named first when two are, and leaves alone a normal answer, a tool named in prose (no
brace), a brace without a tool, a longer name that only contains a tool's name, and None."""
from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.text_tool_call()
content = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message.content
got = find_text_call(content, ["get_order", "txn_sum"])
assert type(got) is str and got == "get_order", f"{content!r} calls get_order as text; got {got!r}"
got = find_text_call('get_order({"order_id": "A-1001"})', ["get_order", "txn_sum"])
assert got == "get_order", f"get_order({{...}}) is a call written as text; got {got!r}"
for text, why in [("Your order A-1001 (Svet desk lamp) is shipped.", "a normal answer is not a call"),
                  ("I looked it up with get_order: your order is shipped.", "a tool named in prose, without a {, is not a call"),
                  ('Your spending: {"taxi": 5000, "food": 5400}', "a { without a tool name is not a call"),
                  ('Your {get_orders} list is empty', "get_orders is not get_order: match whole names only")]:
    got = find_text_call(text, ["get_order", "txn_sum"])
    assert got is None, f"{why}: find_text_call({text!r}) should be None, got {got!r}"
got = find_text_call('Calling txn_sum, then get_order: {"month": "2026-09"}', ["get_order", "txn_sum"])
assert got == "txn_sum", (
    f"the tool whose name appears first in the content (txn_sum), not the first of tool_names; got {got!r}")
with wb.checks.no_raise("find_text_call(None, ...)", hint="content that is not a string gives None"):
    got = find_text_call(None, ["get_order", "txn_sum"])
assert got is None, f"content that is not a string (None) gives None; got {got!r}"
print("find_text_call: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "find_text_call_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: find_text_call recognises several ways of writing a call as text, needs both a tool
name and a brace, matches whole names only, returns the tool named first, and returns None for
content that is not a string."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
TOOLS = ["txn_sum", "get_order", "card_block"]


def found(content, tools=TOOLS):
    with wb.checks.no_raise(f"find_text_call({content!r})",
                            hint="return a tool name or None, whatever the content"):
        got = find_text_call(content, tools)
    assert got is None or type(got) is str, f"return a tool name or None, got {got!r}"
    return got


for text, name in [('{"name": "get_order", "arguments": {"order_id": "A-1001"}}', "get_order"),
                   ('I will check.\n```json\n{"tool": "txn_sum", "args": {"category": "taxi"}}\n```', "txn_sum"),
                   ('get_order({"order_id": "A-1001"})', "get_order"),
                   ('<tool_call>{"name": "card_block"}</tool_call>', "card_block"),
                   ('Calling txn_sum then get_order: {"month": "2026-09"}', "txn_sum"),
                   ('{"name": "get_order", "note": "txn_sum later"}', "get_order")]:
    assert found(text) == name, f"{text!r} is a call to {name} written as text; got {found(text)!r}"
for text in ["I looked it up with get_order: your order is shipped.",  # a name, but no brace
             'Your spending: {"taxi": 5000, "food": 5400}',  # a brace, but no tool
             'Your {get_orders} list is empty; forget_order {x}; txn_summary {y}',  # not whole names
             "", "{}"]:
    assert found(text) is None, f"{text!r} is not a tool call; got {found(text)!r}"
assert found(None) is None and found(42) is None, "content that is not a string gives None"
assert found('{"name": "get_order"}', []) is None, "with no tools offered, nothing is a call"
assert found('{"name": "search_kb", "query": "x"}', ["search_kb"]) == "search_kb", "use the tool_names given"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · The loop that never crashes
#
# ```
#  messages = [user question];  asked = False
#  for step in 1..max_steps:
#      response = create(model=..., messages=messages, tools=tools);  append the assistant turn
#      tool calls    → one tool message per call: execute(name, arguments, impl)
#      no tool calls, finish_reason "stop":
#          a call written as text (a tool from `tools`)?
#              not asked yet → append the user message asking for a proper call; asked = True
#              asked before  → AgentResult(None, "STOPPED: text tool call", step)
#          otherwise       → AgentResult(content, "done", step)
#      other finish_reason → AgentResult(None, f"STOPPED: {finish_reason}", step)
#  → AgentResult(None, "STOPPED: step limit", max_steps)
# ```
#
# The message that asks for a proper call (fill in the tool's name):

# %%
ASK_TO_CALL = ("You wrote a call to {name} as text in your message. Do not write tool calls as "
               "text: call the tool through tool calls, or give your final answer.")
print(ASK_TO_CALL.format(name="get_order"))

# %% [markdown]
# ## Exercise 3 — `run_agent` (4 points)
#
# Write `run_agent(client, model, question, tools, impl, max_steps=8)` as in the outline above:
#
# - every tool call of a reply gets one `tool` message, `execute(name, arguments, impl)`, in order;
# - the names of the offered tools come from `tools` (`t["function"]["name"]`);
# - a text call: the first time in the run, append a `user` message
#   `ASK_TO_CALL.format(name=<the tool>)` after the assistant turn and go on; the second time,
#   stop with `AgentResult(None, "STOPPED: text tool call", step)`. Ask once per run, not once per
#   text call;
# - the rest as in chapter 04: question first, assistant turn verbatim, `"done"` on
#   `finish_reason == "stop"`, `f"STOPPED: {finish_reason}"` otherwise, the step limit.
#
# Use your `execute` and `find_text_call`.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, question, tools, impl, max_steps=8):
    """The agent loop: every failure an observation, a text call asked about once, then stopped."""
    ### BEGIN SOLUTION
    # observe() and text_call() restate execute and find_text_call, so this exercise is graded on its own.
    def observe(name, raw_args):
        fn = impl.get(name)
        if fn is None:
            return error_observation(f"unknown tool {name!r}. Available tools: {', '.join(sorted(impl))}.")
        try:
            args = args_model(fn).model_validate(json.loads(raw_args or "{}"))
        except json.JSONDecodeError as e:
            return error_observation(f"the arguments of {name} are not valid JSON ({e}). Send one JSON object.")
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" if err["loc"] else err["msg"]
                                 for err in e.errors())
            return error_observation(f"bad arguments for {name}: {problems}. Fix them and call {name} again.")
        try:
            return json.dumps(fn(**args.model_dump()), ensure_ascii=False, default=str)
        except Exception as e:
            return error_observation(f"{name} failed: {type(e).__name__}: {e}")

    def text_call(content):
        if not isinstance(content, str) or "{" not in content:
            return None
        hits = [(m.start(), n) for n in names
                if (m := re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", content))]
        return min(hits)[1] if hits else None

    names = [t["function"]["name"] for t in tools or []]
    messages = [{"role": "user", "content": question}]
    asked = False
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        if message.tool_calls:
            messages += [{"role": "tool", "tool_call_id": c.id,
                          "content": observe(c.function.name, c.function.arguments)}
                         for c in message.tool_calls]
            continue
        if choice.finish_reason != "stop":
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        tool = text_call(message.content)
        if tool is None:
            return AgentResult(message.content, "done", step)
        if asked:
            return AgentResult(None, "STOPPED: text tool call", step)
        asked = True
        messages.append({"role": "user", "content": ASK_TO_CALL.format(name=tool)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent asks a model that wrote its call as text to call properly (one user
message after the assistant turn), never running the call the text names, and then answers; a
model that writes it as text again is stopped with "STOPPED: text tool call" after being asked
once, once per run (a proper call in between does not earn a second question); a model that sends
broken JSON does not crash the loop; a reply cut off by the token limit and a model that never
answers end with chapter 04's stop statuses."""

from workbook.checks import fresh

wb = fresh()


def run(scenario, shop=None, cap=None, **kwargs):
    """The scenario's question through run_agent with a shop's tools: (the fake, the AgentResult)."""
    llm, shop = wb.fake_llm.FakeLLM(scenario), shop or wb.shop.Shop("C-001")
    client, question = llm.client(max_retries=0, max_calls=cap), scenario.question
    with wb.checks.no_raise(f"run_agent on {question!r}", hint="the loop must never crash: every failure is an observation"):
        result = run_agent(client, "fake-model", question, scenario.openai_tools(), shop.tools(), **kwargs)
    wb.checks.expect(wb.checks.kind(result) == "AgentResult",
                     f"run_agent must return an AgentResult, got {type(result).__name__}: {result!r}")
    return llm, result


scenario = wb.scenarios.text_tool_call(recovers=True)
shop = wb.shop.Shop("C-001")
llm, result = run(scenario, shop)
assert (result.answer, result.status, result.steps) == (scenario.answer, "done", 3), (
    f"ask once for a proper call, then the model answers: expected AgentResult({scenario.answer!r}, 'done', 3), "
    f"got {result!r}")
sent = llm.requests[1]["messages"]
assert [m.get("role") for m in sent] == ["user", "assistant", "user"] and "get_order" in sent[2].get("content", ""), (
    "after the text call: the assistant turn, then a user message asking to call get_order properly; "
    f"sent {[(m.get('role'), m.get('content')) for m in sent]}")
assert shop.log == [("get_order", {"order_id": "A-1001"})], (
    "run only the proper call: a call written as text is asked about, never run (it has no id to answer, and "
    f"text can say anything); the shop saw {shop.log}")
scenario = wb.scenarios.broken_json_then_fix()
llm, result = run(scenario)
assert (result.answer, result.status) == (scenario.answer, "done"), f"broken JSON is an observation; got {result!r}"
scenario = wb.scenarios.text_tool_call()
shop = wb.shop.Shop("C-001")
llm, result = run(scenario, shop, cap=3)
assert (result.answer, result.status, result.steps) == (None, "STOPPED: text tool call", 2), (
    "ask once; when the model writes the call as text again, stop with "
    f"AgentResult(None, 'STOPPED: text tool call', 2); got {result!r} after {llm.calls} model calls")
assert shop.log == [], f"a call written as text never runs; the shop saw {shop.log}"
S = wb.scenarios
as_text = '{"name": "get_order", "arguments": {"order_id": "A-1001"}}'
scenario = S.scripted(as_text, S.call("get_order", order_id="A-1001"), as_text, tools=("get_order",))
llm = wb.fake_llm.FakeLLM(scenario)
with wb.checks.no_raise("run_agent on text call, proper call, text call", hint="the loop must never crash"):
    result = run_agent(llm.client(max_calls=4), "fake-model", "Where is my order A-1001?", scenario.openai_tools(),
                       wb.shop.Shop("C-001").tools())
assert (result.status, result.steps) == ("STOPPED: text tool call", 3), (
    "ask once per run, not once per text call: text call (ask), proper call, text call again -> "
    f"AgentResult(None, 'STOPPED: text tool call', 3); got {result!r}")
cut = S.scripted(S.final('{"name": "get_order"', finish_reason="length"), tools=("get_order",),
                 question="Where is A-1001?")
llm, result = run(cut, cap=2)
assert (result.answer, result.status, result.steps) == (None, "STOPPED: length", 1), (
    f"finish_reason 'length' is not an answer, nor a text call: AgentResult(None, 'STOPPED: length', 1); got {result!r}")
llm, result = run(S.never_finishes(), cap=4, max_steps=3)
assert llm.calls == 3 and (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3), (
    f"after max_steps=3 model calls: AgentResult(None, 'STOPPED: step limit', 3); got {result!r} after {llm.calls} calls")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent stops a model that keeps writing calls as text after asking exactly once,
asks once per run, leaves normal answers alone, recovers in every error scenario, reports a raising
tool to the model, answers every call of a reply, and keeps chapter 04's stop statuses."""
### BEGIN HIDDEN TESTS
import json
import types

from workbook.checks import fresh

wb = fresh()


def run(scenario, impl=None, cap=10, **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario)
    impl = wb.shop.Shop("C-001").tools() if impl is None else impl
    with wb.checks.no_raise("run_agent", hint="the loop must never crash"):
        r = run_agent(llm.client(max_retries=0, max_calls=cap), "fake-model", scenario.question,
                      scenario.openai_tools(), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, r


# A model that never learns: asked once, then stopped.
llm, r = run(wb.scenarios.text_tool_call(recovers=False))
assert (r.answer, r.status, r.steps) == (None, "STOPPED: text tool call", 2) and llm.calls == 2, (
    f"ask once, and when the call comes as text again stop with AgentResult(None, 'STOPPED: text tool call', 2); "
    f"got {r!r} after {llm.calls} model calls")
asks = [m for m in llm.requests[-1]["messages"] if m.get("role") == "user"][1:]
assert len(asks) == 1 and "get_order" in asks[0]["content"], f"ask exactly once, naming the tool; asked {asks}"

# Once per run: a model that writes a call as text, is asked, calls properly, then does it again.
S = wb.scenarios
as_text = '<tool_call>{"name": "get_order", "arguments": {"order_id": "A-1001"}}</tool_call>'
again = S.scripted(as_text, S.call("get_order", order_id="A-1001"), as_text, "Order A-1001 is shipped.",
                   tools=("get_order",), question="Where is A-1001?")
llm, r = run(again)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: text tool call", 3), (
    f"ask once per run: the second text call stops the run; got {r!r}")

# Normal answers that mention tools or braces are answers.
for text in ["I checked with get_order: your order is shipped.", 'Totals: {"taxi": 5000}']:
    plain = wb.scenarios.scripted(text, tools=("get_order", "txn_sum"), answer=text, question="Hi")
    llm, r = run(plain)
    assert (r.answer, r.status, r.steps) == (text, "done", 1), f"{text!r} is an answer, not a text call; got {r!r}"

# Every error scenario ends with the right answer: the errors were specific enough.
for name in ["unknown_tool_then_recover", "broken_json_then_fix", "wrong_field_then_fix",
             "vague_vs_specific_error", "missing_order", "asks_other_customer"]:
    scenario = wb.scenarios.get(name)
    llm, r = run(scenario)
    assert (r.answer, r.status) == (scenario.answer, "done"), (
        f"{name}: the model could not act on your error observation; got {r!r}")
    sent = llm.requests[1]["messages"][-1]
    assert sent.get("role") == "tool", f"{name}: a failed call gets its tool message; sent {sent!r}"
    wb.checks.error_text(sent.get("content"), f"{name}: the failed call's tool message")

# A raising tool: reported, not swallowed, and the loop goes on.
def order_db(order_id: str) -> dict:
    raise ConnectionError("orders database unreachable")


llm, r = run(wb.scenarios.missing_order(), impl={"get_order": order_db})
sent = llm.requests[1]["messages"][-1]["content"]
assert "ConnectionError" in sent and "unreachable" in sent and r.status == "done", (
    f"tell the model what the tool raised; sent {sent!r}, got {r!r}")

# Every call of a reply answered, in order, with JSON results.
scenario = wb.scenarios.two_orders()
llm, r = run(scenario)
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), f"answer every call by id; got {r!r}"
results = [json.loads(m["content"])["order_id"] for m in llm.requests[1]["messages"][2:]]
assert results == ["A-1001", "A-1002"], f"one JSON result per call, in order; got {results}"

# Stop statuses.
llm, r = run(wb.scenarios.never_finishes(), impl={"search_kb": lambda query: {"hits": []}}, cap=5, max_steps=3)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: step limit", 3) and llm.calls == 3, (
    f"with max_steps=3: AgentResult(None, 'STOPPED: step limit', 3); got {r!r}")
cut = wb.scenarios.scripted(wb.scenarios.final('{"name": "get_order"', finish_reason="length"),
                            tools=("get_order",), question="Where is A-1001?")
llm, r = run(cut)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1), f"'length' is not an answer; got {r!r}"
### END HIDDEN TESTS

# %% [markdown]
# ## The loop at work
#
# Your loop against every scenario of this chapter. Each misbehaves on purpose; each run ends with
# an honest status, and none of them crashes.

# %%
runs = [(name, scenarios.get(name)) for name in
        ["unknown_tool_then_recover", "broken_json_then_fix", "wrong_field_then_fix",
         "vague_vs_specific_error", "missing_order", "asks_other_customer"]]
runs += [("text_tool_call (recovers)", scenarios.text_tool_call(recovers=True)),
         ("text_tool_call (never)", scenarios.text_tool_call(recovers=False))]
for label, scenario in runs:
    llm = FakeLLM(scenario)
    result = run_agent(llm.client(max_calls=25), "fake-model", scenario.question,
                       scenario.openai_tools(), Shop("C-001").tools())
    errors = [m["content"] for body in llm.requests[-1:] for m in body["messages"]
              if m["role"] == "tool" and '"error"' in m["content"]]
    print(f"{label:26} {result.status:24} steps={result.steps}  {result.answer!r}")
    for error in errors:
        print(f"{'':26} ↳ {error}")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **`json.loads` without a `try`.** One cut-off argument string and the run is over.
# - **`impl[name]` on a made-up tool.** A `KeyError` instead of the list of tools that exist.
# - **Vague errors.** "invalid input", "something went wrong", "tool failed": the model cannot tell
#   what to change, so it gives up or guesses. Name the tool, the field, what was expected and what
#   came.
# - **Swallowing the exception.** `except Exception: return "{}"` (or `None`, or `pass`) hides the
#   failure; the model reads "nothing found" as "all fine" and invents an answer.
# - **Validating by hand, or not at all.** `fn(**args)` lets a wrong type deep into the tool and
#   lets extra fields through on tools that accept `**kwargs`; `extra="forbid"` and typed fields
#   catch both before anything runs.
# - **Sending the traceback.** Hundreds of tokens, one useful line, and your internals shown to the
#   model. Send the exception's type and message.
# - **Asking forever.** A model that writes calls as text usually keeps doing it; re-asking until the
#   step limit wastes every step. Ask once per run, then stop with `"STOPPED: text tool call"`.
# - **Taking the text call as the answer.** The customer receives `<tool_call>{...}` as the reply.
# - **Running the text call.** Parsing a call out of free text executes whatever the text says,
#   examples included, and there is no id to answer. Ask for a proper call instead.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("05_errors_are_observations")

# %% [markdown]
# ## Live cell (optional)
#
# The same `run_agent` against a real model, with a question that names an order that does not
# exist: the tool fails, and the model has to tell the customer. A small local model may also write a
# call as text now and then. It runs when `LLM_PROVIDER` names a live provider (see chapter 00) and
# is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        live = run_agent(live_client, live_model, "Where is my order A-1003? And what about A-1001?",
                         [SCHEMAS["get_order"], SCHEMAS["txn_sum"]], Shop("C-001").tools(), max_steps=5)
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
# **06 · Limits and stopping**: your loop now survives every bad call, which means it can also keep
# going for a long time. Next come the limits that end a run on purpose — steps, a token budget,
# wall-clock time, the size of a tool result — and the loop detector that stops a model repeating
# the same call.
