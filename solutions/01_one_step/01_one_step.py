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
# # 01 · One step
#
# An agent is a loop, and every turn of that loop is the same **step**: send the messages to the
# model, read its reply, and, if the reply asks for a tool, run the tool and put the result back
# into the messages. This chapter builds one step by hand and then runs two of them.
#
# **Learning goals.** After this chapter you can
# - explain why the message list is the model's whole memory;
# - tell a tool request from a final answer, and reject a reply that is neither;
# - run the tool *in your code* and send its result back as an **observation**;
# - run two steps, from a question to the model's final answer.
#
# **Time:** about 45 minutes.
#
# **Builds on:** 00 · Start here (calling the fake model, reading its reply). Nothing from it is
# needed as code.

# %% [markdown]
# ## The message list is the model's whole memory
#
# A model does not remember anything between calls. Each call gets a list of messages and
# returns one reply; when the next call comes, the model knows only what that list holds. Here is
# the taxi scenario from chapter 00 again:

# %%
import json

from workbook import scenarios
from workbook.shop import Shop

taxi = scenarios.get("taxi_spending", lang="notebook")  # in the language this notebook is in
QUESTION = taxi.question

forgetful = taxi.as_function()
messages = [{"role": "user", "content": QUESTION}]
print(forgetful(messages, []))
print(forgetful(messages, []))

# %% [markdown]
# The model asked for the same tool twice. The second call did not "remember" the first one,
# because nothing was added to the list. To make progress, **your code** has to write down what
# happened:
#
# 1. the model's reply, as an **assistant** message (so the model later sees what it asked for);
# 2. the tool's result, as a **tool** message: the **observation**.
#
# ```
#   messages ──► model(messages, tool_specs) ──► {"tool": "txn_sum", "args": {...}}
#      ▲                                                   │
#      │                                 your code runs shop.txn_sum(**args)
#      │                                                   │
#      └── append {"role": "assistant", "content": '{"tool": "txn_sum", ...}'}
#          append {"role": "tool", "content": '{"count": 2, "total_kzt": 5000, ...}'}
# ```
#
# That is one step. The next call sees both messages and can answer.

# %% [markdown]
# ## The code runs the tool, not the model
#
# The model only *asks*. It never runs anything: `{"tool": "txn_sum", ...}` is just data.
# Your code decides whether the tool exists, calls the Python function, and gets a real result.
# That is where the guarantees come from:
#
# - the numbers are **computed**, not guessed: 3200 + 1800 = 5000 is added up by `txn_sum`;
# - the code decides what is allowed. Notice that `txn_sum` has no `customer_id` argument. The
#   customer comes from the **session**, the logged-in `Shop(customer_id=...)`, so the model
#   cannot ask for someone else's spending even if it wanted to.
#
# The shop's tools are plain methods. `shop.tools()` gives them as a dict, name → function: the
# dict your code looks a tool name up in.

# %%
shop = Shop("C-001")  # the logged-in customer: set by the login, never by the model
tools = shop.tools()
print(sorted(tools))

model = taxi.as_function()
reply = model(messages, [])
result = tools[reply["tool"]](**reply["args"])
result

# %% [markdown]
# Now write it down, and call the model again. The assistant turn is the reply as JSON text, and
# the observation is the result as JSON text: `content` is always a string.

# %%
messages.append({"role": "assistant", "content": json.dumps(reply)})
messages.append({"role": "tool", "content": json.dumps(result)})
model(messages, [])

# %% [markdown]
# That is the model's **final answer**, built from the observation. Look at what the model was
# sent at each call: the last request is the whole conversation.

# %%
print(model.calls, "calls")
for m in model.requests[-1]:
    print(f"{m['role']:>9}: {m['content']}")

# %% [markdown]
# The model believes whatever the list says. Hand it an observation your code made up, and it
# repeats the made-up numbers as if they were true:

# %%
made_up = messages[:2] + [{"role": "tool", "content": json.dumps({"count": 3, "total_kzt": 9999})}]
taxi.as_function()(made_up, [])

# %% [markdown]
# This is why the observation must be the tool's real result, computed by the tool, and why it
# matters what goes into the list.
#
# ### Telling the model which tools exist
#
# The second argument of `model(messages, tool_specs)` lists the tools the model may ask for. A
# real model asks only for tools it was told about (or, now and then, invents one; chapter 02
# deals with that). Here a spec is just a name and a description; chapter 03 uses the full JSON
# Schema format that real providers expect. The helper below builds the specs from a tools dict:
# use it in your code.

# %%
def tool_specs(tools):
    """What the model is told about each tool: its name and its docstring."""
    return [{"name": name, "description": (fn.__doc__ or "").strip()} for name, fn in tools.items()]


tool_specs({"txn_sum": shop.txn_sum})

# %% [markdown]
# ## Exercise 1 — `parse_reply` (3 points)
#
# Before your code acts on a reply, it has to know which kind it is. Write `parse_reply(reply)`:
#
# | reply | returns |
# |---|---|
# | `{"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}` | `("tool", "txn_sum", {"category": "taxi", "month": "2026-09"})` |
# | `{"tool": "card_block"}` (no `"args"`) | `("tool", "card_block", {})` |
# | `{"final": "Taxi in September 2026: 2 rides, 5000 KZT."}` | `("final", "Taxi in September 2026: 2 rides, 5000 KZT.")` |
# | `{"final": ""}` | `("final", "")`: empty, but still a final answer |
#
# Return a **tuple**. Anything else is a bad reply: raise `ValueError` with a message that says
# what is wrong. In particular:
# - the reply is not a dict (for example a plain string);
# - it has neither `"tool"` nor `"final"`, or both;
# - the tool name is not a non-empty `str`, or `"args"` is not a dict;
# - the final text is not a `str`.

# %% nbgrader={"grade": false, "grade_id": "parse_reply", "locked": false, "schema_version": 3, "solution": true}
def parse_reply(reply):
    """Classify a model reply: ("tool", name, args) or ("final", text); ValueError if it is neither."""
    ### BEGIN SOLUTION
    if not isinstance(reply, dict):
        raise ValueError(f"a reply must be a dict, got {type(reply).__name__}: {reply!r:.80}")
    if ("tool" in reply) == ("final" in reply):
        raise ValueError(f"a reply must have exactly one of 'tool' and 'final', got keys {sorted(reply)}")
    if "final" in reply:
        if not isinstance(reply["final"], str):
            raise ValueError(f"'final' must be a str, got {type(reply['final']).__name__}")
        return ("final", reply["final"])
    name, args = reply["tool"], reply.get("args", {})
    if not isinstance(name, str) or not name:
        raise ValueError(f"'tool' must be a non-empty str, got {name!r}")
    if not isinstance(args, dict):
        raise ValueError(f"'args' must be a dict, got {type(args).__name__}: {args!r:.80}")
    return ("tool", name, args)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "parse_reply_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: parse_reply on the four rows of the table (a tool request with and without
"args", a final answer, an empty final answer), returning tuples, and ValueError, with a message,
for each kind of bad reply the text lists: neither key, both, a plain string (JSON text is still
not a dict), an empty tool name, a tool name that is not a str, "args" that is not a dict, a final
text that is not a str."""
from workbook.checks import fresh

wb = fresh()
got = parse_reply({"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}})
wb.checks.equal(got, ("tool", "txn_sum", {"category": "taxi", "month": "2026-09"}),
                "parse_reply(<a txn_sum request>)", "a tool request gives a tuple ('tool', name, args)")
with wb.checks.no_raise("parse_reply({'tool': 'card_block'})", hint="a tool request may come without 'args'"):
    got = parse_reply({"tool": "card_block"})
wb.checks.equal(got, ("tool", "card_block", {}), "parse_reply({'tool': 'card_block'})",
                "a tool request without 'args' has no arguments: use {}")
got = parse_reply({"final": "Taxi in September 2026: 2 rides, 5000 KZT."})
wb.checks.equal(got, ("final", "Taxi in September 2026: 2 rides, 5000 KZT."),
                "parse_reply(<a final answer>)", "a final answer gives a tuple ('final', text)")
with wb.checks.no_raise("parse_reply({'final': ''})", hint="an empty final answer is still a final answer"):
    got = parse_reply({"final": ""})
wb.checks.equal(got, ("final", ""), "parse_reply({'final': ''})",
                "an empty final answer is still a final answer: test for the key, not for a truthy value")
with wb.checks.raises(ValueError, match=r"\S", what="parse_reply({'answer': '42'}), a reply with neither "
                     "'tool' nor 'final', (with a message that says what is wrong)"):
    parse_reply({"answer": "42"})
with wb.checks.raises(ValueError, what="""parse_reply('{"final": "5000 KZT."}'), a plain string,"""):
    parse_reply('{"final": "5000 KZT."}')
with wb.checks.raises(ValueError, what="parse_reply({'tool': 'txn_sum', 'final': '5000 KZT.'}), a reply with both keys,"):
    parse_reply({"tool": "txn_sum", "final": "5000 KZT."})
with wb.checks.raises(ValueError, what="parse_reply({'tool': ''}), a tool request with an empty name,"):
    parse_reply({"tool": ""})
with wb.checks.raises(ValueError, what="parse_reply({'tool': 42}), a tool name that is not a str,"):
    parse_reply({"tool": 42})
with wb.checks.raises(ValueError, what="parse_reply({'tool': 'txn_sum', 'args': '{}'}), arguments that are not a dict,"):
    parse_reply({"tool": "txn_sum", "args": "{}"})
with wb.checks.raises(ValueError, what="parse_reply({'final': 42}), a final text that is not a str,"):
    parse_reply({"final": 42})
print("parse_reply: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "parse_reply_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: parse_reply on replies from the fake model, on a tool without arguments, on an
empty final answer, and ValueError (with a message) for every kind of bad reply."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
weather = wb.scenarios.weather_and_math().as_function()
got = parse_reply(weather([{"role": "user", "content": "Weather in Almaty?"}], []))
wb.checks.equal(got, ("tool", "get_weather", {"city": "Almaty"}), "parse_reply(<the weather request>)")
with wb.checks.no_raise("parse_reply({'tool': 'card_block'})",
                        hint="a tool request may come without 'args'; treat it as no arguments, {}"):
    got = parse_reply({"tool": "card_block"})
wb.checks.equal(got, ("tool", "card_block", {}), "parse_reply({'tool': 'card_block'})",
                "a tool request without 'args' has no arguments")
with wb.checks.no_raise("parse_reply({'final': ''})",
                        hint="an empty final answer is still a final answer; test for the key, not for a truthy value"):
    got = parse_reply({"final": ""})
wb.checks.equal(got, ("final", ""), "parse_reply({'final': ''})")

bad_replies = [
    "Taxi in September 2026: 2 rides, 5000 KZT.",  # plain text, not a dict
    '{"final": "the reply as a JSON string"}',
    ["tool", "txn_sum"],
    None,
    {},
    {"tool": "txn_sum", "final": "both at once"},
    {"tool": "", "args": {}},
    {"tool": 42, "args": {}},
    {"tool": "txn_sum", "args": '{"category": "taxi", "month": "2026-09"}'},
    {"final": None},
]
for bad in bad_replies:  # match: the ValueError needs a message that says what is wrong
    with wb.checks.raises(ValueError, match=r"\S", what=f"parse_reply({bad!r}), a bad reply,"):
        parse_reply(bad)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — `one_step` (4 points)
#
# Write `one_step(messages, model, tools)`, one step of the agent:
#
# 1. call the model **once**: `model(messages, tool_specs(tools))`;
# 2. append the reply to `messages` as the assistant turn,
#    `{"role": "assistant", "content": json.dumps(reply)}`, whatever kind it is;
# 3. if the reply is a **final answer**, return its text (a `str`);
# 4. if it is a **tool request**, run the tool from the `tools` dict with the reply's arguments,
#    append the observation `{"role": "tool", "content": json.dumps(result)}` *after* the
#    assistant turn, and return `None`: the model has not answered yet.
#
# `one_step` changes the list it was given (it appends to it) rather than building a new one: the
# caller keeps the conversation. You may use your `parse_reply`. Do not handle a missing tool or
# a tool that raises: chapter 02 turns those into observations too.

# %% nbgrader={"grade": false, "grade_id": "one_step", "locked": false, "schema_version": 3, "solution": true}
def one_step(messages, model, tools):
    """Call the model once and append its reply; run a requested tool and append the observation.

    Returns the final text when the model answered, or None after a tool ran.
    """
    ### BEGIN SOLUTION
    reply = model(messages, tool_specs(tools))
    messages.append({"role": "assistant", "content": json.dumps(reply)})
    if "final" in reply:
        return reply["final"]
    result = tools[reply["tool"]](**reply.get("args", {}))
    messages.append({"role": "tool", "content": json.dumps(result)})
    return None
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "one_step_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: two steps of the taxi question. First the model asks for txn_sum: one_step tells
it the tools, runs txn_sum once with its arguments, appends the assistant turn and then the
observation, and returns None. Then the model answers: one_step appends that assistant turn too
and returns the final text."""
import json

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
model = wb.scenarios.taxi_spending().as_function()
shop = wb.shop.Shop("C-001")
messages = [{"role": "user", "content": "How much did I spend on taxis in September?"}]
out = one_step(messages, model, shop.tools())
messages = after(messages)
assert model.calls == 1, f"one_step must call the model exactly once; it was called {model.calls} times"
assert out is None, f"after running a tool, return None (the model has not answered yet); got {out!r}"
told = sorted(spec.get("name") for spec in model.tool_specs or [] if isinstance(spec, dict))
assert told == sorted(shop.tools()), (
    f"tell the model which tools exist: call model(messages, tool_specs(tools)); it was told about {told}")
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})], (
    f"run the tool the model asked for, once, with its arguments (never write the result yourself); "
    f"the shop saw {shop.log}")
roles = [m.get("role") for m in messages]
assert "tool" in roles, (
    f"the observation is missing (roles are {roles}): after running the tool, append "
    "{'role': 'tool', 'content': json.dumps(result)} to messages")
assert "assistant" in roles, (
    f"the assistant turn is missing (roles are {roles}): append "
    "{'role': 'assistant', 'content': json.dumps(reply)} before the observation")
assert roles == ["user", "assistant", "tool"], (
    f"after one tool step the roles must be ['user', 'assistant', 'tool']; got {roles}")

def as_json(text):
    """The JSON value `text` holds, or None: a turn that is not JSON fails the assert that reads it."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


assistant = messages[1].get("content")
assert as_json(assistant) == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}, (
    f"the assistant turn's content must be json.dumps(reply), the model's reply as JSON text; got {assistant!r}")
content = messages[2]["content"]
assert isinstance(content, str), f"the observation's content must be a JSON string, got {type(content).__name__}"
try:
    observed = json.loads(content)
except ValueError:
    raise AssertionError(f"the observation must be json.dumps(result), valid JSON; got {content!r}") from None
assert observed == {"category": "taxi", "month": "2026-09", "count": 2, "total_kzt": 5000}, (
    f"the observation must be what txn_sum returned; got {observed!r}")

out = one_step(messages, model, shop.tools())
messages = after(messages)
assert out == "Taxi in September 2026: 2 rides, 5000 KZT.", (
    f"when the model answers, return its final text; got {out!r}")
assert len(shop.log) == 1, "no tool may run when the model gives a final answer"
assert [m.get("role") for m in messages] == ["user", "assistant", "tool", "assistant"], (
    "append the final reply as an assistant turn too: roles should be ['user', 'assistant', 'tool', "
    f"'assistant']; got {[m.get('role') for m in messages]}")
assistant = messages[3].get("content")
assert as_json(assistant) == {"final": out}, (
    f"a final answer's assistant turn is json.dumps(reply) too, the whole reply; got {assistant!r}")
print("one_step: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "one_step_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: one_step runs the real tool (exactly once, with the model's arguments) instead
of inventing its result, tells the model the tools, appends the assistant turn then the
observation to the caller's list, returns the final text, and handles a tool returning a number."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
question = "How much did I spend on taxis in September?"


def _check_roles(messages, expected):
    roles = [m.get("role") if isinstance(m, dict) else m for m in messages]
    if roles == expected:
        return
    if len(roles) == 1:
        raise AssertionError("nothing was appended to the list one_step was given: use "
                             "messages.append(...) on it instead of building a new list")
    if roles.count("tool") < expected.count("tool"):
        raise AssertionError(f"the observation is missing (roles are {roles}): append "
                             "{'role': 'tool', 'content': json.dumps(result)} after running the tool")
    if roles.count("assistant") < expected.count("assistant"):
        raise AssertionError(f"an assistant turn is missing (roles are {roles}): append every reply "
                             "as {'role': 'assistant', 'content': json.dumps(reply)}")
    raise AssertionError(f"the roles must be {expected}: assistant turn first, then the observation; "
                         f"got {roles}")


# Another customer's data: a result copied from the example cannot match.
model = wb.scenarios.taxi_spending().as_function()
shop = wb.shop.Shop("C-002")
messages = [{"role": "user", "content": question}]
out = one_step(messages, model, shop.tools())
messages = after(messages)
assert out is None, f"after running a tool, return None; got {out!r}"
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})], (
    f"run the tool the model asked for, exactly once, with its arguments; the shop saw {shop.log}")
_check_roles(messages, ["user", "assistant", "tool"])
assert json.loads(messages[1]["content"]) == {"tool": "txn_sum",
                                              "args": {"category": "taxi", "month": "2026-09"}}, (
    "the assistant turn's content must be json.dumps(reply)")
assert model.requests[0] == [{"role": "user", "content": question}], (
    "the model must be called with the messages as they were before this step")
specs = model.tool_specs or []
names = sorted(s.get("name") for s in specs if isinstance(s, dict))
assert names == sorted(shop.tools()), (
    f"tell the model which tools exist: pass tool_specs(tools); it was told about {names}")
content = messages[2]["content"]
assert isinstance(content, str), f"the observation's content must be a JSON string, got {type(content).__name__}"
try:
    observed = json.loads(content)
except ValueError:
    raise AssertionError(f"the observation must be json.dumps(result), valid JSON; got {content!r}") from None
wb.checks.equal(observed, {"category": "taxi", "month": "2026-09", "count": 1, "total_kzt": 9900},
                "the observation for customer C-002", "it must be the tool's real result, not one made up")

# A tool the test controls: the observation must be exactly what it returned.
seen = []


def txn_sum(category, month):
    """Spending for one category and month."""
    seen.append((category, month))
    return {"category": category, "month": month, "count": 7, "total_kzt": 12345}


model = wb.scenarios.taxi_spending().as_function()
messages = [{"role": "user", "content": question}]
assert one_step(messages, model, {"txn_sum": txn_sum}) is None, "after running a tool, return None"
messages = after(messages)
assert seen == [("taxi", "2026-09")], f"call the tool once with the model's arguments; it saw {seen}"
assert json.loads(messages[-1]["content"])["total_kzt"] == 12345, (
    "the observation must hold the tool's return value")

# The second step: the model answers from the observation.
out = one_step(messages, model, {"txn_sum": txn_sum})
messages = after(messages)
wb.checks.equal(out, "Taxi in September 2026: 7 rides, 12345 KZT.", "one_step's return value",
                "when the model answers, return its final text")
assert seen == [("taxi", "2026-09")], "no tool may run when the model gives a final answer"
_check_roles(messages, ["user", "assistant", "tool", "assistant"])
assert json.loads(messages[-1]["content"]) == {"final": out}, (
    "the final assistant turn's content must be json.dumps(reply)")

# A tool that returns a plain number.
model = wb.scenarios.weather_and_math().as_function()
messages = [{"role": "user", "content": "Weather in Almaty?"},
            {"role": "assistant", "content": json.dumps({"tool": "get_weather", "args": {"city": "Almaty"}})},
            {"role": "tool", "content": json.dumps({"city": "Almaty", "temp_c": 21, "sky": "sunny"})}]


def calculate(expression):
    """Evaluate an arithmetic expression."""
    assert expression == "21 * 9 / 5 + 32", f"unexpected expression {expression!r}"
    return 69.8


assert one_step(messages, model, {"calculate": calculate}) is None, "after running a tool, return None"
messages = after(messages)
assert messages[-1] == {"role": "tool", "content": "69.8"}, (
    f"a tool returning 69.8 gives the observation {{'role': 'tool', 'content': '69.8'}}; got {messages[-1]!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 — `two_steps` (3 points)
#
# Now put steps together. Write `two_steps(question, model, tools)`:
#
# - start a new conversation holding only the user's question;
# - run steps on that **same** list until the model gives a final answer, and return its text;
# - run **at most two** steps. If the model still has not answered after its second reply,
#   raise `RuntimeError` with a message saying so. Never call the model a third time.
#
# For the taxi question that is two model calls: the tool request, then the answer. A question
# that needs no tool is answered after one call. You may call your `one_step`.

# %% nbgrader={"grade": false, "grade_id": "two_steps", "locked": false, "schema_version": 3, "solution": true}
def two_steps(question, model, tools):
    """Ask the question and run at most two steps; return the final text, or raise RuntimeError."""
    ### BEGIN SOLUTION
    # The step is written out here (not one_step) so that this exercise is graded on its own.
    messages = [{"role": "user", "content": question}]
    for _ in range(2):
        reply = model(messages, tool_specs(tools))
        messages.append({"role": "assistant", "content": json.dumps(reply)})
        if "final" in reply:
            return reply["final"]
        result = tools[reply["tool"]](**reply.get("args", {}))
        messages.append({"role": "tool", "content": json.dumps(result)})
    raise RuntimeError("the model gave no final answer after 2 steps")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "two_steps_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: two_steps answers the taxi question with two model calls, starting from the question
alone, and returns a str; answers a question that needs no tool after one call; and raises
RuntimeError with a message (after exactly two calls) for a question that needs three steps."""
from workbook.checks import fresh

wb = fresh()
model = wb.scenarios.taxi_spending().as_function()
with wb.checks.no_raise("two_steps on the taxi question, which needs only two steps,",
                        hint="keep one messages list for both steps, so the second call sees the tool "
                        "request and the observation"):
    out = two_steps("How much did I spend on taxis in September?", model, wb.shop.Shop("C-001").tools())
assert type(out) is str, f"two_steps must return the final text, a str; got {type(out).__name__}: {out!r}"
assert out == "Taxi in September 2026: 2 rides, 5000 KZT.", (
    f"return the model's final text, 'Taxi in September 2026: 2 rides, 5000 KZT.'; got {out!r}")
assert model.calls == 2, f"the taxi question takes exactly two model calls; there were {model.calls}"
first = model.requests[0]
assert first == [{"role": "user", "content": "How much did I spend on taxis in September?"}], (
    f"start a new conversation holding only the user's question; the model was first sent {first!r}")

# A question that needs no tool: the first reply is the answer, so one call.
model = wb.scenarios.scripted("Your order A-1001 has shipped.").as_function()
with wb.checks.no_raise("two_steps on a question the model answers at once",
                        hint="a final answer on the first call ends it"):
    out = two_steps("Where is my order A-1001?", model, {})
assert model.calls == 1, f"a final answer on the first call ends it; the model was called {model.calls} times"
assert out == "Your order A-1001 has shipped.", f"return the final text; got {out!r}"

# Weather, then a conversion to Fahrenheit, then the answer: three steps, one too many.
model = wb.scenarios.weather_and_math().as_function()
tools = {"get_weather": wb.shop.Shop().get_weather, "calculate": lambda expression: 69.8}
with wb.checks.raises(RuntimeError, match=r"\S",
                      what="two_steps on a question that needs three steps (with a message saying so)"):
    two_steps("What is the weather in Almaty, in Fahrenheit?", model, tools)
assert model.calls == 2, f"never call the model more than twice; it was called {model.calls} times"
print("two_steps: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "two_steps_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: two_steps keeps one conversation across both calls, lets the model write the
answer, stops after one call when no tool is needed, and raises RuntimeError instead of a third call."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
question = "How much did I spend on taxis in September?"

model = wb.scenarios.taxi_spending().as_function()
shop = wb.shop.Shop("C-002")
with wb.checks.no_raise("two_steps on the taxi question, which needs only two steps,",
                        hint="keep one messages list for both steps"):
    out = two_steps(question, model, shop.tools())
assert model.calls == 2, (
    f"ask the model again after the tool ran, and let it write the answer; it was called {model.calls} times")
assert type(out) is str and out == "Taxi in September 2026: 1 rides, 9900 KZT.", (
    f"return the model's final text for customer C-002; got {out!r}")
first, second = model.requests
assert first == [{"role": "user", "content": question}], (
    f"start the conversation with just the user's question; the model was first sent {first!r}")
assert [m.get("role") for m in second] == ["user", "assistant", "tool"], (
    "the second call must see the same conversation: question, assistant turn, observation; got roles "
    f"{[m.get('role') for m in second]}")
assert json.loads(second[2]["content"])["total_kzt"] == 9900, "the observation must be the tool's result"

# No tool needed: one call is enough.
model = wb.scenarios.long_chat_small_context().as_function()
out = two_steps("Where is my order A-1001?", model, {})
assert model.calls == 1, f"a final answer on the first call ends it; the model was called {model.calls} times"
assert out == "Your order A-1001 has shipped.", f"return the final text; got {out!r}"

# A model that needs three steps: stop after two.
model = wb.scenarios.weather_and_math().as_function()
tools = {"get_weather": wb.shop.Shop().get_weather, "calculate": lambda expression: 69.8}
with wb.checks.raises(RuntimeError, match=r"\S", what="two_steps on a question that needs three steps"):
    two_steps("What is the weather in Almaty, in Fahrenheit?", model, tools)
assert model.calls == 2, f"never call the model more than twice; it was called {model.calls} times"
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **The observation is not appended.** The tool ran and the result was printed, but not added
#   to `messages`. The model never sees it and asks for the same tool again.
# - **The assistant turn is not appended.** Only the tool's result goes in. The model then sees
#   a result it never asked for. The fake lets that pass for now, but real providers reject it
#   (chapter 03 shows the error), and the tests check the roles.
# - **The result is invented.** The loop writes `{"count": 2, "total_kzt": 5000}` itself, or adds
#   the amounts up in the loop, instead of calling the tool. It passes for one customer and is
#   wrong for every other one.
# - **The loop writes the answer.** After the tool runs, the code formats "Taxi in September…"
#   itself instead of calling the model again. The model, not your code, composes the answer.
# - **`content` is not JSON.** `str(result)` gives Python's `{'count': 2, ...}` with single
#   quotes, which is not JSON; a dict is not text at all. Use `json.dumps(result)`.
# - **A new list every step.** Creating `messages = [...]` inside the loop throws the
#   conversation away: the model forgets its own tool request, asks again, and never answers.
# - **No limit.** `while True:` until a final answer hangs on a model that never gives one. Two
#   steps here; chapter 02 makes the limit a parameter with an honest stop status.
# - **Parsing with truthiness.** `if reply.get("final"):` treats an empty final answer as no
#   answer, and `"tool" in reply` on a *string* reply checks for a substring. Check the type
#   first, then the keys.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("01_one_step")

# %% [markdown]
# ## Live cell (optional)
#
# A real model makes the same choice: given the question and a tool, it asks for the tool instead
# of guessing. Real providers speak a richer format (chapter 03 covers it): the tool request comes
# as `tool_calls` and its arguments as a JSON string. This cell only shows the first reply. It
# runs when `LLM_PROVIDER` names a live provider (see chapter 00), and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.shop import openai_tools

if live_enabled():
    try:
        client, model_name = make_client()
        question = "How much did I spend on taxis in September?"  # this cell's own: it runs after a restart
        response = client.chat.completions.create(
            model=model_name, messages=[{"role": "user", "content": question}],
            tools=openai_tools(["txn_sum"]))
        choice = response.choices[0]
        print("finish_reason:", choice.finish_reason)
        for call in choice.message.tool_calls or []:
            print("tool call:", call.function.name, call.function.arguments)
        if not choice.message.tool_calls:
            print("answer:", choice.message.content)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# Two steps were enough for one tool. In **02 · The loop** the steps run until the model
# answers or a step limit is reached, with a tool registry, and every failure (an unknown tool,
# wrong arguments, a tool that raises) becomes an observation the model can read instead of a
# crash.
