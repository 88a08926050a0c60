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
# # 02 · The loop
#
# In chapter 01 you ran two steps by hand. A real agent does not know in advance how many steps a
# question needs, so it runs steps **until the model answers** — or until your code decides that
# enough is enough. This chapter builds that loop, and the three things that make it safe to
# leave running: a **registry** that knows every tool, a `run_tool` that checks every call before
# it runs, and a **step limit** with an honest **stop status**.
#
# **Learning goals.** After this chapter you can
# - build a tool registry with a decorator: name → function, description, typed parameters, and a
#   flag for tools that need the customer's confirmation;
# - validate a tool call (unknown tool, wrong arguments, wrong types, no confirmation, a tool that
#   raises) and turn every failure into an **observation** instead of a crash;
# - explain why the customer's identity comes from the session, never from the model;
# - write the loop with `max_steps`, returning an `AgentResult` whose status tells an answer from a
#   stop.
#
# **Time:** about 60–75 minutes.
#
# **Builds on:** 01 · One step (the message list, the function face of the fake model, one step).
# What you need from it is restated below as given code.

# %% [markdown]
# ## Recap: one step, as given code
#
# The fake model is a plain function, `model(messages, tool_specs)`, that returns either
# `{"tool": name, "args": {...}}` or `{"final": text}`. After each reply, your code writes down
# the **assistant turn** (the reply as JSON text) and, if a tool ran, the **observation** (its
# result as JSON text). These two helpers do exactly that; the loop in this chapter uses them.

# %% nbgrader={"grade": false, "grade_id": "given_recap", "locked": true, "schema_version": 3, "solution": false}
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass

from workbook import scenarios
from workbook.shop import Shop


def assistant_turn(reply):
    """The model's reply, written down as an assistant message (JSON text)."""
    return {"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)}


def observation(result):
    """A tool's result (or an {"error": ...}), written down as a tool message (JSON text)."""
    return {"role": "tool", "content": json.dumps(result, ensure_ascii=False, default=str)}


# %% [markdown]
# A quick reminder of how the fake model behaves. Ask the taxi question with an empty message
# history and it asks for a tool; give it the observation and it answers.

# %%
taxi = scenarios.get("taxi_spending", lang="notebook")  # in the language this notebook is in
model = taxi.as_function()
messages = [{"role": "user", "content": taxi.question}]
reply = model(messages, [])
print("first reply: ", reply)

messages += [assistant_turn(reply), observation(Shop().txn_sum(**reply["args"]))]
print("second reply:", model(messages, []))

# %% [markdown]
# ## Part 1 · A registry of tools
#
# In chapter 01 the tools were a plain dict, name → function. That is enough to *call* a tool,
# but the loop needs to know more about each one:
#
# | what | who needs it |
# |---|---|
# | the **name** | the model asks for a tool by name; the loop looks it up |
# | the **function** | the loop calls it |
# | a **description** | the model reads it to decide when to use the tool (it sees nothing else) |
# | the **parameters and their types** | the loop checks a call against them before running anything |
# | a **needs confirmation** flag | tools that change something (block a card, refund money) must not run on the model's word alone |
#
# Writing that dict by hand for every tool means the description and the parameter list drift
# away from the real function — the most common bug in first agents. A **decorator** reads all of
# it from the function itself: its name, its docstring, its type annotations.
#
# ### Decorators in two minutes
#
# A decorator is a function that receives a function and returns one. `@announce` above a `def`
# means "define the function, then replace it with `announce(function)`". A decorator that takes
# options, like `@tool(confirm=True)`, is a function that *returns* a decorator.

# %%
def announce(label):
    """A decorator factory: announce(label) returns the decorator."""
    def decorate(fn):
        print(f"{label}: defined {fn.__name__}")
        return fn  # hand back the same function, unchanged
    return decorate


@announce("registry")
def greet(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


greet("Aigerim")  # still the same function

# %% [markdown]
# ### Reading a function
#
# Three functions of the standard library tell you everything the registry needs:
#
# - `inspect.getdoc(fn)`: the docstring, with indentation cleaned up (or `None` when there is
#   none);
# - `inspect.signature(fn).parameters`: the parameter names, in order;
# - `typing.get_type_hints(fn)`: name → type for every annotated parameter, **plus** the return
#   type under the key `"return"`. It also turns annotations written as strings back into types,
#   which `fn.__annotations__` does not.

# %%
def convert(amount: int, currency: str, rounding=2) -> float:
    """Convert an amount in KZT to another currency.

    Uses today's rate.
    """


print(repr(inspect.getdoc(convert)))
print(list(inspect.signature(convert).parameters))
print(typing.get_type_hints(convert))

# %% [markdown]
# Notice two traps in that output: `"return"` is a type hint but not a parameter, and `rounding`
# is a parameter with no type at all.
#
# Each registered tool becomes a `ToolSpec`. The global `TOOLS` dict, name → `ToolSpec`, is the
# registry the rest of this notebook uses.

# %% nbgrader={"grade": false, "grade_id": "given_toolspec", "locked": true, "schema_version": 3, "solution": false}
@dataclass
class ToolSpec:
    """Everything the loop knows about one tool."""

    name: str  # what the model calls it
    fn: Callable  # the Python function that does the work
    description: str  # what the model reads to decide when to use it
    params: dict  # parameter name -> type: exactly the arguments a call must have
    confirm: bool = False  # True: changes state, runs only with the customer's confirmation


TOOLS: dict[str, ToolSpec] = {}

# %% [markdown]
# ## Exercise 1 — the `@tool` decorator (3 points)
#
# Write `tool(confirm=False, registry=None)`. It returns a decorator; the decorator, given a
# function `fn`:
#
# 1. builds a `ToolSpec` with
#    - `name`: the function's name (`fn.__name__`);
#    - `fn`: the function itself;
#    - `description`: its docstring, cleaned by `inspect.getdoc`;
#    - `params`: a dict, parameter name → type, with **every** parameter in signature order and
#      nothing else (no `"return"`);
#    - `confirm`: the flag given to `tool`;
# 2. stores it in `registry` under the name;
# 3. returns `fn` **unchanged**, so the function can still be called directly.
#
# A tool the model cannot understand is a bug, and it is better found when the tool is defined
# than in the middle of a run. So the decorator raises `TypeError` (and registers nothing) when
# the function has no docstring, or when a parameter has no type annotation; the message names
# the function and the parameter.
#
# The first line, given, makes `registry` default to `TOOLS`: `@tool()` registers into the
# notebook's registry, `@tool(registry=my_dict)` into another one (the tests use their own).

# %% nbgrader={"grade": false, "grade_id": "tool", "locked": false, "schema_version": 3, "solution": true}
def tool(confirm=False, registry=None):
    """`@tool()` or `@tool(confirm=True)`: register a documented, typed function as a tool."""
    registry = TOOLS if registry is None else registry

    def register(fn):
        ### BEGIN SOLUTION
        description = inspect.getdoc(fn)
        if not description:
            raise TypeError(f"tool {fn.__name__!r} needs a docstring: it is what the model reads")
        hints = typing.get_type_hints(fn)
        params = {}
        for p in inspect.signature(fn).parameters:
            if p not in hints:
                raise TypeError(f"parameter {p!r} of tool {fn.__name__!r} needs a type annotation")
            params[p] = hints[p]
        registry[fn.__name__] = ToolSpec(fn.__name__, fn, description, params, confirm)
        return fn
        ### END SOLUTION

    return register


# %% nbgrader={"grade": true, "grade_id": "tool_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: @tool registers a typed, documented function under its own name, in the
registry it is given, with the cleaned docstring and the parameters in signature order, and
hands the function back unchanged; it stores confirm=True; it refuses a parameter without a type
with a TypeError naming the function and the parameter, and a function without a docstring."""
from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
registry = {}


@tool(registry=registry)
def add_tip(amount: int, percent: float) -> float:
    """Add a tip to an amount."""
    return amount + amount * percent / 100


registry = after(registry)
assert "add_tip" in registry, (
    f"@tool(registry=...) must store the tool under its function's name; the registry has {sorted(registry)}")
spec = registry["add_tip"]
assert spec.name == "add_tip", f"the ToolSpec's name must be 'add_tip', got {spec.name!r}"
assert callable(add_tip) and add_tip(200, 10) == 220.0, (
    "the decorator must return the function unchanged, so it can still be called directly")
assert spec.fn is add_tip, "the ToolSpec's fn must be the decorated function itself"
assert spec.description == "Add a tip to an amount.", (
    f"the description must be the docstring; got {spec.description!r}")
assert "return" not in spec.params, (
    "params must not contain 'return': that is the return type, not a parameter "
    "(typing.get_type_hints and fn.__annotations__ both include it)")
assert type(spec.params) is dict and spec.params == {"amount": int, "percent": float}, (
    f"params must be a dict, parameter name -> type; got {spec.params!r}")
assert spec.confirm is False, f"without confirm=True the flag must be False; got {spec.confirm!r}"


@tool(confirm=True, registry=registry)
def block_card(reason: str) -> dict:
    """Block the customer's card."""
    return {"status": "blocked"}


registry = after(registry)
assert registry["block_card"].confirm is True, "@tool(confirm=True) must store confirm=True in the ToolSpec"


@tool(registry=registry)
def spending(month: str, category: str) -> dict:
    """Spending for one month.

    The month looks like 2026-09.
    """
    return {}


registry = after(registry)
spec = registry["spending"]
assert spec.description == "Spending for one month.\n\nThe month looks like 2026-09.", (
    "the description must be the docstring cleaned by inspect.getdoc (no indentation, no blank edges); "
    f"got {spec.description!r}")
assert list(spec.params) == ["month", "category"], (
    f"params must list the parameters in signature order (month, then category); got {list(spec.params)}")
assert spending("2026-09", "taxi") == {}, "the decorator must return the function unchanged"


def undocumented(order_id: str) -> dict:
    return {}


with wb.checks.raises(TypeError, match="undocumented",
                      what="@tool on undocumented(order_id: str), which has no docstring,"):
    tool(registry=registry)(undocumented)
registry = after(registry)
assert "undocumented" not in registry, "a refused function must not be registered"


def half_typed(category: str, month) -> dict:
    """Spending for a category and month."""


with wb.checks.raises(TypeError, match=r"(?s)half_typed.*month|month.*half_typed",
                      what="@tool on half_typed(category: str, month), whose 'month' has no type,"):
    tool(registry=registry)(half_typed)
registry = after(registry)
assert "half_typed" not in registry, "a refused function must not be registered"
print("tool: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "tool_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: @tool records the confirmation flag, keeps only real parameters (no 'return') in
signature order, uses the cleaned docstring, handles a tool without parameters, does not call the
function while registering it, and refuses undocumented or untyped functions with TypeError."""
### BEGIN HIDDEN TESTS
import inspect

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()

registry = {}
ran = []


@tool(confirm=True, registry=registry)
def refund(order_id: str, amount: int) -> dict:
    """Refund money for one order.

    Changes state: needs the customer's confirmation.
    """
    ran.append("refund")
    return {"order_id": order_id, "refunded": amount}


registry = after(registry)
assert sorted(registry) == ["refund"], f"expected exactly ['refund'] in the registry, got {sorted(registry)}"
spec = registry["refund"]
assert ran == [], "registering a tool must not call it"
assert spec.fn is refund and refund("A-1001", 5) == {"order_id": "A-1001", "refunded": 5}, (
    "the decorator must return the function unchanged")
assert spec.confirm is True, f"@tool(confirm=True) must store confirm=True; got {spec.confirm!r}"
assert "return" not in spec.params, (
    "params must hold parameters only: typing.get_type_hints also returns the return type under 'return'")
assert type(spec.params) is dict and list(spec.params.items()) == [("order_id", str), ("amount", int)], (
    f"params must be {{'order_id': str, 'amount': int}} in signature order; got {spec.params!r}")
assert spec.description == inspect.getdoc(refund), (
    f"the description must be inspect.getdoc(fn), the cleaned docstring; got {spec.description!r}")


@tool(registry=registry)
def card_block() -> dict:
    """Block the card."""
    return {"status": "blocked"}


registry = after(registry)
spec = registry["card_block"]
assert spec.params == {} and type(spec.params) is dict, (
    f"a tool without parameters has params == {{}}; got {spec.params!r}")
assert spec.confirm is False, "the confirm flag defaults to False"
assert registry["refund"].confirm is True, "registering another tool must not change the first one's flag"


def untyped(order_id):
    """Look up an order."""


def half_typed(category: str, month) -> dict:
    """Spending for a category and month."""


def undocumented(order_id: str) -> dict:
    return {}


for fn, why in [(untyped, "its parameter 'order_id' has no type"),
                (half_typed, "its parameter 'month' has no type"),
                (undocumented, "it has no docstring")]:
    registry = {}
    with wb.checks.raises(TypeError, match=fn.__name__, what=f"@tool on {fn.__name__} ({why})"):
        tool(registry=registry)(fn)
    registry = after(registry)
    assert registry == {}, f"a refused function must not be registered; the registry has {sorted(registry)}"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · Identity comes from the session
#
# Northwind's tools work for **the logged-in customer**. Who that is was settled at login, long
# before the model saw anything, so it lives in the **session** — here a `Shop(customer_id=...)`
# object — and no tool takes a `customer_id` argument.
#
# This matters because the model's arguments come from text, and anyone can write text: a
# customer asking "what did C-002 spend?", a page the model read, a confused small model. If a
# tool accepted `customer_id`, one sentence could reach another customer's data. With the
# customer taken from the session, there is simply no argument to abuse. (Chapter 07 takes this
# much further.)
#
# Here are the shop's tools, registered with your decorator (so this cell needs Exercise 1). Each
# is a thin wrapper that passes the call on to the session.

# %%
SESSION = Shop(customer_id="C-001")  # set by the login; the model never sees it


@tool()
def txn_sum(category: str, month: str) -> dict:
    """Total spending of the logged-in customer for one category (e.g. taxi, food) and month (YYYY-MM)."""
    return SESSION.txn_sum(category, month)


@tool()
def get_order(order_id: str) -> dict:
    """Status, item and total of one of the logged-in customer's orders, e.g. A-1001."""
    return SESSION.get_order(order_id)


@tool()
def search_kb(query: str) -> dict:
    """Search the shop's help pages."""
    return {"hits": []}  # the help pages arrive in chapter 11


@tool(confirm=True)
def card_block() -> dict:
    """Block the logged-in customer's card. Changes state: needs the customer's confirmation."""
    return SESSION.card_block()


sorted(TOOLS)

# %% [markdown]
# What the model is told about the tools is only what `tool_specs` below gives it: names,
# descriptions and parameter types. It never sees the functions, the session, or the confirmation
# flag. (Chapter 01's `tool_specs` took plain functions; this one reads the registry.)

# %% nbgrader={"grade": false, "grade_id": "given_tool_specs", "locked": true, "schema_version": 3, "solution": false}
def tool_specs(registry):
    """What the model is told about each tool: name, description and parameter types."""
    return [{"name": s.name, "description": s.description,
             "parameters": {p: getattr(t, "__name__", str(t)) for p, t in s.params.items()}}
            for s in registry.values()]


# %%
for spec in tool_specs(TOOLS):
    print(spec)

# %% [markdown]
# ## Part 3 · `run_tool`: check every call, never crash
#
# The model's tool call is a *request*, written by something that makes mistakes. Before your code
# runs anything, it checks the request — and when something is wrong, it does not raise. It
# returns an **error observation**, `{"error": "..."}`, which goes back to the model like any
# other result. A good model reads the error and fixes its call; a crash would end the run and
# lose everything in the message list.
#
# The checks, in order:
#
# | check | example of a bad call | why |
# |---|---|---|
# | the tool exists | `lookup_order(...)` | models invent plausible names; listing the real ones lets them recover |
# | the arguments are exactly the parameters | `txn_sum(category=..., month=..., customer_id="C-002")` | an extra argument is a bug or an attack; a missing one would crash the call |
# | each argument has its type | `txn_sum(category="taxi", month=202609)` | the function would misbehave quietly or raise somewhere deep |
# | confirmation given, if the tool needs it | `card_block()` | state-changing tools need the customer's yes, not the model's |
# | the tool itself does not raise | `txn_sum(month="September 2026")` → `ValueError` | any exception becomes an observation |
#
# The error text is written **for the model**: say what was wrong and how to do it right. The fake
# scenarios, like real models, recover from a specific error and give up on a vague one.

# %% [markdown]
# ## Exercise 2 — `run_tool` (4 points)
#
# Write `run_tool(name, args, confirmed=False, registry=None)`. It runs the call when it is valid
# and returns whatever the tool returned, unchanged. Otherwise it returns a dict
# `{"error": "<text>"}` and does **not** run the tool:
#
# 1. `name` not in the registry → the text lists **every** available tool name;
# 2. `args` not a dict, or its keys not **exactly** the tool's parameters (none missing, none
#    extra) → the text names the expected parameters and the wrong or missing ones;
# 3. an argument whose value is not an instance of its parameter's type → the text names the
#    argument and the expected type;
# 4. the tool needs confirmation and `confirmed` is not `True` → the text says that the customer's
#    confirmation is needed (the word `confirm` or `confirmation` in it) and to ask the customer;
# 5. the tool raises any exception → the text holds the exception's type and message, e.g.
#    `"ValueError: 'month' must look like YYYY-MM, e.g. 2026-09; got 'September 2026'"`.
#
# `run_tool` itself never raises. Note that `confirmed` is a parameter of `run_tool`, set by
# *your* code when the customer has said yes; it is not one of the model's arguments.

# %% nbgrader={"grade": false, "grade_id": "run_tool", "locked": false, "schema_version": 3, "solution": true}
def run_tool(name, args, confirmed=False, registry=None):
    """Run one tool call: the tool's result, or {"error": text} when the call is invalid or fails."""
    registry = TOOLS if registry is None else registry
    ### BEGIN SOLUTION
    spec = registry.get(name)
    if spec is None:
        return {"error": f"unknown tool {name!r}; available tools: {', '.join(sorted(registry))}"}
    if not isinstance(args, dict):
        return {"error": f"arguments of {name} must be an object, got {type(args).__name__}"}
    if set(args) != set(spec.params):
        missing = [p for p in spec.params if p not in args]
        extra = [a for a in args if a not in spec.params]
        wrong = "; ".join(f"{label}: {', '.join(names)}" for label, names
                          in (("missing", missing), ("not allowed", extra)) if names)
        return {"error": f"{name} takes exactly the arguments {list(spec.params)} ({wrong})"}
    for p, expected in spec.params.items():
        if not isinstance(args[p], expected):
            return {"error": f"argument {p!r} of {name} must be {expected.__name__}, "
                             f"got {type(args[p]).__name__}: {args[p]!r}"}
    if spec.confirm and confirmed is not True:
        return {"error": f"{name} changes the customer's account and needs their confirmation: "
                         "ask the customer first"}
    try:
        return spec.fn(**args)
    except Exception as e:  # any failure of the tool is news for the model, not a crash
        return {"error": f"{type(e).__name__}: {e}"}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_tool_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_tool runs a valid call and returns the tool's result; each of the five bad
calls of the table (an unknown tool, an extra customer_id or a missing month or arguments that are
not a dict, a wrong type, no confirmation, a tool that raises) gives an {"error": ...} observation
instead of raising, saying what the text says it says, and the tool does not run."""
from workbook.checks import fresh

from collections.abc import Callable
from dataclasses import dataclass

#@include 02_the_loop ToolSpec


wb = fresh()
shop = wb.shop.Shop("C-001")
registry = {"txn_sum": ToolSpec(name="txn_sum", fn=shop.txn_sum, description="Spending.",
                                params={"category": str, "month": str}),
            "get_order": ToolSpec(name="get_order", fn=shop.get_order, description="An order.",
                                  params={"order_id": str}),
            "card_block": ToolSpec(name="card_block", fn=shop.card_block, description="Block the card.",
                                   params={}, confirm=True)}
result = run_tool("txn_sum", {"category": "taxi", "month": "2026-09"}, registry=registry)
assert type(result) is dict and result == {"category": "taxi", "month": "2026-09", "count": 2,
                                           "total_kzt": 5000}, (
    f"a valid call must return the tool's result unchanged; got {result!r}")
shop.log.clear()


def error_of(name, args, what, runs=False):
    with wb.checks.no_raise(f"run_tool({name!r}, {args!r})", hint="return {'error': ...} instead"):
        result = run_tool(name, args, registry=registry)
    assert type(result) is dict and type(result.get("error")) is str, (
        f"{what} must give an error observation {{'error': '...'}}; got {result!r}")
    assert runs or shop.log == [], f"{what}: the tool must not run; it ran: {shop.log}"
    return result["error"]


err = error_of("lookup_order", {"order_id": "A-1001"}, "an unknown tool")
assert "txn_sum" in err and "get_order" in err, (
    f"the error must list the available tools so the model can recover; got {err!r}")
err = error_of("txn_sum", {"category": "taxi", "month": "2026-09", "customer_id": "C-002"},
               "an extra argument customer_id")
assert "customer_id" in err, f"name the argument that is not allowed (customer_id); got {err!r}"
err = error_of("txn_sum", {"category": "taxi"}, "txn_sum without its month")
assert "month" in err, f"name the missing argument (month); got {err!r}"
error_of("txn_sum", None, "arguments None, not a dict")
err = error_of("txn_sum", {"category": "taxi", "month": 202609}, "month=202609, an int for a str parameter")
assert "month" in err and "str" in err, f"name the argument (month) and the type it needs (str); got {err!r}"
err = error_of("card_block", {}, "card_block without the customer's confirmation")
assert "confirm" in err.lower(), f"say that the customer's confirmation is needed; got {err!r}"
error_of("card_block", {"confirmed": True},
         "card_block with {'confirmed': True} in the model's arguments (only your code confirms)")
err = error_of("txn_sum", {"category": "taxi", "month": "September 2026"}, "txn_sum raising ValueError",
               runs=True)
assert "ValueError" in err and "YYYY-MM" in err, (
    f"put the exception's type and its message (which says YYYY-MM) in the error; got {err!r}")
print("run_tool: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_tool_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_tool refuses extra arguments (customer_id), missing arguments, wrong types,
non-dict arguments and unconfirmed state changes without running the tool; turns every exception
inside a tool into an error observation with its type and message; returns results unchanged;
and never takes confirmation from the model's arguments."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

from collections.abc import Callable
from dataclasses import dataclass

#@include 02_the_loop ToolSpec


wb = fresh()


def registry_for(shop):
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def crash(order_id: str) -> dict:
        """Always fails."""
        return {"total": 1 / 0}

    return {"txn_sum": ToolSpec(name="txn_sum", fn=shop.txn_sum, description="Spending.",
                                params={"category": str, "month": str}),
            "get_order": ToolSpec(name="get_order", fn=shop.get_order, description="An order.",
                                  params={"order_id": str}),
            "card_block": ToolSpec(name="card_block", fn=shop.card_block, description="Block the card.",
                                   params={}, confirm=True),
            "add": ToolSpec(name="add", fn=add, description="Add.", params={"a": int, "b": int}),
            "crash": ToolSpec(name="crash", fn=crash, description="Fails.", params={"order_id": str})}


def call(name, args, **kwargs):
    with wb.checks.no_raise(f"run_tool({name!r}, {args!r})", hint="return {'error': ...} instead"):
        return run_tool(name, args, **kwargs)


def error_of(result, what):
    assert type(result) is dict and "error" in result, (
        f"{what}: run_tool must return an error observation {{'error': '...'}}; got {result!r}")
    assert type(result["error"]) is str and result["error"].strip(), (
        f"{what}: the error must be a non-empty str, got {result['error']!r}")
    return result["error"]


shop = wb.shop.Shop("C-001")
reg = registry_for(shop)

# Results come back unchanged.
assert call("add", {"a": 2, "b": 3}, registry=reg) == 5, "a valid call returns the tool's result as is"
assert type(call("add", {"a": 2, "b": 3}, registry=reg)) is int, "do not wrap or convert the result"
order = call("get_order", {"order_id": "A-1001"}, registry=reg)
assert order == {"order_id": "A-1001", "item": "Svet desk lamp", "total": 2450, "status": "shipped"}, (
    f"a valid call returns the tool's result; got {order!r}")

# Unknown tool: every available name is listed.
err = error_of(call("lookup_order", {"order_id": "A-1001"}, registry=reg), "an unknown tool, lookup_order")
assert all(n in err for n in reg), f"list every available tool ({sorted(reg)}) in the error; got {err!r}"
error_of(call("lookup_order", "not even a dict", registry=reg), "an unknown tool with arguments that are not a dict")

# Arguments must be exactly the parameters: nothing runs otherwise.
shop.log.clear()
err = error_of(call("txn_sum", {"category": "taxi", "month": "2026-09", "customer_id": "C-002"},
                    registry=reg), "txn_sum with an extra argument customer_id (arguments must be exactly the parameters)")
assert "customer_id" in err, f"name the argument that is not allowed (customer_id); got {err!r}"
assert shop.log == [], ("an extra argument must be refused before the tool runs; "
                        f"the tool ran with {shop.log}")
err = error_of(call("txn_sum", {"category": "taxi"}, registry=reg), "txn_sum without its month argument")
assert "month" in err, f"name the missing argument (month); got {err!r}"
assert shop.log == [], f"a call with a missing argument must not run the tool; it ran: {shop.log}"
for bad in ['{"category": "taxi", "month": "2026-09"}', None, ["taxi", "2026-09"]]:
    error_of(call("txn_sum", bad, registry=reg), f"arguments {bad!r}, which are not a dict")
assert shop.log == [], f"arguments that are not a dict must not run the tool; it ran: {shop.log}"

# Types.
err = error_of(call("txn_sum", {"category": "taxi", "month": 202609}, registry=reg), "txn_sum with month=202609, an int where the parameter is a str")
assert "month" in err, f"name the argument with the wrong type (month); got {err!r}"
assert shop.log == [], f"an argument of the wrong type must be refused before the tool runs; it ran: {shop.log}"
error_of(call("add", {"a": 2, "b": "3"}, registry=reg), "add with b='3', a str where the parameter is an int")
error_of(call("add", {"a": 2.5, "b": 3}, registry=reg), "add with a=2.5, a float where the parameter is an int")

# Confirmation comes from the code, never from the model's arguments.
err = error_of(call("card_block", {}, registry=reg), "card_block without the customer's confirmation")
assert "confirm" in err.lower(), f"say that the customer's confirmation is needed; got {err!r}"
assert shop.card_blocked is False, "without confirmation the card must not be blocked"
error_of(call("card_block", {"confirmed": True}, registry=reg), "card_block with {'confirmed': True} in the model's arguments (only your code can confirm)")
assert shop.card_blocked is False, (
    "the model cannot confirm for the customer: {'confirmed': True} in its arguments must not block the card")
assert call("card_block", {}, confirmed=True, registry=reg) == {"status": "blocked"}, (
    "with confirmed=True from the code, a confirmed tool runs and its result comes back")
assert shop.card_blocked is True, "with confirmed=True the card must be blocked"

# Exceptions inside tools become observations with their type and message.
err = error_of(call("txn_sum", {"category": "taxi", "month": "September 2026"}, registry=reg),
               "txn_sum raising ValueError")
assert "ValueError" in err and "YYYY-MM" in err, (
    f"put the exception's type and message in the error, so the model can fix the month; got {err!r}")
err = error_of(call("get_order", {"order_id": "B-2001"}, registry=reg), "get_order raising KeyError")
assert "KeyError" in err and "B-2001" in err, f"put the exception's type and message in the error; got {err!r}"
err = error_of(call("crash", {"order_id": "A-1001"}, registry=reg), "a tool dividing by zero")
assert "ZeroDivisionError" in err, f"any exception becomes an error observation; got {err!r}"
### END HIDDEN TESTS

# %% [markdown]
# Try it on the notebook's own registry: one valid call, then one of each kind of bad call.

# %%
calls = [("txn_sum", {"category": "taxi", "month": "2026-09"}),
         ("lookup_order", {"order_id": "A-1001"}),
         ("txn_sum", {"category": "taxi", "month": "2026-09", "customer_id": "C-002"}),
         ("txn_sum", {"category": "taxi", "month": 202609}),
         ("card_block", {"confirmed": True}),
         ("card_block", {}),
         ("txn_sum", {"category": "taxi", "month": "September 2026"})]
for name, args in calls:
    print(f"{name}({args})\n    -> {run_tool(name, args)}")

# %% [markdown]
# ## Part 4 · The loop, its limit, and an honest result
#
# The loop repeats one step: call the model with the whole conversation; if it answered, stop; if
# it asked for a tool, run the tool through `run_tool` and append the assistant turn and the
# observation.
#
# ```
#  question ─► messages ─► model(messages, tool_specs) ──► {"final": text} ──► AgentResult(text, "done", step)
#                 ▲                    │
#                 │             {"tool": name, "args": {...}}
#                 │                    ▼
#                 └── assistant turn + observation ◄── run_tool(name, args)
#
#  after max_steps model calls without a final answer ──► AgentResult(None, "STOPPED: step limit", max_steps)
# ```
#
# **Why the limit is not optional.** Nothing forces a model to ever answer. It can repeat the
# same call after an error it does not understand, or keep searching with new queries forever.
# Each step costs time and money, and the prompt grows with every step. A loop without a limit is
# a loop that one day does not end.
#
# **Why an honest result.** "The model answered" and "we gave up after 5 steps" are different
# outcomes: the first can be shown to the customer, the second should be logged, counted and
# probably handed to a human. If both come back as a string, the caller cannot tell them apart —
# and a polite "Sorry, I could not finish" looks exactly like an answer. So the loop returns a
# small result object:

# %% nbgrader={"grade": false, "grade_id": "given_agent_result", "locked": true, "schema_version": 3, "solution": false}
@dataclass
class AgentResult:
    """How a run ended."""

    answer: str | None  # the model's final text; None when the run was stopped
    status: str  # "done", or a stop status such as "STOPPED: step limit"
    steps: int  # how many times the model was called


# %% [markdown]
# ## Exercise 3 — `run_agent` (4 points)
#
# Write `run_agent(question, model, max_steps=5, registry=None)`:
#
# - start a conversation holding only the user's `question`;
# - each step calls `model(messages, tool_specs(registry))` once and appends `assistant_turn(reply)`;
# - a reply `{"final": text}` ends the run: return `AgentResult(text, "done", step)`, where `step`
#   is how many times the model has been called;
# - a reply `{"tool": name, "args": {...}}` (`"args"` may be missing: no arguments) goes through
#   `run_tool(name, args, registry=registry)` and its result — a real one or an error — is
#   appended with `observation(result)`; then the next step;
# - after `max_steps` model calls without a final answer, return
#   `AgentResult(None, "STOPPED: step limit", max_steps)`. Never call the model more than
#   `max_steps` times.
#
# Pass the registry on to `run_tool`: the tests run your loop with their own registries. The loop
# never confirms anything on the customer's behalf, so it does not pass `confirmed`.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(question, model, max_steps=5, registry=None):
    """Run the loop until the model answers or max_steps model calls were made."""
    registry = TOOLS if registry is None else registry
    ### BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    specs = tool_specs(registry)
    for step in range(1, max_steps + 1):
        reply = model(messages, specs)
        messages.append(assistant_turn(reply))
        if "final" in reply:
            return AgentResult(reply["final"], "done", step)
        result = run_tool(reply["tool"], reply.get("args", {}), registry=registry)
        messages.append(observation(result))
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers the taxi question in two steps (the first call sees the question
alone and the registry's tools, the second the question, the assistant turn and the observation)
and returns an AgentResult with status "done", the model's answer and the number of model calls;
a call without "args" runs with none; an error observation goes back and the loop goes on; a model
that never answers is stopped after max_steps calls with AgentResult(None, "STOPPED: step limit",
max_steps)."""
import dataclasses

from workbook.checks import fresh

from collections.abc import Callable
from dataclasses import dataclass

#@include 02_the_loop ToolSpec


wb = fresh()
scenario = wb.scenarios.taxi_spending()
shop = wb.shop.Shop("C-001")
registry = {"txn_sum": ToolSpec(name="txn_sum", fn=shop.txn_sum, description="Spending of the customer.",
                                params={"category": str, "month": str})}
model = scenario.as_function()
result = run_agent(scenario.question, model, registry=registry)
assert wb.checks.kind(result) == "AgentResult", (
    f"run_agent must return an AgentResult, got {type(result).__name__}: {result!r}")
assert result.status == "done", f"a final answer gives status 'done'; got {result.status!r}"
assert result.answer == scenario.answer, f"expected the answer {scenario.answer!r}, got {result.answer!r}"
assert result.steps == 2 and model.calls == 2, (
    f"the taxi question takes two model calls; steps={result.steps}, model calls={model.calls}")
assert model.requests[0] == [{"role": "user", "content": scenario.question}], (
    f"start the conversation holding only the user's question; the first call saw {model.requests[0]!r}")
told = sorted(s.get("name") for s in model.tool_specs or [] if isinstance(s, dict))
assert told == ["txn_sum"], f"tell the model the tools of the registry you were given; it was told {told}"
roles = [m.get("role") for m in model.requests[1]]
assert roles == ["user", "assistant", "tool"], (
    f"the second call must see the question, assistant_turn(reply), then observation(result); got roles {roles}")


def no_args_model(messages, specs):
    """Asks for card_status without "args", then answers from its result."""
    return {"tool": "card_status"} if len(messages) == 1 else {"final": "Your card is active."}


status = {"card_status": ToolSpec(name="card_status", fn=lambda: {"status": "active"},
                                  description="The card's status.", params={})}
with wb.checks.no_raise("run_agent with a reply {'tool': 'card_status'} (no 'args')",
                        hint="a tool call without 'args' has no arguments: use {}"):
    result = run_agent("Is my card active?", no_args_model, registry=status)
assert (result.answer, result.status) == ("Your card is active.", "done"), (
    f"a tool call without 'args' runs with no arguments, then the model answers; got {result!r}")



def order(order_id: str) -> dict:
    """One order; an unknown id is an error the model can fix."""
    if not order_id.startswith("A-"):
        return {"error": f"no order {order_id}: order ids look like A-1001"}
    return {"order_id": order_id, "status": "shipped"}


registry = {"order": ToolSpec(name="order", fn=order, description="An order.", params={"order_id": str})}
S = wb.scenarios
retries = S.scripted(S.call("order", order_id="1001"), S.call("order", order_id="A-1001"),
                     "Your order A-1001 has shipped.").as_function(max_calls=5)
result = run_agent("Where is my order 1001?", retries, registry=registry)
last = retries.requests[1][-1] if len(retries.requests) > 1 else None
assert type(last) is dict and last.get("role") == "tool" and '"error"' in str(last.get("content")), (
    f"append run_tool's error as the observation too, so the model can fix its call; the second call ended {last!r}")
assert (result.status, result.steps) == ("done", 3), (
    f"an error observation is not the end: the loop goes on and the model answers in 3 steps; got {result!r}")

never = wb.scenarios.never_finishes().as_function(max_calls=4)
search = {"search_kb": ToolSpec(name="search_kb", fn=lambda query: {"hits": []}, description="Search.",
                                params={"query": str})}
result = run_agent("How long does delivery take?", never, max_steps=3, registry=search)
assert never.calls == 3, f"with max_steps=3 call the model exactly 3 times; it was called {never.calls} times"
assert (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3), (
    "a run stopped by the limit returns AgentResult(None, 'STOPPED: step limit', max_steps), so it "
    f"cannot be mistaken for an answer; got {result!r}")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent stops after exactly max_steps model calls with answer None and status
"STOPPED: step limit"; keeps one conversation (question, assistant turn, observation) and tells
the model the registry's tools; sends error observations back and keeps going; counts steps."""
### BEGIN HIDDEN TESTS
import dataclasses
import json

from workbook.checks import fresh

from collections.abc import Callable
from dataclasses import dataclass

#@include 02_the_loop ToolSpec


wb = fresh()


def run(*args, **kwargs):
    with wb.checks.no_raise("run_agent", hint='errors come back as observations and every stop is a status: run_agent never raises'):
        return run_agent(*args, **kwargs)


def check_result(r):
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    assert type(r.status) is str and type(r.steps) is int, (
        f"status must be a str and steps an int; got {r.status!r}, {r.steps!r}")
    return r


def search_registry():
    def search_kb(query: str) -> dict:
        """Search the help pages."""
        return {"hits": []}
    return {"search_kb": ToolSpec(name="search_kb", fn=search_kb, description="Search.",
                                  params={"query": str})}


# A model that never answers: the limit stops it, and says so.
for max_steps in (3, 1):
    fake = wb.scenarios.never_finishes().as_function(max_calls=max_steps + 3)
    r = check_result(run("How long does delivery take?", fake,
                         max_steps=max_steps, registry=search_registry()))
    assert fake.calls == max_steps, (
        f"with max_steps={max_steps} the model must be called exactly {max_steps} times; it was called {fake.calls}")
    assert r.status == "STOPPED: step limit", (
        f"a run stopped by the limit must have status 'STOPPED: step limit'; got {r.status!r}")
    assert r.answer is None, (
        f"a stopped run has no answer (None), so it cannot be mistaken for one; got {r.answer!r}")
    assert r.steps == max_steps, f"steps must be {max_steps} (the model calls made); got {r.steps}"
fake = wb.scenarios.never_finishes().as_function(max_calls=8)
r = check_result(run("How long does delivery take?", fake, registry=search_registry()))
assert fake.calls == 5 and r.steps == 5, f"max_steps defaults to 5; the model was called {fake.calls} times"

# The conversation: question, then assistant turn and observation per step.
shop = wb.shop.Shop("C-002")
registry = {"txn_sum": ToolSpec(name="txn_sum", fn=shop.txn_sum, description="Spending of the customer.",
                                params={"category": str, "month": str}),
            "get_order": ToolSpec(name="get_order", fn=shop.get_order, description="An order.",
                                  params={"order_id": str})}
fake = wb.scenarios.taxi_spending().as_function(max_calls=5)
question = "How much did I spend on taxis in September?"
r = check_result(run(question, fake, registry=registry))
assert (r.answer, r.status, r.steps) == ("Taxi in September 2026: 1 rides, 9900 KZT.", "done", 2), (
    f"expected the answer from the session's customer (C-002) in 2 steps; got {r!r}")
assert fake.calls == 2, f"the model must be called twice; it was called {fake.calls} times"
first, second = fake.requests
assert first == [{"role": "user", "content": question}], (
    f"the first call sees only the question; it saw {first!r}")
assert [m.get("role") for m in second] == ["user", "assistant", "tool"], (
    "the second call must see the question, the assistant turn, then the observation; got roles "
    f"{[m.get('role') for m in second]}")
assert json.loads(second[1]["content"]) == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}, (
    "append assistant_turn(reply) after every reply")
assert json.loads(second[2]["content"])["total_kzt"] == 9900, "append observation(result) after the tool ran"
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})], (
    f"the tool must run once, through run_tool; the shop saw {shop.log}")
names = sorted(s.get("name") for s in fake.tool_specs or [] if isinstance(s, dict))
assert names == ["get_order", "txn_sum"], (
    f"tell the model the tools of the registry you were given (tool_specs(registry)); it was told {names}")

# Just enough steps: the answer on the last allowed call still counts.
fake = wb.scenarios.taxi_spending().as_function(max_calls=4)
r = check_result(run(question, fake, max_steps=2, registry=registry))
assert (r.status, r.steps) == ("done", 2), f"an answer on step 2 of max_steps=2 is 'done'; got {r!r}"
fake = wb.scenarios.taxi_spending().as_function(max_calls=3)
r = check_result(run(question, fake, max_steps=1, registry=registry))
assert fake.calls == 1 and r.status == "STOPPED: step limit" and r.answer is None, (
    f"with max_steps=1 the model is called once and the run stops; got {r!r} after {fake.calls} calls")

# An error observation goes back to the model, and the loop goes on.
shop = wb.shop.Shop("C-001")


def checked_txn_sum(category: str, month: str) -> dict:
    """Spending of the customer for a month (YYYY-MM)."""
    if len(month) != 7:
        return {"error": "'month' must look like YYYY-MM, e.g. 2026-09"}
    return shop.txn_sum(category, month)


registry = {"txn_sum": ToolSpec(name="txn_sum", fn=checked_txn_sum, description="Spending.",
                                params={"category": str, "month": str})}
scenario = wb.scenarios.vague_vs_specific_error()
fake = scenario.as_function(max_calls=8)
r = check_result(run(scenario.question, fake, registry=registry))
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 3), (
    "after an error observation the model retries with a fixed month and answers in 3 steps; "
    f"got {r!r}. Append every result, errors included, and keep looping")
### END HIDDEN TESTS

# %% [markdown]
# ## The loop at work
#
# Run your loop on the notebook's registry against several scenarios. Each gets a fresh session
# (the tools read the global `SESSION` when they run). Read the statuses and steps: every run ends,
# and only real answers say `done`.

# %%
for name in ["taxi_spending", "asks_other_customer", "vague_vs_specific_error",
             "unknown_tool_then_recover", "wants_card_block", "never_finishes"]:
    SESSION = Shop(customer_id="C-001")
    scenario = scenarios.get(name, lang="notebook")
    result = run_agent(scenario.question, scenario.as_function(max_calls=25))
    print(f"{name:26} {result.status:20} steps={result.steps}  answer={result.answer!r}")
    if name == "wants_card_block":
        print(f"{'':26} card blocked? {SESSION.card_blocked}")

# %% [markdown]
# A few things to notice:
#
# - `asks_other_customer` asked for customer C-002's spending, was refused by `run_tool`, and then
#   answered with the **session's** customer's data.
# - `wants_card_block` tried to confirm the blocking itself (`{"confirmed": true}`). It was refused
#   twice and ended by asking the customer — the card is still active.
# - `never_finishes` did not stop on its own: the limit stopped it, and the status says so.
#
# Here is the whole conversation of one run, as the model saw it at its last call:

# %%
SESSION = Shop(customer_id="C-001")
scenario = scenarios.get("asks_other_customer", lang="notebook")
model = scenario.as_function(max_calls=25)
print(run_agent(scenario.question, model))
for m in model.requests[-1]:
    print(f"{m['role']:>9}: {m['content']}")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **Checking only for missing arguments.** `all(p in args for p in params)` lets
#   `customer_id="C-002"` through. Compare the *sets*: the call must have exactly the parameters.
# - **Letting exceptions escape.** Without `try/except Exception` around the tool call, one
#   `ValueError` ends the run and loses the conversation. Catch it and return its type and message.
# - **Skipping the type check.** `month=202609` then reaches the tool, which fails somewhere deep
#   or, worse, quietly returns nothing. Check `isinstance` against the registered types first.
# - **Taking confirmation from the model.** `confirmed = args.pop("confirmed", False)` lets the
#   model say yes on the customer's behalf. Confirmation is a parameter your code sets.
# - **A vague error.** `{"error": "bad call"}` gives the model nothing to fix. Name the tool, the
#   argument, the expected type, the available tools.
# - **`fn.__annotations__` as the parameters.** It includes `"return"`, which then becomes a
#   required argument no model will ever send (and it keeps string annotations as strings).
# - **No step limit.** `while True:` until a final answer never ends for a model that never gives
#   one (`never_finishes`).
# - **A stop that looks like an answer.** Returning `"Sorry, step limit reached"` as the answer, or
#   with status `"done"`, hides the failure from everything downstream. Stopped runs have
#   `answer=None` and a `"STOPPED: ..."` status.
# - **Counting steps off by one.** `for step in range(max_steps)` numbers steps from 0; the
#   result then reports one step fewer than the model calls made.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("02_the_loop")

# %% [markdown]
# ## Live providers
#
# This chapter's loop speaks the simple function format of the fake model, so it has no live cell.
# Real providers use a richer wire format — the subject of the next chapter, which ends with a
# live cell.
#
# ## What's next
#
# **03 · The OpenAI wire format** moves the same loop onto `client.chat.completions.create`: tools
# described as JSON Schema, tool calls with ids, arguments as a JSON *string*, and the provider's
# 400 when the assistant turn or a tool result goes missing.
