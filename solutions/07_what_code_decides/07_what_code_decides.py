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
# # 07 · What only code decides
#
# The model writes text. Some of that text is a request — "call `read_file` with
# `{"path": "../.env"}`" — and your code decides what actually happens. Everything that matters for
# safety is decided there, in code the model cannot talk its way around:
#
# - **who** the customer is: the logged-in session, never an argument;
# - **whether** an action that changes something may run: only after the *customer* said yes;
# - **how much** each tool can do at most: read only one folder, write only notes, compute only
#   arithmetic — whatever the model asks, and whatever a poisoned page tells it to ask.
#
# This chapter builds those guarantees: a dispatcher that keeps identity and confirmation in code,
# and the three least-privilege tools the capstone agent uses — `read_file`, `write_note` and
# `calculate` — each refusing the attacks that break the obvious versions.
#
# **Learning goals.** After this chapter you can
# - explain why no tool takes a `customer_id`, and reject a model that sends one;
# - run state-changing tools only after the customer's own confirmation, never the model's;
# - confine file reads to one folder with `resolve()` + `is_relative_to()`, and say why a
#   `".." in path` check is not a check;
# - write notes only into `out/`, with a strict name pattern and no symlinks;
# - evaluate arithmetic with an `ast` whitelist and bounds, and say why `eval` is remote code
#   execution.
#
# **Time:** about 90 minutes.
#
# **Builds on:** 02 · The loop (the session, the confirmation flag), 03 · The OpenAI wire format
# (tool calls, arguments as a JSON string) and 06 · Limits and stopping. What you need from them
# is restated below as given code.

# %% [markdown]
# ## Given code
#
# The result object, `error_observation(text)` (chapter 05: a failure as the model reads it, the
# JSON text `{"error": text}`) and a compact loop over Chat Completions (chapter 03, with chapter
# 06's finish-reason check). This time the loop does not run tools itself: it hands every call to a
# **dispatcher**, `run_call(name, arguments) -> str`, and sends back the text it returns. The
# dispatcher is where this chapter's decisions live.

# %% nbgrader={"grade": false, "grade_id": "given_loop", "locked": true, "schema_version": 3, "solution": false}
import ast
import inspect
import json
import math
import operator
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.paths import AGENT_FILES
from workbook.shop import SCHEMAS, Shop


#@include 05_errors_are_observations error_observation


#@include 02_the_loop AgentResult


def run_agent(client, model, question, tools, run_call, max_steps=8):
    """The loop; every tool call goes to run_call(name, arguments) -> observation text."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        messages.append(choice.message.model_dump(exclude_none=True))
        if choice.finish_reason not in ("stop", "tool_calls"):
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        if not choice.message.tool_calls:
            return AgentResult(choice.message.content, "done", step)
        for call in choice.message.tool_calls:
            observation = run_call(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
    return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# ## Part 1 · Who: identity comes from the session
#
# A customer logs in; the login decides who they are. From then on, a `Shop(customer_id=...)`
# object — the **session** — holds that identity, and every shop tool works for that customer
# only. Look at the tool schemas the model is given: not one of them has a `customer_id`.

# %%
for name in ("txn_sum", "get_order", "card_block", "get_weather"):
    print(f"{name:12} parameters: {list(SCHEMAS[name]['function']['parameters']['properties'])}")

# %% [markdown]
# This is a guarantee by construction (*poka-yoke*): there is no argument through which the model
# could name another customer, so no prompt can make it do so. Compare the alternative — a
# `customer_id` parameter "that the model will fill in correctly" — with what the model actually
# sends when a customer asks about someone else:

# %%
scenario = scenarios.asks_other_customer()
llm = FakeLLM(scenario)
reply = llm.client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message
print("customer asks:", scenario.question)
print("model sends:  ", reply.tool_calls[0].function.name, reply.tool_calls[0].function.arguments)

# %% [markdown]
# The schema says `"additionalProperties": false`, and the model sent `customer_id` anyway. A
# schema is a request to the model, not a guarantee: **your dispatcher** has to reject it, with an
# error that says why, so the model can explain to the customer that it can only see their own
# data.
#
# ## Part 2 · Whether: confirmation comes from the customer
#
# Blocking a card or refunding money changes the world, and cannot be taken back by sending
# another message. Such tools run only after the **customer** agreed — in the chat UI, by
# pressing "Yes", in their own words. The model cannot give that agreement: if it could, one
# confused step (or one sentence in a web page the model read) would be enough.
#
# Here is a model that tries to confirm on the customer's behalf:

# %%
scenario = scenarios.wants_card_block()
reply = FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message
print("model sends:", reply.tool_calls[0].function.name, reply.tool_calls[0].function.arguments)

# %% [markdown]
# So the dispatcher gets a function, `ask_customer(name, args) -> bool`, from the application. For
# a state-changing tool it calls `ask_customer` and goes ahead only on `True`. In a chat app
# `ask_customer` shows a button; in the tests it is a plain function that records it was asked.
# The set of tools that change state is code too:

# %% nbgrader={"grade": false, "grade_id": "given_confirmation", "locked": true, "schema_version": 3, "solution": false}
NEEDS_CONFIRMATION = {"card_block", "refund"}  # tools that change state: the customer must say yes


def customer_says(answer):
    """An ask_customer for demos: prints the question, answers `answer`, and records each call."""
    def ask_customer(name, args):
        ask_customer.asked.append((name, args))
        print(f"    [app asks the customer] Run {name}({args})? -> {'yes' if answer else 'no'}")
        return answer
    ask_customer.asked = []
    return ask_customer


# %% [markdown]
# ## Exercise 1 — `execute` (4 points)
#
# Write `execute(shop, name, arguments, ask_customer)`: run one tool call for the logged-in
# customer and return the **observation text** the loop sends back. `shop` is the session,
# `arguments` the JSON string from the tool call. In this order:
#
# 1. `name` is not one of `shop.tools()` → an error `"unknown tool ...; available tools: ..."`
#    (list them);
# 2. `arguments` is not valid JSON, or not a JSON object → an error that says so;
# 3. the arguments hold `customer_id` → an error that names `customer_id` and says that tools
#    always work for the logged-in customer. Nothing runs, nobody else's data is touched;
# 4. the argument names are not exactly the schema's (`SCHEMAS[name]["function"]["parameters"]
#    ["properties"]`) → an error naming the expected arguments. A `"confirmed": true` from the model
#    lands here: it is just an argument the tool does not have;
# 5. `name` is in `NEEDS_CONFIRMATION`: call `ask_customer(name, args)` once; unless it returns
#    `True`, return an error saying the customer did not confirm (and do not run it);
# 6. run `shop.tools()[name](**args)`; an exception becomes the error `f"{type(e).__name__}: {e}"`,
#    a result becomes `json.dumps(result, ensure_ascii=False, default=str)`.
#
# Every error is an error observation, `error_observation(text)`: the JSON text `{"error": text}`.
# `execute` never raises, and never asks the customer about a call it would refuse anyway.

# %% nbgrader={"grade": false, "grade_id": "execute", "locked": false, "schema_version": 3, "solution": true}
def execute(shop, name, arguments, ask_customer):
    """Run one tool call for the session's customer; the observation text (an error is {"error": ...})."""
    ### BEGIN SOLUTION
    tools = shop.tools()
    if name not in tools:
        return error_observation(f"unknown tool {name!r}; available tools: {', '.join(sorted(tools))}")
    try:
        args = json.loads(arguments)
    except (TypeError, ValueError) as e:
        return error_observation(f"the arguments of {name} are not valid JSON ({e}); send one JSON object")
    if not isinstance(args, dict):
        return error_observation(f"the arguments of {name} must be a JSON object, got {type(args).__name__}")
    if "customer_id" in args:
        return error_observation("customer_id is not an argument: every tool works for the logged-in "
                                 "customer only, and cannot look at anyone else's data")
    expected = list(SCHEMAS[name]["function"]["parameters"]["properties"])
    if set(args) != set(expected):
        return error_observation(f"{name} takes exactly the arguments {expected}; got {sorted(args)}")
    if name in NEEDS_CONFIRMATION and ask_customer(name, args) is not True:
        return error_observation(f"the customer did not confirm {name}; it did not run. Tell the customer what "
                                 "you would do and ask them to confirm")
    try:
        result = tools[name](**args)
    except Exception as e:  # a failing tool is news for the model, not a crash
        return error_observation(f"{type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "execute_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: execute runs txn_sum for the session's customer and returns its JSON result, and
refuses a call that names a customer_id with an error observation, running nothing; card_block
runs only when ask_customer says yes, never on the model's own "confirmed": true (refused as an
argument the tool does not have, without asking anyone); an unknown tool, arguments that are not
a JSON object, an extra argument and a tool that raises each give an error observation."""
import json

from workbook.checks import fresh

wb = fresh()
shop = wb.shop.Shop("C-001")
asked = []
out = execute(shop, "txn_sum", '{"category": "taxi", "month": "2026-09"}', lambda n, a: asked.append(n) or True)
assert type(out) is str, f"execute must return the observation as a str, got {type(out).__name__}"
assert json.loads(out) == {"category": "taxi", "month": "2026-09", "count": 2, "total_kzt": 5000}, (
    f"txn_sum for the session's customer C-001 totals 5000 KZT; got {out!r}")
assert asked == [], "txn_sum only reads: do not ask the customer to confirm it"
shop = wb.shop.Shop("C-001")
out = execute(shop, "txn_sum", '{"category": "taxi", "month": "2026-09", "customer_id": "C-002"}',
              lambda n, a: True)
assert "customer_id" in wb.checks.error_text(out, "execute(shop, 'txn_sum', <arguments with customer_id>)"), (
    f"a call with customer_id must give an error observation that names customer_id; got {out!r}")
assert shop.log == [], f"a refused call must not run the tool; the shop saw {shop.log}"

shop, asked = wb.shop.Shop("C-001"), []
out = execute(shop, "card_block", "{}", lambda n, a: asked.append(n) or False)
assert wb.checks.error_text(out, "card_block when ask_customer says no") and shop.card_blocked is False, (
    f"card_block changes state: when ask_customer says no, return an error observation and do not run it; got {out!r}")
assert asked == ["card_block"], f"ask the customer once about card_block; asked about {asked}"
asked = []
out = execute(shop, "card_block", '{"confirmed": true}', lambda n, a: asked.append(n) or False)
assert wb.checks.error_text(out, "card_block with the model's own confirmed") and shop.card_blocked is False, (
    "the model cannot confirm for the customer: {'confirmed': true} in its arguments must not block the "
    f"card; got {out!r}")
assert asked == [], (
    "'confirmed' is an argument card_block does not have: refuse the call before asking the customer "
    f"(never ask about a call you would refuse anyway); asked about {asked}")
out = execute(shop, "card_block", "{}", lambda n, a: True)
assert shop.card_blocked is True and '"error"' not in out, (
    f"when ask_customer returns True, card_block runs; got {out!r}")


def observation(name, arguments, what, runs=False):
    """execute's error text for a call it must refuse, on a fresh session; nothing may run unless `runs`."""
    session = wb.shop.Shop("C-001")
    with wb.checks.no_raise(f"execute(shop, {name!r}, {arguments!r})", hint="return an error observation instead"):
        got = execute(session, name, arguments, lambda n, a: True)
    error = wb.checks.error_text(got, what)
    assert runs or session.log == [], f"{what}: nothing may run; the shop saw {session.log}"
    return error


error = observation("refund_everything", "{}", "an unknown tool")
assert "txn_sum" in error and "get_order" in error, f"an unknown tool: list the available tools; got {error!r}"
observation("get_order", '{"order_id": "A-10', "arguments that are not valid JSON")
observation("get_order", '["A-1001"]', "arguments that are a JSON list, not an object")
error = observation("get_order", '{"order_id": "A-1001", "verbose": true}', "an extra argument, verbose")
assert "order_id" in error, f"arguments that are not exactly the schema's: name the expected ones; got {error!r}"
error = observation("get_order", '{"order_id": "B-2001"}', "a tool that raises (B-2001 is another customer's order)",
                    runs=True)
assert error.startswith("KeyError"), f"a tool that raises gives '<exception type>: <message>'; got {error!r}"
print("execute: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "execute_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: execute never uses a customer_id from the arguments (asks_other_customer ends
with the session's own data and nobody else's); runs card_block only after ask_customer returned
True, never on the model's "confirmed"; asks only about valid state-changing calls, once; refuses
unknown tools, broken JSON and extra arguments; turns tool errors into observations; never raises."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


class Customer:
    """An ask_customer that records each question and gives a fixed answer."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def __call__(self, name, args):
        self.asked.append((name, dict(args)))
        return self.answer


def ex(shop, name, arguments, customer):
    with wb.checks.no_raise(f"execute({name!r}, {arguments!r})", hint="return an error observation instead"):
        out = execute(shop, name, arguments, customer)
    assert type(out) is str, f"execute must return a str, got {type(out).__name__}: {out!r}"
    return out


def refused(out, what):
    wb.checks.error_text(out, what)


def drive(scenario, shop, customer, cap=6):
    """The test's own loop: every call goes through execute; returns (AgentResult-like, observations)."""
    llm = wb.fake_llm.FakeLLM(scenario)
    client = llm.client()
    messages = [{"role": "user", "content": scenario.question}]
    seen = []
    for step in range(1, cap + 1):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenario.openai_tools()).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return (message.content, step), seen
        for call in message.tool_calls:
            out = ex(shop, call.function.name, call.function.arguments, customer)
            seen.append(out)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": out})
    raise AssertionError(f"{scenario.name} did not finish in {cap} steps; observations: {seen}")


# Identity: a customer_id from the model is refused, and only the session's data is ever used.
shop, customer = wb.shop.Shop("C-001"), Customer(True)
(answer, steps), seen = drive(wb.scenarios.asks_other_customer(), shop, customer)
refused(seen[0], "txn_sum with customer_id='C-002'")
assert "customer_id" in seen[0], f"the error must name customer_id so the model understands; got {seen[0]!r}"
assert not any("9900" in s for s in seen), (
    f"C-002's data (9900 KZT) reached the model: never take the customer from the arguments; got {seen}")
assert (answer, steps) == ("Taxi in September 2026: 2 rides, 5000 KZT.", 3), (
    f"after the error the model retries without customer_id and answers with the session's data; got {answer!r} in {steps} steps")
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})], (
    f"only the retry without customer_id may run; the shop saw {shop.log}")
for name, arguments in [("get_order", '{"order_id": "B-2001", "customer_id": "C-002"}'),
                        ("card_block", '{"customer_id": "C-002"}')]:
    shop, customer = wb.shop.Shop("C-001"), Customer(True)
    out = ex(shop, name, arguments, customer)
    refused(out, f"{name} with customer_id")
    assert "customer_id" in out and shop.log == [] and not shop.card_blocked, (
        f"{name} with a customer_id must be refused without running; got {out!r}, the shop saw {shop.log}")
    assert customer.asked == [], "do not ask the customer to confirm a call that is refused anyway"
shop = wb.shop.Shop("C-002")
out = ex(shop, "txn_sum", '{"category": "taxi", "month": "2026-09"}', Customer(True))
assert json.loads(out)["total_kzt"] == 9900, f"the session decides the customer: C-002's session sees 9900; got {out!r}"

# Confirmation: the customer's, never the model's.
shop, customer = wb.shop.Shop("C-001"), Customer(False)
(answer, steps), seen = drive(wb.scenarios.wants_card_block(), shop, customer)
assert not shop.card_blocked, (
    "the card was blocked although the customer never agreed: ignore the model's 'confirmed', "
    "ask the customer and run only on True")
refused(seen[0], "card_block with confirmed=true from the model")
assert customer.asked == [("card_block", {})], (
    "ask the customer once, for the valid call card_block({}), and not for the call that carried the "
    f"model's own 'confirmed'; asked {customer.asked}")
refused(seen[1], "card_block after the customer said no")
assert answer == wb.scenarios.wants_card_block().answer, f"the model then asks the customer; it said {answer!r}"
shop, customer = wb.shop.Shop("C-001"), Customer(True)
(answer, steps), seen = drive(wb.scenarios.wants_card_block(), shop, customer)
assert shop.card_blocked and customer.asked == [("card_block", {})], (
    f"a customer who says yes gets the card blocked after one question; blocked={shop.card_blocked}, asked={customer.asked}")
assert json.loads(seen[1]) == {"status": "blocked"} and answer == "Your card is now blocked.", (
    f"the result of card_block goes back as JSON; got {seen[1]!r}, answer {answer!r}")
for answer_given in (None, 0, False):
    shop = wb.shop.Shop("C-001")
    out = ex(shop, "card_block", "{}", Customer(answer_given))
    refused(out, f"card_block when ask_customer returned {answer_given!r}")
    assert not shop.card_blocked, f"run a state-changing tool only when ask_customer returns True (it returned {answer_given!r})"
for arguments in ('{"confirmed": true}', '{"confirm": "yes"}', '{"customer_confirmed": true}'):
    shop, customer = wb.shop.Shop("C-001"), Customer(True)
    out = ex(shop, "card_block", arguments, customer)
    refused(out, f"card_block{arguments}")
    assert not shop.card_blocked and customer.asked == [], (
        f"card_block with {arguments} from the model: refuse it (an argument the tool does not have), "
        f"ask nobody, block nothing; asked={customer.asked}, blocked={shop.card_blocked}")
customer = Customer(True)
ex(wb.shop.Shop("C-001"), "get_order", '{"order_id": "A-1001"}', customer)
ex(wb.shop.Shop("C-001"), "get_weather", '{"city": "Almaty"}', customer)
assert customer.asked == [], f"read-only tools need no confirmation; asked {customer.asked}"

# Bad calls become observations.
shop, customer = wb.shop.Shop("C-001"), Customer(True)
out = ex(shop, "refund_everything", "{}", customer)
refused(out, "an unknown tool")
assert all(n in out for n in ("txn_sum", "get_order", "card_block", "get_weather")), (
    f"an unknown tool's error lists the available tools; got {out!r}")
for arguments in ('{"order_id": "A-10', '["A-1001"]', '"A-1001"'):
    refused(ex(shop, "get_order", arguments, customer), f"get_order with arguments {arguments}")
out = ex(shop, "get_order", '{"order_id": "A-1001", "verbose": true}', customer)
refused(out, "get_order with an extra argument")
assert "order_id" in out, f"name the expected arguments; got {out!r}"
refused(ex(shop, "txn_sum", '{"category": "taxi"}', customer), "txn_sum without month")
assert shop.log == [] and customer.asked == [], f"none of these may run or ask; the shop saw {shop.log}"
out = ex(shop, "get_order", '{"order_id": "B-2001"}', customer)
assert wb.checks.error_text(out, "get_order of another customer's order").startswith("KeyError"), (
    f"a tool that raises gives the error observation '<exception type>: <message>'; got {out!r}")
out = ex(shop, "get_order", '{"order_id": "A-1001"}', customer)
assert json.loads(out) == {"order_id": "A-1001", "item": "Svet desk lamp", "total": 2450, "status": "shipped"}, (
    f"a result goes back as json.dumps(result); got {out!r}")
### END HIDDEN TESTS

# %% [markdown]
# ### The dispatcher at work
#
# Both scenarios through the loop, with a customer who says no and one who says yes:

# %%
for name, says in [("asks_other_customer", True), ("wants_card_block", False), ("wants_card_block", True)]:
    scenario = scenarios.get(name)
    session = Shop("C-001")
    ask_customer = customer_says(says)
    print(f"{name} (customer says {'yes' if says else 'no'}):")
    result = run_agent(FakeLLM(scenario).client(), "fake-model", scenario.question, scenario.openai_tools(),
                   lambda name, arguments: execute(session, name, arguments, ask_customer))
    print(f"    {result}\n    card blocked: {session.card_blocked}")

# %% [markdown]
# ## Part 3 · How much: least privilege for tools
#
# The capstone agent gets three general tools: `read_file`, `write_note` and `calculate`. Each one
# is a door into your machine, opened for the model — and the model's arguments can come from
# anywhere: the customer, a knowledge-base page with hidden instructions, a confused small model.
# So each tool is built to do **its job and nothing more**, whatever it is asked (OWASP calls
# giving an agent more than it needs *excessive agency*):
#
# | tool | may | may not |
# |---|---|---|
# | `read_file(path)` | read `.md`, `.txt`, `.json` files inside `agent_files/`, up to 20,000 characters | leave the folder (`..`, absolute paths, symlinks), read `.env`, code or anything else |
# | `write_note(filename, text)` | write a Markdown note of up to 5,000 characters into `agent_files/out/` | choose a path, overwrite the knowledge base, follow a symlink |
# | `calculate(expression)` | evaluate numbers with `+ - * / **` and unary minus | run code, look up names, compute a number with a billion digits |
#
# And nothing secret goes into `agent_files/` in the first place: no `.env`, no customer data,
# only public pages (`kb/`) and study notes (`notes/`).
#
# **Which folder** the file tools may touch is decided by code too, never by the model. So the
# folder is the first parameter of your functions — `read_file(base, path)`, `write_note(base,
# filename, text)` — and the model never sees it: `make_file_tools(base)` (given below) binds one
# folder and returns the tools the model gets, each taking exactly its schema's arguments (`path`;
# `filename` and `text`). No argument lets a model name another folder: the same guarantee by
# construction as the missing `customer_id`. The app calls `make_file_tools(BASE)`; the tests call
# it with a temporary folder where they plant files and symlinks (as chapter 08's tests hand
# `make_refund_tool` their own `sleep`).

# %% nbgrader={"grade": false, "grade_id": "given_limits", "locked": true, "schema_version": 3, "solution": false}
BASE = AGENT_FILES  # the folder this app gives the file tools
READABLE = {".md", ".txt", ".json"}  # suffixes read_file accepts
MAX_READ = 20_000  # characters read_file returns at most
MAX_NOTE = 5_000  # characters of one note
MAX_LENGTH = 200  # characters of one calculate expression
MAX_EXPONENT = 100  # largest |exponent| calculate accepts
MAX_VALUE = 10**100  # largest |number| calculate accepts, literal or intermediate


def make_file_tools(base):
    """The model's file tools, bound to the folder `base` that code chose: name -> function.

    Each takes exactly its schema's arguments: the model sends a path, never a folder."""
    folder = Path(base)

    def read(path: str) -> str:
        return read_file(folder, path)

    def note(filename: str, text: str) -> str:
        return write_note(folder, filename, text)

    read.__name__, note.__name__ = "read_file", "write_note"  # the names the model knows them by
    return {"read_file": read, "write_note": note}


print("BASE =", BASE)
print(sorted(str(p.relative_to(BASE)) for p in BASE.rglob("*") if p.is_file()))
print({name: str(inspect.signature(fn)) for name, fn in make_file_tools(BASE).items()})

# %% [markdown]
# ### Why `".." in path` is not a check
#
# The first idea for "stay inside the folder" is to refuse paths containing `..` and join the
# rest onto the folder. It fails three ways. Here it is, run inside a throw-away folder that has a
# secret next to it and a symlink planted inside it:

# %%
def naive_read_file(base, path):
    """The obvious version. Do not use it."""
    if ".." in path:
        raise PermissionError("no '..' allowed")
    return Path(os.path.join(base, path)).read_text()


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp).resolve()
    base = tmp / "agent_files"
    (base / "notes").mkdir(parents=True)
    (tmp / "secret.md").write_text("SHOP_API_KEY=not-a-real-key")
    (tmp / "agent_files_evil").mkdir()
    (tmp / "agent_files_evil" / "keys.md").write_text("the evil twin's keys")
    (base / "notes" / "innocent.md").symlink_to(tmp / "secret.md")
    for attack in [str(tmp / "secret.md"), "notes/innocent.md", "../secret.md"]:
        try:
            print(f"{attack!r:60} -> read {naive_read_file(base, attack)!r}")
        except PermissionError as e:
            print(f"{attack!r:60} -> refused ({e})")
    print("os.path.join(base, '/etc/hosts') =", os.path.join(base, "/etc/hosts"))
    # And the prefix check: a sibling folder whose name starts with the same letters.
    sibling = (tmp / "agent_files_evil" / "keys.md").resolve()
    print("startswith says inside:", str(sibling).startswith(str(base)),
          "| is_relative_to says inside:", sibling.is_relative_to(base))

# %% [markdown]
# 1. An **absolute path** has no `..`, and `os.path.join` throws away everything before an
#    absolute component: `os.path.join(base, "/etc/hosts")` is `/etc/hosts`.
# 2. A **symlink** inside the folder points anywhere; the string looks harmless.
# 3. A **prefix check** on strings (`str(target).startswith(str(base))`) accepts
#    `agent_files_evil/`, a sibling whose name starts the same way.
#
# The check that works asks about the file the path *really* leads to:
#
# ```python
# root = Path(base).resolve()
# target = (root / path).resolve()   # absolute paths, "..", and every symlink resolved
# if not target.is_relative_to(root): # compares path components, not characters
#     raise PermissionError(...)
# ```
#
# `Path.resolve()` follows symlinks and removes `..`; `Path.is_relative_to()` (Python 3.9+)
# compares whole path components. Then check the **resolved** target's suffix — a symlink named
# `notes.md` may point at `.env`.

# %% [markdown]
# ## Exercise 2 — `read_file` (4 points)
#
# Write `read_file(base, path)`. `base` is the folder your code chose (a `Path` or a string);
# `path` is what the model sent, relative to that folder (e.g. `"notes/agent-loop.md"`):
#
# 1. resolve `base` and `base / path`; when the target is not inside the resolved `base`, raise
#    `PermissionError` (a message saying it is outside the agent's folder);
# 2. when the resolved target's suffix is not in `READABLE`, raise `PermissionError` (say which
#    suffixes are allowed);
# 3. when it is not a file, raise `FileNotFoundError`;
# 4. read it as UTF-8 and return the text — but at most `MAX_READ` characters: a longer file is
#    cut there and followed by `"\n[truncated]"` (read no more than you need).
#
# Check in this order: a refusal must not depend on whether a file exists outside the folder.
# The loop's dispatcher turns these exceptions into error observations.

# %% nbgrader={"grade": false, "grade_id": "read_file", "locked": false, "schema_version": 3, "solution": true}
def read_file(base, path):
    """Text of a .md/.txt/.json file inside the folder `base` (at most MAX_READ characters); refusals raise."""
    ### BEGIN SOLUTION
    root = Path(base).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(f"{path!r} is outside the agent's folder")
    if target.suffix not in READABLE:
        raise PermissionError(f"{path!r}: only {', '.join(sorted(READABLE))} files may be read")
    if not target.is_file():
        raise FileNotFoundError(f"no file {path!r} in the agent's folder")
    with open(target, encoding="utf-8", errors="replace") as f:
        text = f.read(MAX_READ + 1)
    return text if len(text) <= MAX_READ else text[:MAX_READ] + "\n[truncated]"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "read_file_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: read_file, through make_file_tools(base), reads a study note from agent_files/ and
refuses a path that leaves the folder with PermissionError, also when nothing is there; given a
temporary agent folder it also refuses an absolute path into a sibling folder named
agent_files_evil, and a symlink named .md that leads to .env, raises FileNotFoundError for a folder
named .md, and cuts a long file at 20,000 characters with the marker."""
from pathlib import Path

from workbook.checks import fresh

from pathlib import Path
from workbook.notebook_side import notebook_folder

#@include 07_what_code_decides make_file_tools


wb = fresh()
read = make_file_tools(wb.paths.AGENT_FILES)["read_file"]
text = read("notes/agent-loop.md")
assert type(text) is str and "agent loop" in text.lower(), (
    f"read_file(base, 'notes/agent-loop.md') must return the note's text; got {text[:80]!r}")
with wb.checks.raises(PermissionError, what="read_file(base, '../README.md'), a path out of the folder,"):
    read("../README.md")
with wb.checks.raises(PermissionError, what="read_file(base, '../no-such-note.md'), a path out of the folder to "
                      "nothing (refuse it before asking whether it is a file),"):
    read("../no-such-note.md")

with notebook_folder() as tmp:
    base = tmp / "agent_files"
    (base / "notes").mkdir(parents=True)
    (base / ".env").write_text("SHOP_API_KEY=inside-but-secret", encoding="utf-8")
    (base / "notes" / "env.md").symlink_to(base / ".env")
    (base / "notes" / "big.md").write_text("x" * 30_000, encoding="utf-8")
    (base / "notes" / "drafts.md").mkdir()
    (tmp / "agent_files_evil").mkdir()
    (tmp / "agent_files_evil" / "keys.md").write_text("evil twin secret", encoding="utf-8")
    read = make_file_tools(base)["read_file"]
    evil = str(tmp / "agent_files_evil" / "keys.md")
    with wb.checks.raises(PermissionError, what="read_file(base, <absolute path into agent_files_evil/>)"):
        read(evil)
    with wb.checks.raises(PermissionError, what="read_file(base, 'notes/env.md'), a symlink named .md that leads to .env,"):
        read("notes/env.md")
    with wb.checks.raises(FileNotFoundError, what="read_file(base, 'notes/drafts.md'), a folder, not a file,"):
        read("notes/drafts.md")
    with wb.checks.no_raise("read_file(base, 'notes/big.md')", hint="read from `base`, the folder you were given"):
        got = read("notes/big.md")
    assert got == "x" * 20_000 + "\n[truncated]", (
        f"a 30,000-character file gives its first 20,000 characters and '\\n[truncated]'; got {len(got)} characters")
print("read_file: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "read_file_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: read_file, given a temporary agent folder through make_file_tools, refuses ../, absolute paths, a
symlink out of the folder, a sibling folder with a common prefix, .env/.py/suffix-less files and
directories; reads allowed files (also through .. that stays inside and a symlink inside); cuts
files over 20,000 characters with the marker."""
### BEGIN HIDDEN TESTS
from pathlib import Path

from workbook.checks import fresh

from pathlib import Path
from workbook.notebook_side import notebook_folder

#@include 07_what_code_decides make_file_tools


wb = fresh()
with notebook_folder() as tmp:
    base = tmp / "agent_files"
    for folder in ("notes", "kb", "out"):
        (base / folder).mkdir(parents=True)
    note = "# The agent loop\n\nA loop: model, tool, observation. Ünïcödé ✓\n"
    (base / "notes" / "agent-loop.md").write_text(note, encoding="utf-8")
    (base / "kb" / "page.txt").write_text("plain text page", encoding="utf-8")
    (base / "kb" / "data.json").write_text('{"fee": 2.5}', encoding="utf-8")
    big = "".join(f"line {i:05d} of a very long page\n" for i in range(1500))  # 42,000 characters
    (base / "kb" / "big.md").write_text(big, encoding="utf-8")
    (base / "kb" / "exact.md").write_text("e" * 20_000, encoding="utf-8")
    (base / ".env").write_text("SHOP_API_KEY=inside-but-secret", encoding="utf-8")
    (base / "tools.py").write_text("import os", encoding="utf-8")
    (base / "kb" / "folder.md").mkdir()
    (tmp / ".env").write_text("SHOP_API_KEY=outside-secret", encoding="utf-8")
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.md").write_text("outside secret", encoding="utf-8")
    (tmp / "agent_files_evil").mkdir()
    (tmp / "agent_files_evil" / "keys.md").write_text("evil twin secret", encoding="utf-8")
    (base / "notes" / "escape.md").symlink_to(tmp / "outside" / "secret.md")
    (base / "notes" / "env.md").symlink_to(base / ".env")
    (base / "notes" / "alias.md").symlink_to(base / "notes" / "agent-loop.md")

    tool = make_file_tools(base)["read_file"]

    def read(path):
        with wb.checks.no_raise(f"read_file(base, {path!r})", allow=(PermissionError, FileNotFoundError), hint='refusals are PermissionError, a missing file FileNotFoundError: nothing else'):
            return tool(path)

    attacks = [
        ("../.env", "a parent-folder path"),
        ("notes/../../outside/secret.md", "'..' in the middle of the path"),
        (str(tmp / "outside" / "secret.md"), "an absolute path (os.path.join keeps only it)"),
        (str(tmp / "agent_files_evil" / "keys.md"), "an absolute path into a sibling folder named agent_files_evil"),
        ("../agent_files_evil/keys.md", "a sibling folder whose name starts like the agent's folder"),
        ("notes/escape.md", "a symlink inside the folder pointing outside it"),
        ("/etc/hosts", "an absolute system path"),
        (".env", "a .env file (not .md, .txt or .json)"),
        ("notes/env.md", "a symlink named .md that points to .env (check the resolved suffix)"),
        ("tools.py", "a .py file"),
        ("", "the folder itself"),
        ("notes", "a folder"),
    ]
    for path, what in attacks:
        try:
            got = read(path)
        except PermissionError as e:
            assert str(e).strip(), f"read_file({path!r}): give the PermissionError a message saying why"
        except FileNotFoundError as e:
            raise AssertionError(f"read_file({path!r}) ({what}) must raise PermissionError, not "
                                 f"FileNotFoundError: {e}") from None
        else:
            raise AssertionError(f"read_file({path!r}) ({what}) must raise PermissionError; it returned "
                                 f"{got[:40]!r}. Resolve base / path, check is_relative_to, then the suffix")

    for path, expected in [("notes/agent-loop.md", note), ("kb/page.txt", "plain text page"),
                           ("kb/data.json", '{"fee": 2.5}'), ("./kb/page.txt", "plain text page"),
                           ("kb/../notes/agent-loop.md", note), ("notes/alias.md", note),
                           ("kb/exact.md", "e" * 20_000)]:
        try:
            got = read(path)
        except (PermissionError, FileNotFoundError) as e:
            raise AssertionError(f"read_file({path!r}) is inside the folder and allowed, but raised "
                                 f"{type(e).__name__}: {e}") from None
        assert type(got) is str and got == expected, (
            f"read_file({path!r}) should return the file's text ({len(expected)} characters); got {got[:60]!r}")

    got = read("kb/big.md")
    assert type(got) is str and got == big[:20_000] + "\n[truncated]", (
        f"a 42,000-character file gives its first 20,000 characters and '\\n[truncated]'; got "
        f"{len(got)} characters ending {got[-30:]!r}")
    for path in ("notes/missing.md", "kb/folder.md"):
        try:
            got = read(path)
        except FileNotFoundError:
            pass
        except PermissionError as e:
            raise AssertionError(f"read_file({path!r}) is inside and has an allowed suffix, but is not a "
                                 f"file: raise FileNotFoundError, not PermissionError ({e})") from None
        else:
            raise AssertionError(f"read_file({path!r}) is not a file: raise FileNotFoundError; got {got!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 — `write_note` (4 points)
#
# `write_note` is the only tool that changes anything, so it is the strictest. Write
# `write_note(base, filename, text)` (`base` as in `read_file`):
#
# 1. `filename` must match the **whole** pattern `[a-z0-9][a-z0-9-]{0,40}\.md` (use
#    `re.fullmatch`): lowercase letters, digits and dashes, starting with a letter or digit, ending
#    in `.md` — no `/`, no `..`, no hidden files, nothing after `.md`. Otherwise raise `ValueError`
#    with an example of a good name;
# 2. `text` longer than `MAX_NOTE` characters → `ValueError`;
# 3. the note goes into `base / "out"` (create the folder if it is missing). If the target is a
#    symlink, or its resolved path is not inside `<resolved base>/out`, raise `PermissionError` —
#    someone planted a link to make you overwrite another file;
# 4. write `text` as UTF-8 and return `f"saved out/{filename} ({len(text)} characters)"`.
#
# A refused call writes nothing, anywhere. Writing the same name again replaces the note.

# %% nbgrader={"grade": false, "grade_id": "write_note", "locked": false, "schema_version": 3, "solution": true}
def write_note(base, filename, text):
    """Save a Markdown note into the folder `base`/out; refusals raise ValueError or PermissionError."""
    ### BEGIN SOLUTION
    if not isinstance(filename, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,40}\.md", filename):
        raise ValueError(f"bad note name {filename!r}: use lowercase letters, digits and dashes, "
                         "like 'lamps-returns.md'")
    if not isinstance(text, str) or len(text) > MAX_NOTE:
        raise ValueError(f"a note is a string of at most {MAX_NOTE} characters")
    out = Path(base).resolve() / "out"
    out.mkdir(exist_ok=True)
    target = out / filename
    if target.is_symlink() or not target.resolve().is_relative_to(out):
        raise PermissionError(f"out/{filename} is a link to somewhere else; refusing to write through it")
    target.write_text(text, encoding="utf-8")
    return f"saved out/{filename} ({len(text)} characters)"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "write_note_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: write_note, through make_file_tools(base), saves a note into out/ of that folder
(the same name again replaces it) and returns "saved out/<name> (<n> characters)"; a name with a
path in it, a capital letter or a trailing newline, and a text over 5,000 characters, are refused
with ValueError; a symlink planted in out/, or an out/ that is itself a link, is refused with
PermissionError and nothing is written. (Run in a temporary agent folder.)"""
from pathlib import Path

from workbook.checks import fresh

from pathlib import Path
from workbook.notebook_side import notebook_folder

#@include 07_what_code_decides make_file_tools


wb = fresh()

with notebook_folder() as tmp:
    base = tmp / "agent_files"
    (base / "kb").mkdir(parents=True)
    write_note_tool = make_file_tools(base)["write_note"]
    said = write_note_tool("lamps-returns.md", "Returns: 14 days.")
    assert type(said) is str, f"write_note must return a str, got {type(said).__name__}"
    assert said == "saved out/lamps-returns.md (17 characters)", (
        f"return f'saved out/{{filename}} ({{len(text)}} characters)'; got {said!r}")
    saved = base / "out" / "lamps-returns.md"
    assert saved.is_file() and saved.read_text(encoding="utf-8") == "Returns: 14 days.", (
        "write_note('lamps-returns.md', text) must write text to base / 'out' / 'lamps-returns.md'")
    with wb.checks.no_raise("write_note('lamps-returns.md', ...) a second time",
                            hint="writing the same name again replaces the note"):
        write_note_tool("lamps-returns.md", "Returns: 30 days.")
    assert saved.read_text(encoding="utf-8") == "Returns: 30 days.", "writing the same name again replaces the note"
    with wb.checks.raises(ValueError, what="write_note('long.md', <5,001 characters>), a text over MAX_NOTE,"):
        write_note_tool("long.md", "x" * 5_001)
    assert not (base / "out" / "long.md").exists(), "the refused call wrote out/long.md"
    with wb.checks.raises(ValueError, what="write_note('../kb/returns.md', ...), a name with a path in it "
                          "(check it with re.fullmatch),"):
        write_note_tool("../kb/returns.md", "Returns: 90 days!")
    assert not (base / "kb" / "returns.md").exists(), "the refused call wrote kb/returns.md"
    for name, why in [("Lamps.md", "a capital letter"), ("lamps.md\n", "a trailing newline (re.match with $ lets it through)")]:
        with wb.checks.raises(ValueError, what=f"write_note({name!r}, ...) ({why})"):
            write_note_tool(name, "x")
    (base / "kb" / "returns.md").write_text("Returns: 14 days.", encoding="utf-8")
    (base / "out" / "planted.md").symlink_to(base / "kb" / "returns.md")
    with wb.checks.raises(PermissionError, what="write_note('planted.md', ...), a symlink planted in out/,"):
        write_note_tool("planted.md", "Returns: 90 days!")
    assert (base / "kb" / "returns.md").read_text(encoding="utf-8") == "Returns: 14 days.", (
        "the note was written through the planted symlink into kb/returns.md")
    for p in (base / "out").iterdir():
        p.unlink()
    (base / "out").rmdir()
    (base.parent / "elsewhere").mkdir()
    (base / "out").symlink_to(base.parent / "elsewhere")
    with wb.checks.raises(PermissionError, what="write_note('notes.md', ...) when out/ is a link to another folder"):
        write_note_tool("notes.md", "x")
    assert list((base.parent / "elsewhere").iterdir()) == [], "the note was written outside base through a linked out/"
print("write_note: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "write_note_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: write_note refuses names with paths, capitals, other suffixes, a trailing newline,
leading dashes or dots and names over 41 characters; refuses text over 5,000 characters; refuses
planted symlinks (to kb/, out of the folder, and an out/ that is itself a link); creates out/ when
missing; accepts the longest name and exactly 5,000 characters; writes nothing when it refuses."""
### BEGIN HIDDEN TESTS
from pathlib import Path

from workbook.checks import fresh

from pathlib import Path
from workbook.notebook_side import notebook_folder

#@include 07_what_code_decides make_file_tools


wb = fresh()


def snapshot(root):
    return sorted((str(p.relative_to(root)), p.is_symlink() or p.is_dir() or p.read_text(encoding="utf-8"))
                  for p in root.rglob("*"))


def write(filename, text):
    with wb.checks.no_raise(f"write_note(base, {filename!r}, ...)", allow=(ValueError, PermissionError), hint='refusals are ValueError (the name, the size) or PermissionError (a link): nothing else'):
        return write_note_tool(filename, text)


def refuse(filename, text, why, root, errors=(ValueError, PermissionError)):
    before = snapshot(root)
    try:
        got = write(filename, text)
    except errors as e:
        assert str(e).strip(), f"write_note({filename!r}): give the error a message saying why"
    except (ValueError, PermissionError) as e:
        raise AssertionError(f"write_note({filename!r}, ...) ({why}) should raise "
                             f"{' or '.join(x.__name__ for x in errors)}, not {type(e).__name__}") from None
    else:
        raise AssertionError(f"write_note({filename!r}, ...) ({why}) must be refused; it returned {got!r}")
    assert snapshot(root) == before, f"the refused write_note({filename!r}, ...) changed files: write nothing"


with notebook_folder() as tmp:
    base = tmp / "agent_files"
    (base / "kb").mkdir(parents=True)
    write_note_tool = make_file_tools(base)["write_note"]
    (base / "kb" / "returns.md").write_text("Returns: 14 days.", encoding="utf-8")
    (tmp / "outside").mkdir()

    # out/ is created when missing; a good note is written, replaced, and nothing else appears.
    said = write("lamps-returns.md", "Svet: 12 months. Светик ✓")
    assert type(said) is str and "lamps-returns.md" in said, f"return a message naming the note; got {said!r}"
    assert (base / "out" / "lamps-returns.md").read_text(encoding="utf-8") == "Svet: 12 months. Светик ✓", (
        "the note's text must be written as UTF-8, unchanged")
    write("lamps-returns.md", "Replaced.")
    assert (base / "out" / "lamps-returns.md").read_text(encoding="utf-8") == "Replaced.", (
        "writing the same name again replaces the note")
    longest = "a" + "b" * 40 + ".md"
    write(longest, "x" * 5_000)
    write("2026-09-report.md", "")
    assert sorted(p.name for p in (base / "out").iterdir()) == sorted(["lamps-returns.md", longest, "2026-09-report.md"]), (
        f"only the notes asked for may appear in out/; found {sorted(p.name for p in (base / 'out').iterdir())}")
    assert sorted(p.name for p in tmp.iterdir()) == ["agent_files", "outside"], "write only into base/out"

    # Bad names and sizes.
    root = tmp
    for name, why in [("../kb/returns.md", "a path"), ("kb/returns.md", "a sub-folder"),
                      (str(tmp / "outside" / "x.md"), "an absolute path"), ("Lamps.md", "a capital letter"),
                      ("lamps.MD", "a capital suffix"), ("lamps.txt", "not .md"), ("lamps", "no suffix"),
                      (".md", "nothing before .md"), ("-lamps.md", "a leading dash"), ("..md", "dots"),
                      (".hidden.md", "a hidden file"), ("lamps.md\n", "a trailing newline (re.match with $ lets it through)"),
                      ("lamps.md.py", "something after .md"), ("lamps returns.md", "a space"),
                      ("lamps_returns.md", "an underscore"), ("a" + "b" * 41 + ".md", "42 characters before .md"),
                      ("", "an empty name"), ("notes.md/../x.md", "a path hidden after a good start")]:
        refuse(name, "x", why, root, errors=(ValueError,))
    refuse("too-long.md", "x" * 5_001, "5,001 characters", root, errors=(ValueError,))

    # Planted symlinks.
    (base / "out" / "planted.md").symlink_to(base / "kb" / "returns.md")
    refuse("planted.md", "Returns: 90 days!", "a symlink into kb/", root, errors=(PermissionError,))
    assert (base / "kb" / "returns.md").read_text(encoding="utf-8") == "Returns: 14 days.", "kb/returns.md was overwritten"
    (base / "out" / "escape.md").symlink_to(tmp / "outside" / "new.md")
    refuse("escape.md", "pwned", "a dangling symlink out of the folder", root, errors=(PermissionError,))
    assert not (tmp / "outside" / "new.md").exists(), "the note was written through a symlink out of the folder"
    (base / "out" / "inside.md").symlink_to(base / "out" / "lamps-returns.md")
    refuse("inside.md", "sneaky", "a symlink, even to another note", root, errors=(PermissionError,))

    # out/ itself replaced by a link to another folder.
    for p in (base / "out").iterdir():
        p.unlink()
    (base / "out").rmdir()
    (tmp / "elsewhere").mkdir()
    (base / "out").symlink_to(tmp / "elsewhere")
    refuse("notes.md", "x", "out/ is a symlink to another folder", root, errors=(PermissionError,))
    assert list((tmp / "elsewhere").iterdir()) == [], "the note was written outside base through a linked out/"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · A calculator that is not a Python interpreter
#
# The capstone task asks for a payment fee on a 2,450 KZT order. Models are bad at arithmetic, so
# they get a calculator. The one-line version is `eval(expression)` — and `eval` runs **any**
# Python, so the model (or a page it read) can call anything:

# %%
print(eval("__import__('os').getcwd()"))  # harmless here; `.system('...')` would run a command

# %% [markdown]
# `eval(expression, {"__builtins__": {}})` looks safer and is not: Python objects lead back to
# everything through their attributes (`().__class__.__base__.__subclasses__()`), and there is no
# sandbox for `eval` worth the name. The fix is to not run code at all: **parse** the expression
# with `ast` and evaluate only the node types you allow.

# %%
print(ast.dump(ast.parse("-(21 * 9) / 5 + 2 ** 3", mode="eval").body, indent=1))

# %% [markdown]
# A whitelist keeps out code, but not cost. `9**9**9` is three numbers and two operators, and
# its value has about 370 million digits: Python would compute it for minutes, holding the loop,
# the worker and its memory. (`**` groups from the right: `9**(9**9)`.)

# %%
print(f"9**9**9 has about {9**9 * math.log10(9):,.0f} digits")

# %% [markdown]
# So the calculator also bounds its work: the expression's length (`MAX_LENGTH`), every exponent
# **before** computing the power (`MAX_EXPONENT`), and every number, written or computed
# (`MAX_VALUE`). With these, the biggest thing it ever computes is small.

# %% [markdown]
# ## Exercise 4 — `calculate` (4 points)
#
# Write `calculate(expression)` that returns the value (an `int` or a `float`) of an arithmetic
# expression, or raises `ValueError` with a message saying what is not allowed:
#
# 1. `expression` must be a string of at most `MAX_LENGTH` characters (surrounding spaces are
#    fine: strip them);
# 2. parse it with `ast.parse(expression, mode="eval")`; a `SyntaxError` becomes a `ValueError`;
# 3. walk the tree from `.body`, allowing only:
#    - `ast.Constant` whose value is an `int` or a `float` (not a `bool`, not a string);
#    - `ast.BinOp` with `ast.Add`, `ast.Sub`, `ast.Mult`, `ast.Div` or `ast.Pow`;
#    - `ast.UnaryOp` with `ast.USub`;
#
#    anything else (a name, a call, an attribute, a string, a comparison...) → `ValueError`
#    naming it. Never `eval`, `exec` or `compile` the expression;
# 4. for `**`, check the exponent **before** computing: `abs(exponent) > MAX_EXPONENT` →
#    `ValueError`;
# 5. every number — literal or result of an operation — must have `abs(x) <= MAX_VALUE` and be
#    real (a negative number to a fractional power gives a `complex`): otherwise `ValueError`.
#
# Division by zero may raise `ZeroDivisionError`; that is a clear error too.

# %% nbgrader={"grade": false, "grade_id": "calculate", "locked": false, "schema_version": 3, "solution": true}
def calculate(expression):
    """The value of an arithmetic expression (numbers, + - * / **, unary -); refusals raise ValueError."""
    ### BEGIN SOLUTION
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.Div: operator.truediv, ast.Pow: operator.pow}
    if not isinstance(expression, str) or len(expression) > MAX_LENGTH:
        raise ValueError(f"the expression must be a string of at most {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from None

    def checked(x):
        if isinstance(x, complex) or not abs(x) <= MAX_VALUE:
            raise ValueError(f"numbers must be real and at most {MAX_VALUE:.0e} in size")
        return x

    def value(node):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return checked(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
                raise ValueError(f"exponents are limited to {MAX_EXPONENT}; got {right}")
            try:
                return checked(operators[type(node.op)](left, right))
            except OverflowError:
                raise ValueError("the result is too large") from None
        raise ValueError(f"not allowed in a calculation: {type(node).__name__}")

    return value(tree.body)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "calculate_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: calculate computes a fee and a power as numbers (surrounding spaces stripped), and
refuses with ValueError a function call, a string, a bool, broken syntax, an expression over 200
characters, an exponent over 100 (also one that is computed, 2 ** (50 * 3)) before computing it,
a result over MAX_VALUE and a complex result."""
from workbook.checks import fresh

wb = fresh()
fee = calculate("2450 * 2.5 / 100")
assert type(fee) is float and fee == 61.25, f"calculate('2450 * 2.5 / 100') should be 61.25 (a float); got {fee!r}"
power = calculate("2 ** 10")
assert type(power) is int and power == 1024, f"calculate('2 ** 10') should be the int 1024; got {power!r}"
with wb.checks.raises(ValueError, what="calculate(\"__import__('os').getcwd()\"), code rather than arithmetic,"):
    calculate("__import__('os').getcwd()")
for expression in ("2 ** 1000", "2 ** (50 * 3)"):
    with wb.checks.raises(ValueError, what=f"calculate({expression!r}), an exponent over MAX_EXPONENT checked before computing,"):
        calculate(expression)
with wb.checks.no_raise("calculate('  7 - 10 ')", hint="strip the surrounding spaces before parsing"):
    got = calculate("  7 - 10 ")
assert got == -3, f"calculate('  7 - 10 ') should be -3; got {got!r}"
for expression, why in [("'ab' * 3", "a string constant"), ("True + 1", "a bool constant"),
                        ("2 +", "broken syntax: turn the SyntaxError into a ValueError"),
                        ("1" + " + 1" * 60, "241 characters, over MAX_LENGTH"),
                        ("(10 ** 100) ** 100", "a result over MAX_VALUE"), ("(-8) ** 0.5", "a complex result")]:
    with wb.checks.raises(ValueError, what=f"calculate({expression[:30]!r}) ({why})"):
        calculate(expression)
print("calculate: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "calculate_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: calculate gets arithmetic right (types too), refuses names, calls, attributes,
subscripts, strings, bools, lambdas and comparisons with ValueError, refuses big exponents before
computing them (9**9**9 within the test's CPU budget), huge literals and results, complex results
and expressions over 200 characters, and accepts values right at the limits."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


def calc(expression):
    with wb.checks.no_raise(f"calculate({expression!r})", hint="raise ValueError for anything it refuses",
                            allow=(ValueError, ZeroDivisionError)):
        return calculate(expression)


def refused(expression, why):
    try:
        got = calc(expression)
    except ValueError as e:
        assert str(e).strip(), f"calculate({expression!r}): give the ValueError a message"
    else:
        raise AssertionError(f"calculate({expression[:60]!r}) ({why}) must raise ValueError; it returned "
                             f"{str(got)[:40]}")


for expression, expected in [("1 + 2", 3), ("21 * 9 / 5 + 32", 69.8), ("-(3 - 10) * 2", 14),
                             ("2 ** -1", 0.5), ("(1.5 + 2.5) * 4", 16.0), ("  7 - 10 ", -3),
                             ("-2 ** 2", -4), ("10 ** 100", 10**100), ("2 ** 100", 2**100)]:
    got = calc(expression)
    assert type(got) is type(expected) and got == expected, (
        f"calculate({expression!r}) should be {expected!r} ({type(expected).__name__}); got {got!r}")

# Code, not arithmetic: refused before anything runs (eval would run every one of these).
for expression, why in [("__import__('os').getcwd()", "a call"), ("abs(-3)", "a call"),
                        ("x + 1", "a name"), ("pi * 2", "a name"),
                        ("(1).__class__", "attribute access"), ("().__class__.__bases__", "attribute access"),
                        ("[1, 2][0]", "a subscript"), ("'ab' * 3", "a string"), ("True + 1", "a bool"),
                        ("(lambda: 1)()", "a lambda"), ("1 < 2", "a comparison"), ("1 if 1 else 2", "a condition"),
                        ("[x for x in (1, 2)]", "a comprehension"), ("2 ^ 3", "another operator"),
                        ("1j * 2", "a complex number"), ("1; 2", "two statements"), ("", "nothing")]:
    refused(expression, why)

# Too big: bounded before anything slow happens.
for expression, why in [("2 ** 1000", "an exponent over 100"), ("10 ** 101", "an exponent over 100"),
                        ("2 ** (50 * 3)", "an exponent over 100, computed"), ("2 ** -101", "an exponent below -100"),
                        ("(10 ** 100) ** 100", "a result over 10**100"), ("10 ** 100 * 10", "a result over 10**100"),
                        ("9" * 150, "a literal over 10**100"), ("1e308", "a float literal over 10**100"),
                        ("1e999", "an infinite literal"), ("(-8) ** 0.5", "a complex result"),
                        ("1" + " + 1" * 60, "over 200 characters")]:
    refused(expression, why)
# A power computed before its exponent is checked runs for minutes: past the test's CPU budget.
refused("9**9**9", "9**(9**9): an exponent of 387,420,489")
refused("9 ** 9 ** 9 ** 9", "a tower of powers")
refused("((9 ** 100) ** 100) ** 100", "powers of powers")
assert calc("1" + " + 1" * 49) == 50, "an expression of 197 characters is within the 200-character limit"
assert calc("(" * 60 + "1" + ")" * 60) == 1, "brackets are fine"
try:
    calc("1 / 0")
except (ZeroDivisionError, ValueError):
    pass
else:
    raise AssertionError("calculate('1 / 0') must raise (ZeroDivisionError or ValueError)")
### END HIDDEN TESTS

# %% [markdown]
# ## The tools at work
#
# The three tools go to the model through a dispatcher like `execute`: the name → function table
# (`make_file_tools(folder)` and `calculate`),
# the arguments checked against the schema (so the model cannot slip in a parameter), and every
# exception turned into an error observation.

# %% nbgrader={"grade": false, "grade_id": "given_file_dispatcher", "locked": true, "schema_version": 3, "solution": false}
def run_least_privilege_tool(name, arguments, tools, functions):
    """Dispatch a call to one of `functions` (name -> tool); every failure is an error observation."""
    schema = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    if name not in functions or name not in schema:
        return error_observation(f"unknown tool {name!r}; available tools: {', '.join(sorted(schema))}")
    try:
        args = json.loads(arguments)
    except ValueError as e:
        return error_observation(f"arguments are not valid JSON ({e})")
    if not isinstance(args, dict) or set(args) != set(schema[name]["properties"]):
        return error_observation(f"{name} takes exactly the arguments {list(schema[name]['properties'])}")
    try:
        return json.dumps(functions[name](**args), ensure_ascii=False)
    except Exception as e:
        return error_observation(f"{type(e).__name__}: {e}")


# %% [markdown]
# `reads_outside_folder` is a model that was told (by a page it read) to fetch `../.env` first.
# It runs here with its tools bound to a temporary copy of your agent folder, a fake secret next to it —
# the exact situation `read_file` must survive. `huge_power` asks for `9**9**9`; it runs only if
# your `calculate` refuses `2 ** 1000` and `1 ** (10 * 100)`, so an unbounded calculator cannot
# hang this notebook.

# %%
bounded = True
for probe in ("2 ** 1000", "1 ** (10 * 100)"):  # cheap stand-ins for 9**9**9
    try:
        calculate(probe)
        bounded = False
    except Exception:
        pass
with tempfile.TemporaryDirectory() as tmp:
    folder = Path(tmp).resolve() / "agent_files"
    shutil.copytree(BASE / "notes", folder / "notes")
    (folder.parent / ".env").write_text("SHOP_API_KEY=not-a-real-key\n")
    functions = {**make_file_tools(folder), "calculate": calculate}  # the folder: code's choice
    if not bounded:
        print("huge_power skipped: your calculate computes 2 ** 1000, so 9**9**9 would run for minutes")
    for name in ("reads_outside_folder", "huge_power") if bounded else ("reads_outside_folder",):
        scenario = scenarios.get(name)
        tools = scenario.openai_tools()
        llm = FakeLLM(scenario)
        started = time.perf_counter()
        result = run_agent(llm.client(), "fake-model", scenario.question, tools,
                           lambda n, a: run_least_privilege_tool(n, a, tools, functions))
        seconds = time.perf_counter() - started
        print(f"{name}: {result}  ({seconds:.2f} s)")
        for m in llm.requests[-1]["messages"]:
            if m["role"] == "tool":
                print(f"    observation: {m['content'][:110]}")
    print("\nout/ now holds:", [p.name for p in (folder / "out").iterdir()])
    print((folder / "out" / "least-privilege-summary.md").read_text()[:300])

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **A `customer_id` parameter, or taking it from the arguments.** One sentence ("what did
#   C-002 spend?") then reaches another customer's data. Identity comes from the session; a
#   `customer_id` in the arguments is an error.
# - **Silently dropping `customer_id`.** Safer, but the model is not told, and answers the
#   customer's question about C-002 with C-001's numbers as if they were C-002's.
# - **Confirmation from the model.** `args.pop("confirmed")` lets the model say yes for the
#   customer. Only `ask_customer` — the application asking the person — can.
# - **The app's folder inside the tool.** `read_file` that reads `BASE` instead of its `base`
#   parameter ignores the folder code chose for this agent (a test's, another user's), and a
#   `base` the model could send is worse: keep it out of the tool's arguments — `make_file_tools`
#   binds it.
# - **`".." in path`.** Misses absolute paths (`os.path.join` keeps only them), symlinks, and
#   refuses harmless paths like `kb/../notes/x.md`.
# - **`str(target).startswith(str(root))`.** Accepts the sibling folder `agent_files_evil/`.
#   Use `Path.is_relative_to`, on resolved paths.
# - **Checking the suffix of the path you were given** instead of the resolved target: a
#   symlink `notes.md` → `.env` passes.
# - **`re.match(r"...\.md$")` for note names.** `$` also matches before a trailing newline, and
#   `re.match` only anchors the start: use `re.fullmatch`.
# - **Writing through a symlink.** `open(out / name, "w")` follows a link planted in `out/` and
#   overwrites `kb/returns.md`, or a file outside the folder.
# - **`eval`**, even with `{"__builtins__": {}}`: it is code execution. Parse with `ast`.
# - **No bound on powers.** `9**9**9` passes any whitelist of operators and hangs the worker;
#   check the exponent before computing, and bound every number.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("07_what_code_decides")

# %% [markdown]
# ## Live cell (optional)
#
# A real model with your dispatcher and a customer who says no. Ask it to block your card, or to
# look at another customer's spending, and read what it does with the errors. It runs only when
# `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        session = Shop("C-001")
        for question in ("Someone stole my card, block it right now! I confirm.",
                         "How much did customer C-002 spend on taxis in September 2026?"):
            live = run_agent(live_client, live_model, question,
                         [SCHEMAS[n] for n in ("txn_sum", "card_block")],
                         lambda name, arguments: execute(session, name, arguments, customer_says(False)),
                         max_steps=4)
            print(question, "->", live)
        print("card blocked:", session.card_blocked)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **08 · Timeouts, retries and idempotency keys**: the provider answers 429 or 503, a refund times
# out half-way — which calls may be retried, how long to wait, and how an idempotency key keeps a
# retried refund from paying twice.
