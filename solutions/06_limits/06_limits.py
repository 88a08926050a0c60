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
# # 06 · Limits and stopping
#
# A loop that runs until the model says it is done trusts the model to say so. Most of the time it
# does. Sometimes it asks for the same thing again and again, reads a report page by page while
# the bill grows, waits on a tool that hangs, or gets cut off in the middle of a sentence. Your
# code has to notice every one of these and end the run **on purpose**, with a status that says
# why — never with an exception, and never with half an answer dressed up as a whole one.
#
# **Learning goals.** After this chapter you can
# - name the four limits of an agent run (steps, tokens, wall-clock time, tool-result size) and
#   what each one protects against;
# - measure how the prompt grows step by step from `usage`, and explain why the cost of a run
#   grows roughly with the **square** of its steps;
# - cut long tool results with a visible `[truncated]` marker;
# - detect a model going in circles: the same `(name, arguments)` for the third time;
# - keep a token budget and a wall-clock timeout, with the clock passed in so tests need no
#   waiting;
# - tell an answer (`finish_reason == "stop"`) from a reply that was cut off (`"length"`) or
#   filtered (`"content_filter"`), and stop with a clear status;
# - write `run_agent` with all of this, every stop a status in the `AgentResult`;
# - say in the status when a run stopped after a tool that writes had already run.
#
# **Time:** about 85 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (`run_agent`, `AgentResult`, tool messages by id)
# and 02 · The loop (the step limit). What you need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 02–03
#
# The result object, `call_tool` (a tool's result, or an `{"error": ...}` observation; it never
# raises), and chapter 03's loop, here called `basic_agent`. Its only limit is `max_steps`.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_03", "locked": true, "schema_version": 3, "solution": false}
import json
import time
from collections import Counter
from dataclasses import dataclass

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


def tool_message(call, impl):
    """Run one tool call from the SDK; its `tool` message, content as JSON text."""
    try:
        args = json.loads(call.function.arguments)
    except json.JSONDecodeError as e:
        result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
    else:
        result = call_tool(impl, call.function.name, args)
    return {"role": "tool", "tool_call_id": call.id,
            "content": json.dumps(result, ensure_ascii=False, default=str)}


def basic_agent(client, model, question, tools, impl, max_steps=8):
    """Chapter 03's loop: answer, stop status, and the model calls made."""
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        messages.append(choice.message.model_dump(exclude_none=True))
        if not choice.message.tool_calls:
            if choice.finish_reason == "stop":
                return AgentResult(choice.message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        for call in choice.message.tool_calls:
            messages.append(tool_message(call, impl))
    return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# ## Part 1 · Four limits
#
# Tools decide **what** an agent can do (chapter 07). Limits decide **how much**:
#
# | limit | protects against | typical value |
# |---|---|---|
# | **steps** (model calls) | a model going in circles, searching again and again | 6–15 |
# | **token budget** (summed from `usage`) | the bill: every step resends the whole history | tens of thousands of tokens |
# | **wall-clock timeout** | a hanging tool or a slow API holding the customer (and a worker) forever | 1–3 minutes per task |
# | **tool-result size** | one huge file or search result filling the context and burying the question | a few thousand characters, cut with `[truncated]` |
#
# Two more reasons to stop come from the model itself: a reply **cut off** by its own output
# limit (`finish_reason == "length"`) or **blocked** by the provider's filter (`"content_filter"`).
# Neither is an answer.
#
# Whatever stops a run, the loop returns an `AgentResult` whose `status` says why. A person (a
# support colleague) takes over every run that is not `done`, and your dashboards count how
# often each limit fires. An exception would lose the conversation and tell nobody anything.
#
# `basic_agent` already stops at `max_steps`. Here it is against a model that never finishes:

# %%
scenario = scenarios.never_finishes()
llm = FakeLLM(scenario)
print(basic_agent(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                  {"search_kb": lambda query: {"hits": []}}, max_steps=4))
print("model calls:", llm.calls)

# %% [markdown]
# ## Part 2 · Why the bill grows faster than the steps
#
# A provider charges for every token it reads (the **prompt**) and writes (the **completion**),
# and reports both in `response.usage`. The model keeps no memory between calls, so each step
# sends the *whole* conversation again: the question, every assistant turn, every tool result.
# The prompt of step *k* is the prompt of step *k − 1* plus what step *k − 1* added.
#
# The fake counts tokens with a published rule (one token per 4 characters of each message's
# JSON, plus 3 per message), so the numbers below are the same on every run. Here is
# `token_hog`, a model that reads a report page by page; each page is about 600 characters.

# %%
scenario = scenarios.token_hog(pages=11)
llm = FakeLLM(scenario)
client = llm.client()


def report_page(page):
    """A stand-in for the report tool: about 600 characters per page."""
    return {"page": page, "text": f"Page {page}. " + "Taxi 2500 KZT; food 5400 KZT; " * 20}


messages = [{"role": "user", "content": scenario.question}]
rows, total = [], 0
while True:
    response = client.chat.completions.create(model="fake-model", messages=messages,
                                              tools=scenario.openai_tools())
    usage = response.usage
    total += usage.total_tokens
    rows.append((len(rows) + 1, usage.prompt_tokens, usage.completion_tokens, total))
    message = response.choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    if not message.tool_calls:
        break
    for call in message.tool_calls:
        messages.append(tool_message(call, {"fetch_report": report_page}))

print(f"{'step':>4} {'prompt':>7} {'completion':>10} {'total so far':>13}")
for step, prompt, completion, so_far in rows:
    print(f"{step:>4} {prompt:>7} {completion:>10} {so_far:>13}")

# %% [markdown]
# Read the `prompt` column: it grows by about the same amount every step (one assistant turn
# plus one page). A prompt that grows **linearly** means a running total that grows
# **quadratically**: after *n* steps you have paid for roughly *n²/2* pages of history.

# %%
import matplotlib.pyplot as plt

steps = [r[0] for r in rows]
fig, ax = plt.subplots(figsize=(7, 3))
ax.bar(steps, [r[1] for r in rows], label="prompt tokens of this step")
ax.plot(steps, [r[3] for r in rows], "o-", color="tab:red", label="total tokens so far")
ax.set_xlabel("step")
ax.set_ylabel("tokens")
ax.set_title("token_hog: each step resends the whole history")
ax.legend()
plt.show()

half = rows[len(rows) // 2 - 1]
print(f"after {half[0]} steps: {half[3]} tokens; after {rows[-1][0]} steps: {rows[-1][3]} tokens "
      f"({rows[-1][3] / half[3]:.1f}× for 2× the steps)")

# %% [markdown]
# Twice the steps, about four times the tokens — and the gap widens as runs get longer.
# That is why a step limit alone is not a cost limit: eight steps with big tool results can cost
# more than twenty small ones. The **token budget** sums `usage.total_tokens` over the run and
# stops it when the sum goes over. (Providers with prompt caching, such as DeepSeek in chapter 10,
# charge less for the repeated head of the prompt; the tokens still count against the context
# window.)
#
# Big tool results make every later step more expensive, which is the fourth limit's job.

# %% [markdown]
# ## Part 3 · Tool results have a size limit
#
# A tool can return far more than the model needs: a whole file, fifty search hits, a log. All of
# it goes into the prompt of this step *and every later one*, pushes the question and the system
# prompt away from the model's attention, and on a small context window (Ollama's default is
# 4096 tokens) silently pushes the oldest messages out, often the user's question (Ollama keeps the
# system prompt and the latest message; chapter 10 shows it).
#
# So the loop cuts every tool result to a maximum number of characters. The cut must be
# **visible**: a model that gets half a price list without being told will answer from it as if
# it were all. A marker at the end says that something is missing and how much, so the model can
# ask for less (a page, a filter) or say that it could not read everything.

# %% [markdown]
# ## Exercise 1 — `truncate` (3 points)
#
# Write `truncate(text, limit)`:
#
# - a `text` of at most `limit` characters comes back unchanged;
# - a longer one becomes its first `limit` characters, then a new line, then the marker
#   `[truncated]` and how much was cut:
#
# ```python
# truncate("abcdefghij", 4)  ->  "abcd\n[truncated] cut 6 of 10 characters"
# ```

# %% nbgrader={"grade": false, "grade_id": "truncate", "locked": false, "schema_version": 3, "solution": true}
def truncate(text, limit):
    """`text` if it has at most `limit` characters, else its head and a [truncated] marker."""
    ### BEGIN SOLUTION
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[truncated] cut {len(text) - limit} of {len(text)} characters"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "truncate_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: truncate keeps a short text, and one of exactly `limit` characters, as it is and
cuts a long one, ending with the [truncated] marker."""
short = truncate("Order A-1001 is shipped.", 100)
assert short == "Order A-1001 is shipped.", f"a text within the limit must come back unchanged; got {short!r}"
exact = truncate("abcd", 4)
assert exact == "abcd", f"a text of exactly `limit` characters is within the limit: unchanged; got {exact!r}"
cut = truncate("abcdefghij", 4)
assert type(cut) is str, f"truncate must return a str, got {type(cut).__name__}"
assert cut.startswith("abcd"), f"keep the first `limit` characters; got {cut!r}"
assert "[truncated]" in cut, f"a cut text must say so with the marker [truncated]; got {cut!r}"
assert cut == "abcd\n[truncated] cut 6 of 10 characters", (
    f"expected 'abcd\\n[truncated] cut 6 of 10 characters', got {cut!r}")
print("truncate: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "truncate_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: truncate keeps texts of exactly `limit` characters, cuts one character over the
limit, reports the right counts, works for limit 0, non-ASCII text and a long JSON observation."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def check(text, limit, expected):
    with wb.checks.no_raise(f"truncate({text[:30]!r}..., {limit})", hint='truncate works on any text and any limit of 0 or more'):
        got = truncate(text, limit)
    assert type(got) is str, f"truncate must return a str, got {type(got).__name__}"
    assert got == expected, (
        f"truncate(<{len(text)} characters>, {limit}) should be {expected[-60:]!r} at the end "
        f"({len(expected)} characters); got {got[-60:]!r} ({len(got)} characters)")


check("x" * 50, 50, "x" * 50)  # exactly at the limit: nothing is cut, no marker
check("", 10, "")
check("x" * 51, 50, "x" * 50 + "\n[truncated] cut 1 of 51 characters")
check("hello", 0, "\n[truncated] cut 5 of 5 characters")
check("Алматы, 21 °C, солнечно", 6, "Алматы\n[truncated] cut 17 of 23 characters")
observation = json.dumps({"page": 1, "text": "Taxi 2500 KZT; " * 700})
check(observation, 4000, observation[:4000] + f"\n[truncated] cut {len(observation) - 4000} of "
      f"{len(observation)} characters")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · A model going in circles
#
# A step limit ends every loop eventually, but it ends a *stuck* loop late: eight steps of a model
# asking for `get_order(A-1001)` over and over cost eight calls and say nothing more than the
# first. A model that asks for the **same call** — same tool, same arguments — a third time has
# shown that the results are not moving it forward. Stop then, with `STOPPED: loop`.
#
# What counts as "the same call" needs care:
#
# - the **name alone** is not enough: `search_kb` with a new query each time is a model that is
#   searching, not looping (`never_finishes` does that — the step limit handles it);
# - the **raw argument string** is too strict: `{"order_id": "A-1001"}` and
#   `{"order_id":"A-1001"}` are the same request written differently, and models do vary spacing
#   and key order. Compare the arguments as **JSON values**.
#
# The repeats need not be back to back: `goes_in_circles` alternates two look-ups, so each call
# comes back every other step. Count every call of the run.

# %%
for name in ("repeat_forever", "goes_in_circles"):
    scenario = scenarios.get(name)
    llm = FakeLLM(scenario)
    basic_agent(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                Shop().tools(), max_steps=6)
    asked = [m["tool_calls"][0]["function"]["arguments"] for m in llm.requests[-1]["messages"]
             if m.get("tool_calls")]
    print(f"{name:16} asked: {asked}")

# %% [markdown]
# ## Exercise 2 — `call_key` (3 points)
#
# Write `call_key(name, arguments)`, where `arguments` is the JSON **string** from
# `call.function.arguments`. Return a tuple `(name, canonical)` that is equal for two calls
# exactly when they are the same request:
#
# - `canonical` is the arguments re-written in one standard form:
#   `json.dumps(json.loads(arguments), sort_keys=True)` — so spacing and key order do not
#   matter, but every value does;
# - arguments that are not valid JSON cannot be parsed: use the string itself (no exception).
#
# The loop will count keys with a `Counter` and stop when one reaches 3.

# %% nbgrader={"grade": false, "grade_id": "call_key", "locked": false, "schema_version": 3, "solution": true}
def call_key(name, arguments):
    """(name, arguments in canonical JSON): equal for the same request however it is written."""
    ### BEGIN SOLUTION
    try:
        canonical = json.dumps(json.loads(arguments), sort_keys=True)
    except (TypeError, ValueError):
        canonical = arguments
    return (name, canonical)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "call_key_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: call_key returns a hashable tuple starting with the tool name; the same request
with different spacing or key order gives the same key, another order id a different one;
arguments that are not valid JSON are used as they are, without an exception."""
from workbook.checks import fresh

wb = fresh()
a = call_key("get_order", '{"order_id": "A-1001"}')
b = call_key("get_order", '{"order_id":"A-1001"}')
c = call_key("get_order", '{"order_id": "A-1002"}')
assert type(a) is tuple and len(a) == 2 and a[0] == "get_order", (
    f"call_key must return a tuple (name, canonical arguments); got {a!r}")
assert hash(a) == hash(b) and a == b, (
    f"spacing does not make a new request: compare the arguments as JSON values; got {a!r} and {b!r}")
assert a != c, f"a different order id is a different request; both gave {a!r}"
d = call_key("txn_sum", '{"category": "taxi", "month": "2026-09"}')
e = call_key("txn_sum", '{"month": "2026-09", "category": "taxi"}')
assert d == e, f"key order does not make a new request: json.dumps(..., sort_keys=True); got {d!r} and {e!r}"
with wb.checks.no_raise("call_key('get_order', '{\"order_id\": \"A-10')",
                        hint="arguments that are not valid JSON cannot be parsed: use the string itself"):
    broken = call_key("get_order", '{"order_id": "A-10')
assert broken == ("get_order", '{"order_id": "A-10'), (
    f"arguments that are not valid JSON: the key holds the string itself; got {broken!r}")
print("call_key: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "call_key_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: call_key ignores key order (also in nested objects) and escapes, tells apart
different values, tools and extra arguments, and survives arguments that are not valid JSON."""
### BEGIN HIDDEN TESTS
from collections import Counter

from workbook.checks import fresh

wb = fresh()


def key(name, arguments):
    with wb.checks.no_raise(f"call_key({name!r}, {arguments!r})", hint='arguments that are not valid JSON cannot be parsed: use the string itself'):
        k = call_key(name, arguments)
    assert type(k) is tuple and len(k) == 2 and k[0] == name, (
        f"call_key must return a tuple (name, canonical arguments); got {k!r}")
    hash(k)
    return k


same = [
    ('{"category": "taxi", "month": "2026-09"}', '{"month": "2026-09", "category": "taxi"}'),
    ('{"filter": {"b": 1, "a": [1, 2]}}', '{ "filter" : { "a" : [1, 2], "b" : 1 } }'),
    ('{"city": "Алматы"}', '{"city": "\\u0410\\u043b\\u043c\\u0430\\u0442\\u044b"}'),
]
for x, y in same:
    assert key("txn_sum", x) == key("txn_sum", y), (
        f"{x} and {y} are the same request (key order, spacing and escapes do not matter): "
        "compare json.dumps(json.loads(arguments), sort_keys=True)")

different = [
    ('{"category": "taxi", "month": "2026-09"}', '{"category": "taxi", "month": "2026-08"}'),
    ('{"query": "delivery times, attempt 1"}', '{"query": "delivery times, attempt 2"}'),
    ('{"order_id": "A-1001"}', '{"order_id": "A-1001", "customer_id": "C-002"}'),
    ('{"filter": {"a": [1, 2]}}', '{"filter": {"a": [2, 1]}}'),
]
for x, y in different:
    assert key("search_kb", x) != key("search_kb", y), (
        f"{x} and {y} are different requests and need different keys (not the name alone)")
assert key("get_order", '{"order_id": "A-1001"}') != key("get_weather", '{"order_id": "A-1001"}'), (
    "the same arguments for another tool are another request: the key holds the name")

broken = '{"order_id": "A-10'
assert key("get_order", broken) == key("get_order", broken), "the same broken arguments give the same key"
assert key("get_order", broken) != key("get_order", '{"order_id": "A-1001"}'), (
    "broken arguments are compared as text, and differ from the valid call")

seen = Counter()
for arguments in ['{"order_id": "A-1001"}', '{"order_id": "A-1002"}', '{"order_id":"A-1001"}',
                  '{"order_id": "A-1002"}', '{ "order_id": "A-1001" }']:
    seen[key("get_order", arguments)] += 1
assert sorted(seen.values()) == [2, 3], (
    f"counting keys of A-1001, A-1002, A-1001, A-1002, A-1001 must give 3 and 2; got {dict(seen)}")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · How much: steps, tokens and seconds
#
# Three limits are about how much a run has **used**, and they are checked at two moments:
#
# - **before each model call**: have we already made `max_steps` calls? has `timeout_s` passed
#   since the run started? Either one means: do not call the model again.
# - **after each model call**: add this reply's `usage.total_tokens` to the running total.
#   Compare *after* adding: the reply you just received has already been paid for, and it may be
#   the one that went over. A total checked before adding lags one step behind, and lets one more
#   expensive call through.
#
# ### A clock you can pass in
#
# Testing a two-minute timeout by waiting two minutes is no test anyone runs. So the clock is a
# **parameter**: a function that returns the current time in seconds. The real one is
# `time.monotonic` (it never jumps when the system clock is corrected, unlike `time.time`); a
# test passes a fake clock that it moves by hand. Code that calls `time.time()` itself cannot be
# tested this way — and it is exactly the code whose timeout nobody ever saw fire.

# %% nbgrader={"grade": false, "grade_id": "given_fake_clock", "locked": true, "schema_version": 3, "solution": false}
class FakeClock:
    """A clock you move by hand: `clock()` is the time now, `clock.advance(s)` moves it on."""

    def __init__(self, start=1000.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


# %%
clock = FakeClock()
started = clock()
clock.advance(90)  # a slow tool: a minute and a half, in no time at all
print("elapsed:", clock() - started, "seconds")

# %% [markdown]
# ## Exercise 3 — `Budget` (4 points)
#
# Write the class `Budget`, the three "how much" limits of one run:
#
# - `Budget(max_steps=8, max_tokens=60_000, timeout_s=120.0, clock=time.monotonic)` stores its
#   arguments under the same names, starts `steps` and `tokens` at 0, and records
#   `started = clock()`: the run starts when its budget is made;
# - `before_call()` is called before each model call. It returns
#   - `"STOPPED: step limit"` when `max_steps` calls have already been made;
#   - otherwise `"STOPPED: timeout"` when `timeout_s` seconds or more have passed on `clock`
#     since `started`;
#   - otherwise `None`, after counting the call (`steps` goes up by one).
#
#   A call that returns a stop status counts nothing.
# - `after_call(usage)` is called with `response.usage` after each model call. It adds
#   `usage.total_tokens` to `tokens`, then returns `"STOPPED: token budget"` if `tokens` is now
#   more than `max_tokens`, else `None`.
#
# Read the time only through `self.clock`.

# %% nbgrader={"grade": false, "grade_id": "Budget", "locked": false, "schema_version": 3, "solution": true}
class Budget:
    """What one run may use: model calls, tokens, and seconds on `clock`."""

    def __init__(self, max_steps=8, max_tokens=60_000, timeout_s=120.0, clock=time.monotonic):
        ### BEGIN SOLUTION
        self.max_steps, self.max_tokens, self.timeout_s = max_steps, max_tokens, timeout_s
        self.clock = clock
        self.steps = 0
        self.tokens = 0
        self.started = clock()
        ### END SOLUTION

    def before_call(self):
        """Before a model call: None (and count the call), or the stop status."""
        ### BEGIN SOLUTION
        if self.steps >= self.max_steps:
            return "STOPPED: step limit"
        if self.clock() - self.started >= self.timeout_s:
            return "STOPPED: timeout"
        self.steps += 1
        return None
        ### END SOLUTION

    def after_call(self, usage):
        """After a model call: add its tokens; "STOPPED: token budget" when over, else None."""
        ### BEGIN SOLUTION
        self.tokens += usage.total_tokens
        return "STOPPED: token budget" if self.tokens > self.max_tokens else None
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "Budget_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: a Budget stores its arguments and records `started` when it is made; with
max_steps=2 it allows two model calls and then stops with "STOPPED: step limit"; a small usage
stays within the token budget, exactly max_tokens too, the reply that takes the total over it
stops the run; once timeout_s seconds have passed on the clock it was given since the budget was
made, before_call stops with "STOPPED: timeout"."""
import types

def zero():
    return 0.0


budget = Budget(max_steps=2, clock=zero)
stored = tuple(getattr(budget, name, None) for name in ("max_steps", "max_tokens", "timeout_s"))
assert stored == (2, 60_000, 120.0), (
    f"store the arguments under the same names: (max_steps, max_tokens, timeout_s) should be (2, 60000, 120.0); got {stored}")
assert budget.steps == 0 and budget.tokens == 0, (
    f"a new budget starts with steps=0 and tokens=0; got steps={budget.steps!r}, tokens={budget.tokens!r}")
got = [budget.before_call(), budget.before_call(), budget.before_call()]
assert got == [None, None, "STOPPED: step limit"], (
    f"with max_steps=2, three before_call() should give [None, None, 'STOPPED: step limit']; got {got}")
assert budget.steps == 2, f"two calls were allowed, so steps must be 2; got {budget.steps!r}"
usage = types.SimpleNamespace(prompt_tokens=120, completion_tokens=30, total_tokens=150)
assert budget.after_call(usage) is None and budget.tokens == 150, (
    f"150 tokens of 60,000: after_call returns None and tokens becomes 150; got tokens={budget.tokens!r}")
small = Budget(max_tokens=100, clock=lambda: 0.0)
got = small.after_call(usage)
assert got == "STOPPED: token budget", (
    f"150 tokens with max_tokens=100: add the usage first, then compare; after_call gave {got!r}")
got = Budget(max_tokens=150, clock=zero).after_call(usage)
assert got is None, f"150 tokens with max_tokens=150 is not MORE than the budget: after_call gives None; got {got!r}"
now = [500.0]
timed = Budget(timeout_s=10, clock=lambda: now[0])
assert timed.before_call() is None, "a new budget allows the first call"
now[0] = 510.0
got = timed.before_call()
assert got == "STOPPED: timeout", (
    f"10 s passed on the clock given to Budget (read time only through self.clock); before_call gave {got!r}")
now[0] = 500.0
late = Budget(timeout_s=10, clock=lambda: now[0])
assert getattr(late, "started", None) == 500.0, (
    f"record started = clock() when the budget is made; got {getattr(late, 'started', None)!r}")
now[0] = 511.0
got = late.before_call()
assert got == "STOPPED: timeout", (
    "the run starts when its budget is made: 11 s after that, even the first before_call() is "
    f"'STOPPED: timeout'; got {got!r}")
print("Budget: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "Budget_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: Budget stops at exactly max_steps, keeps the stop without counting, reads the time
only through the clock it was given (a fake clock moved past timeout_s stops it), compares the
token total after adding each usage, allows exactly max_tokens, and accepts the SDK's usage."""
### BEGIN HIDDEN TESTS
import types

from workbook.checks import fresh

wb = fresh()


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def usage(total):
    return types.SimpleNamespace(prompt_tokens=total - 10, completion_tokens=10, total_tokens=total)


# Steps: exactly max_steps calls, then the stop, again and again, counting nothing.
for max_steps in (1, 3, 5):
    budget = Budget(max_steps=max_steps, clock=Clock(0.0))
    got = [budget.before_call() for _ in range(max_steps + 2)]
    assert got == [None] * max_steps + ["STOPPED: step limit"] * 2, (
        f"with max_steps={max_steps}, before_call() must allow exactly {max_steps} calls and then keep "
        f"returning 'STOPPED: step limit'; got {got}")
    assert budget.steps == max_steps, f"a refused call is not counted: steps should be {max_steps}, got {budget.steps}"
assert Budget(clock=Clock(0.0)).max_steps == 8, "max_steps defaults to 8"

# Time: only through the injected clock, measured from when the budget was made.
clock = Clock(5000.0)
budget = Budget(timeout_s=120, clock=clock)
assert budget.started == 5000.0, f"started must be clock() when the budget is made; got {budget.started!r}"
clock.now += 60
assert budget.before_call() is None, "60 s of a 120 s timeout: the call may go ahead"
clock.now += 59
assert budget.before_call() is None, "119 s of a 120 s timeout: the call may go ahead"
clock.now += 2
status = budget.before_call()
assert status == "STOPPED: timeout", (
    "121 s passed on the clock the budget was given, so before_call must return 'STOPPED: timeout'; "
    f"got {status!r}. Read the time only through self.clock (never time.time or time.monotonic)")
assert budget.steps == 2, f"the timed-out call is not counted: steps should be 2, got {budget.steps}"
budget = Budget(timeout_s=30, clock=Clock(0.0))
budget.clock.now = 31.5
assert budget.before_call() == "STOPPED: timeout", "a budget made at t=0 has timed out at t=31.5 (timeout 30)"
assert Budget(clock=Clock(0.0)).timeout_s == 120, "timeout_s defaults to 120"

# Tokens: add first, then compare; exactly max_tokens is still within the budget.
budget = Budget(max_tokens=100, clock=Clock(0.0))
assert budget.after_call(usage(60)) is None, "60 of 100 tokens: within the budget"
status = budget.after_call(usage(60))
assert budget.tokens == 120, f"tokens must be the sum of every usage.total_tokens: 120, got {budget.tokens!r}"
assert status == "STOPPED: token budget", (
    "the second reply brought the total to 120 of 100: after_call must return 'STOPPED: token budget' "
    f"for that reply (add its tokens first, then compare); got {status!r}")
budget = Budget(max_tokens=100, clock=Clock(0.0))
assert budget.after_call(usage(40)) is None and budget.after_call(usage(60)) is None, (
    "exactly 100 of 100 tokens is not more than the budget")
assert budget.after_call(usage(1)) == "STOPPED: token budget", "101 of 100 tokens is over the budget"
assert Budget(clock=Clock(0.0)).max_tokens == 60_000, "max_tokens defaults to 60_000"

# The SDK's own usage object, from the fake provider.
scenario = wb.scenarios.taxi_spending()
response = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}], tools=scenario.openai_tools())
budget = Budget(max_tokens=response.usage.total_tokens - 1, clock=Clock(0.0))
assert budget.after_call(response.usage) == "STOPPED: token budget", (
    "after_call takes response.usage and counts its total_tokens")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 6 · Replies that are not answers
#
# `finish_reason` says why the model stopped writing:
#
# | `finish_reason` | meaning | what the loop does |
# |---|---|---|
# | `"stop"` | the model finished its answer | return it: `done` |
# | `"tool_calls"` | the model wants tools run | run them, go on |
# | `"length"` | the reply hit the output-token limit (`max_tokens`) | stop: the text is cut mid-sentence, and a cut tool call has broken arguments |
# | `"content_filter"` | the provider's filter removed the reply | stop: there is nothing to show |
#
# (Anthropic's names: `end_turn`, `tool_use`, `max_tokens`, `refusal`.) A cut-off reply often
# *looks* fine — several correct sentences — which is why it must never be returned as an answer.
# And a tool call cut in the middle must not run: its arguments are not what the model meant.
#
# A reply can also end with `"stop"` and no text at all. That is not an answer either: returning
# `""` as the run's result tells the customer nothing and hides the failure in your logs. Give it a
# status of its own, such as `"STOPPED: empty answer"`. (Exercise 4 keeps to `finish_reason`; the
# empty-text check is one more `if` on top of it.)
#
# Chapter 03's loop already refuses a cut answer, but not a cut call:

# %%
for name, options in [("cut_off", {}), ("content_filtered", {}), ("cut_off", {"in_call": True})]:
    scenario = scenarios.get(name, **options)
    llm = FakeLLM(scenario)
    result = basic_agent(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                         Shop().tools(), max_steps=3)
    print(f"{name:16} {str(options):18} {result}   model calls: {llm.calls}")

# %% [markdown]
# The first two runs stop with a clear status. The third does not: the cut call went through
# `json.loads`, failed, came back as an error observation, and the model was asked again — and
# again, the same cut reply each time, until the step limit. The fix is to look at
# `finish_reason` **first**: anything other than `"stop"` or `"tool_calls"` ends the run, whatever
# else the reply holds.

# %% [markdown]
# ## Exercise 4 — `run_agent` with limits (5 points)
#
# Write `run_agent(client, model, question, tools, impl, max_steps=8, max_tokens=60_000,
# timeout_s=120.0, max_result_chars=4_000, clock=time.monotonic)`. It is `basic_agent` with every
# limit of this chapter. For each step:
#
# 1. **Before** calling the model: stop with `"STOPPED: step limit"` after `max_steps` calls, or
#    `"STOPPED: timeout"` once `timeout_s` seconds have passed on `clock` since the run started
#    (read `clock()` once at the start, and only through `clock`).
# 2. Call the model, add `response.usage.total_tokens` to the run's total, and append the
#    assistant message verbatim.
# 3. `finish_reason` first: anything other than `"stop"` and `"tool_calls"` →
#    `AgentResult(None, f"STOPPED: {finish_reason}", step)`, without running any tool.
# 4. No tool calls: the answer, `AgentResult(content, "done", step)` — even if this reply took the
#    total over the budget (it is already paid for).
# 5. Tool calls, and the total is now more than `max_tokens`: `"STOPPED: token budget"`, without
#    running them.
# 6. For each tool call, count its `call_key`; when a key reaches **3** (the third time this
#    request comes), stop with `"STOPPED: loop"` before running it. Otherwise run it like
#    `tool_message` does and cut its `content` with `truncate(content, max_result_chars)`.
#
# Every stop returns `AgentResult(None, status, steps)` where `steps` is the number of model calls
# made. Nothing raises. You may use your `truncate`, `call_key` and `Budget`.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, question, tools, impl, max_steps=8, max_tokens=60_000,
              timeout_s=120.0, max_result_chars=4_000, clock=time.monotonic):
    """The loop with limits: answer, stop status, and the model calls made."""
    ### BEGIN SOLUTION
    # Written out in full (not with Budget, truncate, call_key) so this exercise is graded on its own.
    messages = [{"role": "user", "content": question}]
    started, tokens, seen = clock(), 0, Counter()
    for step in range(1, max_steps + 1):
        if clock() - started >= timeout_s:
            return AgentResult(None, "STOPPED: timeout", step - 1)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        tokens += response.usage.total_tokens
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        if choice.finish_reason not in ("stop", "tool_calls"):
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        if not message.tool_calls:
            return AgentResult(message.content, "done", step)
        if tokens > max_tokens:
            return AgentResult(None, "STOPPED: token budget", step)
        for call in message.tool_calls:
            try:
                key = (call.function.name, json.dumps(json.loads(call.function.arguments), sort_keys=True))
            except ValueError:
                key = (call.function.name, call.function.arguments)
            seen[key] += 1
            if seen[key] >= 3:
                return AgentResult(None, "STOPPED: loop", step)
            tool_msg = tool_message(call, impl)
            content = tool_msg["content"]
            if len(content) > max_result_chars:
                content = (f"{content[:max_result_chars]}\n[truncated] cut "
                           f"{len(content) - max_result_chars} of {len(content)} characters")
            messages.append({**tool_msg, "content": content})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers the taxi question in two model calls, also when the answer takes
the total over the token budget, and stops a model that never finishes after max_steps calls with
"STOPPED: step limit"; it stops on the token budget (without running the reply's tools), on the
clock it was given ("STOPPED: timeout"), on a call asked for the third time ("STOPPED: loop", not
only back to back, before running it), and on a tool call cut off by the token limit (without
running it); it cuts a long tool result with the [truncated] marker."""

from workbook.checks import fresh

wb = fresh()


def run(scenario, impl, **limits):
    llm = wb.fake_llm.FakeLLM(scenario)
    with wb.checks.no_raise("run_agent", hint="every stop must be a status"):
        r = run_agent(llm.client(max_calls=12), "fake-model", scenario.question, scenario.openai_tools(), impl,
                      **limits)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, r


scenario = wb.scenarios.taxi_spending()
llm, r = run(scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), (
    f"expected AgentResult({scenario.answer!r}, 'done', 2), got {r!r}")
llm, r = run(wb.scenarios.never_finishes(), {"search_kb": lambda query: {"hits": []}}, max_steps=3)
assert (r.answer, r.status, r.steps, llm.calls) == (None, "STOPPED: step limit", 3, 3), (
    f"with max_steps=3 a model that never finishes is called 3 times and stopped; got {r!r} "
    f"after {llm.calls} model calls")
shop = wb.shop.Shop("C-001")
llm, r = run(scenario, shop.tools(), max_tokens=1)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: token budget", 1), (
    f"with max_tokens=1 the first reply (a tool call) is over the budget; got {r!r}")
assert shop.log == [], f"the tool calls of a reply over the budget must not run; the shop saw {shop.log}"
first = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).usage.total_tokens
llm, r = run(scenario, wb.shop.Shop("C-001").tools(), max_tokens=first + 1)
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), (
    "an answer that takes the total over the budget is still the answer (it is already paid for): check the "
    f"budget only for a reply with tool calls; got {r!r}")

now = [0.0]


def slow_search(query):
    now[0] += 50  # a search takes 50 s on the clock passed to run_agent
    return {"hits": []}


llm, r = run(wb.scenarios.never_finishes(), {"search_kb": slow_search}, clock=lambda: now[0], timeout_s=120)
assert (r.status, r.steps) == ("STOPPED: timeout", 3), (
    f"three 50 s searches use up a 120 s timeout on the clock you were given; expected 'STOPPED: timeout' "
    f"after 3 model calls, got {r!r}. Read the time only through the clock parameter")

shop = wb.shop.Shop("C-001")
llm, r = run(wb.scenarios.goes_in_circles(), shop.tools())
assert (r.status, r.steps) == ("STOPPED: loop", 5), (
    "A-1001, A-1002, A-1001, A-1002, A-1001: the third A-1001 comes at step 5 (count every call of the run "
    f"by call_key, not only the previous one); got {r!r}")
assert len(shop.log) == 4, (
    f"stop before running the call asked for the third time: 4 calls run, not 5; the shop saw {len(shop.log)}")

big = {"fetch_report": lambda page: {"page": page, "text": "Taxi 2500 KZT; " * 400}}
llm, r = run(wb.scenarios.token_hog(pages=1), big, max_result_chars=300)
sent = [m for m in llm.requests[-1]["messages"] if m.get("role") == "tool"]
assert sent and "[truncated] cut" in str(sent[0].get("content")) and len(sent[0]["content"]) < 400, (
    "a long tool result is cut to max_result_chars with the [truncated] marker (use truncate) before the "
    f"model sees it; it saw {str(sent[0].get('content') if sent else None)[-60:]!r}")

shop = wb.shop.Shop("C-001")
llm, r = run(wb.scenarios.get("cut_off", in_call=True), shop.tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1) and shop.log == [], (
    "a tool call cut off by the token limit must not run: read finish_reason first; got "
    f"{r!r}, and the shop saw {shop.log}")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent makes exactly max_steps calls; stops on the token budget at the reply that
went over (but returns an answer that did); times out on the injected clock; stops a repeated call
on its third time (name and arguments, not back to back) and not a model that varies its
arguments; cuts long tool results with the marker; stops on "length" and "content_filter"
without running a cut call; and never raises."""
### BEGIN HIDDEN TESTS
import json
import types

from workbook.checks import fresh

wb = fresh()


class Clock:
    def __init__(self, now=100.0):
        self.now = now

    def __call__(self):
        return self.now


class Recording:
    """Passes create() on to a fake client at most `cap` times, records each usage, and moves a
    clock on by `seconds` per call (a slow provider)."""

    LINK_DATA = ("chat",)  # graded, what the notebook may read of it besides its methods

    def __init__(self, client, cap, clock=None, seconds=0):
        self.client, self.cap, self.clock, self.seconds = client, cap, clock, seconds
        self.totals = []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        if len(self.totals) >= self.cap:
            raise AssertionError(f"the model was called more than {self.cap} times: a limit did not stop the run")
        response = self.client.chat.completions.create(**kwargs)
        self.totals.append(response.usage.total_tokens)
        if self.clock is not None:
            self.clock.now += self.seconds
        return response


def run(scenario, impl, cap=12, clock=None, seconds=0, **limits):
    llm = wb.fake_llm.FakeLLM(scenario)
    client = Recording(llm.client(), cap, clock, seconds)
    if clock is not None:
        limits["clock"] = clock
    with wb.checks.no_raise("run_agent", hint="every stop must be a status, never an exception"):
        r = run_agent(client, "fake-model", scenario.question, scenario.openai_tools(), impl, **limits)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, client, r


search = {"search_kb": lambda query: {"hits": []}}

# Step limit: exactly max_steps calls.
for max_steps in (1, 4):
    llm, client, r = run(wb.scenarios.never_finishes(), search, max_steps=max_steps)
    assert (r.answer, r.status, r.steps, llm.calls) == (None, "STOPPED: step limit", max_steps, max_steps), (
        f"max_steps={max_steps}: expected AgentResult(None, 'STOPPED: step limit', {max_steps}) after "
        f"{max_steps} model calls; got {r!r} after {llm.calls}")
llm, client, r = run(wb.scenarios.never_finishes(), search)
assert (r.status, r.steps, llm.calls) == ("STOPPED: step limit", 8, 8), f"max_steps defaults to 8; got {r!r}"

# Token budget: stop at the reply that took the total over, before running its tools.
pages = []


def fetch_report(page):
    pages.append(page)
    return {"page": page, "text": "Taxi 2500 KZT; food 5400 KZT; " * 10}


llm, client, r = run(wb.scenarios.token_hog(pages=8), {"fetch_report": fetch_report}, cap=12, max_steps=12)
totals, running = client.totals, 0
cumulative = [running := running + t for t in totals]
assert r.status == "done" and len(totals) == 9, f"test set-up: token_hog(8) answers in 9 steps; got {r!r}"
budget = cumulative[3] + 1  # the 5th call takes the total over
pages.clear()
llm, client, r = run(wb.scenarios.token_hog(pages=8), {"fetch_report": fetch_report}, cap=12, max_steps=12, max_tokens=budget)
assert (r.answer, r.status) == (None, "STOPPED: token budget"), (
    f"max_tokens={budget}: the run must stop with 'STOPPED: token budget'; got {r!r}")
assert r.steps == 5 and llm.calls == 5, (
    f"the 5th reply took the total over {budget} tokens (running totals {cumulative[:6]}): stop right after "
    f"it, with steps=5; got steps={r.steps} after {llm.calls} model calls. Add each reply's usage before "
    "comparing with the budget")
assert pages == [1, 2, 3, 4], f"the tools of the reply over budget must not run; pages read: {pages}"
llm, client, r = run(wb.scenarios.token_hog(pages=8), {"fetch_report": fetch_report}, cap=12, max_steps=12,
                     max_tokens=cumulative[4])
assert r.status == "STOPPED: token budget" and r.steps == 6, (
    f"a total of exactly max_tokens is not over it: with max_tokens={cumulative[4]} the 6th reply goes over; got {r!r}")
taxi = wb.scenarios.taxi_spending()
llm, client, r = run(taxi, wb.shop.Shop("C-001").tools(), max_tokens=1)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: token budget", 1), (
    f"with max_tokens=1 the first reply (a tool call) is already over; got {r!r}")
first = client.totals[0]
llm, client, r = run(taxi, wb.shop.Shop("C-001").tools(), max_tokens=first + 1)
assert (r.answer, r.status, r.steps) == (taxi.answer, "done", 2), (
    f"a final answer that takes the total over the budget is still an answer (it is paid for); got {r!r}")

# Timeout: on the injected clock only; each model call here takes 10 s.
clock = Clock(1000.0)
llm, client, r = run(wb.scenarios.never_finishes(), search, clock=clock, seconds=10, timeout_s=25)
assert (r.answer, r.status, r.steps) == (None, "STOPPED: timeout", 3), (
    "calls at t=0, 10 and 20 s; at t=30 s a 25 s timeout has passed: expect "
    f"AgentResult(None, 'STOPPED: timeout', 3); got {r!r}. Measure time with the clock parameter only")
clock = Clock(0.0)
slow = {"search_kb": lambda query: (setattr(clock, "now", clock.now + 50), {"hits": []})[1]}
llm, client, r = run(wb.scenarios.never_finishes(), slow, clock=clock, timeout_s=120)
assert (r.status, r.steps) == ("STOPPED: timeout", 3), (
    f"a slow tool (50 s per search) uses up a 120 s timeout after 3 model calls; got {r!r}")
clock = Clock(0.0)
llm, client, r = run(wb.scenarios.taxi_spending(), wb.shop.Shop("C-001").tools(), clock=clock, seconds=50)
assert r.status == "done", f"two 50 s calls fit in the default 120 s timeout; got {r!r}"

# Loops: the third time the same (name, arguments) comes, even not back to back.
shop = wb.shop.Shop("C-001")
llm, client, r = run(wb.scenarios.repeat_forever(), shop.tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: loop", 3), (
    f"get_order(A-1001) asked for the third time: expect AgentResult(None, 'STOPPED: loop', 3); got {r!r}")
assert len(shop.log) == 2, f"the first two calls run, the third does not; the shop saw {len(shop.log)} calls"
shop = wb.shop.Shop("C-001")
llm, client, r = run(wb.scenarios.goes_in_circles(), shop.tools())
assert (r.status, r.steps) == ("STOPPED: loop", 5), (
    "A-1001, A-1002, A-1001, A-1002, A-1001: the third A-1001 comes at step 5 (count every call of the "
    f"run by name and arguments, not only the previous one, not the name alone); got {r!r}")
llm, client, r = run(wb.scenarios.never_finishes(), search, max_steps=6)
assert r.status == "STOPPED: step limit", (
    f"search_kb with a new query every step is not a loop (the arguments differ); got {r!r}")

# Tool-result size: cut, with the marker, in what the model sees next.
big = {"fetch_report": lambda page: {"page": page, "text": "Taxi 2500 KZT; " * 400}}
llm, client, r = run(wb.scenarios.token_hog(pages=1), big, max_result_chars=300)
assert r.status == "done", f"test set-up: token_hog(1) answers after one page; got {r!r}"
sent = [m for m in llm.requests[1]["messages"] if m.get("role") == "tool"]
full = json.dumps({"page": 1, "text": "Taxi 2500 KZT; " * 400}, ensure_ascii=False)
assert len(sent) == 1 and type(sent[0].get("content")) is str, f"one tool message expected; got {sent!r}"
assert sent[0]["content"] == f"{full[:300]}\n[truncated] cut {len(full) - 300} of {len(full)} characters", (
    f"a {len(full)}-character result with max_result_chars=300 must reach the model as its first 300 "
    f"characters plus the [truncated] marker; it got {len(sent[0]['content'])} characters ending "
    f"{sent[0]['content'][-50:]!r}")
small = {"fetch_report": lambda page: {"page": page}}
llm, client, r = run(wb.scenarios.token_hog(pages=1), small, max_result_chars=300)
sent = [m for m in llm.requests[1]["messages"] if m.get("role") == "tool"]
assert sent[0]["content"] == '{"page": 1}', f"a short result must not be changed; got {sent[0]['content']!r}"
llm, client, r = run(wb.scenarios.token_hog(pages=1), big)
sent = [m for m in llm.requests[1]["messages"] if m.get("role") == "tool"]
assert "[truncated] cut" in sent[0]["content"] and sent[0]["content"].startswith(full[:4000]), (
    "max_result_chars defaults to 4000")

# Replies that are not answers.
shop = wb.shop.Shop("C-001")
llm, client, r = run(wb.scenarios.cut_off(), shop.tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 2), (
    f"a reply cut off by the token limit (finish_reason 'length') is not an answer; got {r!r}")
shop = wb.shop.Shop("C-001")
llm, client, r = run(wb.scenarios.get("cut_off", in_call=True), shop.tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1), (
    f"a tool call cut off by the token limit must not run: check finish_reason first; got {r!r}")
assert shop.log == [], f"the cut call must not reach the tool; the shop saw {shop.log}"
llm, client, r = run(wb.scenarios.content_filtered(), shop.tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: content_filter", 1), (
    f"a filtered reply stops the run with 'STOPPED: content_filter'; got {r!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## The loop at work
#
# Your `run_agent` against the scenarios of this chapter, each with a fresh session. The search
# tool here is slow — 45 seconds on a fake clock — so the timeout has something to catch.

# %%
clock = FakeClock()


def slow_search(query):
    """A search that takes 45 s (on the fake clock)."""
    clock.advance(45)
    return {"hits": []}


runs = [("taxi_spending", {}), ("repeat_forever", {}), ("goes_in_circles", {}),
        ("never_finishes", {"timeout_s": 100}), ("token_hog", {"max_tokens": 3_000}),
        ("cut_off", {}), ("content_filtered", {})]
for name, limits in runs:
    scenario = scenarios.get(name)
    impl = {**Shop("C-001").tools(), "search_kb": slow_search, "fetch_report": report_page}
    result = run_agent(FakeLLM(scenario).client(), "fake-model", scenario.question,
                       scenario.openai_tools(), impl, clock=clock, **limits)
    print(f"{name:17} {str(limits):22} {result.status:24} steps={result.steps}")

# %% [markdown]
# Every run ended, and every status says how. None of them raised.

# %% [markdown]
# ## Part 7 · A stop after a tool acted
#
# A person takes over every run that is not `done`, and the first thing they need to know is
# whether anything has already happened. `STOPPED: loop` reads as "nothing was done; run it again".
# Here is a run it would mislead: the model asks for a refund, the payment provider does not answer
# in time, the model asks again, and again, and the third request is stopped as a loop.

# %%
def refund(order_id, amount):
    """The payment provider does not answer: the refund may or may not have gone through."""
    raise TimeoutError("the payment provider did not answer within 30 s")


scenario = scenarios.refund_with_timeout()
print(run_agent(FakeLLM(scenario).client(), "fake-model", scenario.question, scenario.openai_tools(),
                {"refund": refund}))

# %% [markdown]
# The refund ran twice. A timeout says nothing about the outcome (chapter 08): the money may have
# gone out once, twice or not at all. Whoever runs this again, or tells the customer "nothing
# happened", may refund twice. The status has to say it: `STOPPED: loop after refund ran`.
#
# Tools that only **read** (`get_order`, `txn_sum`, `search_kb`) change nothing, and a run that
# stopped after them can simply run again. Tools that **write** (`refund`, `card_block`,
# `write_note`) act on the world. Which tools write is something your code knows, not the model:
# it is a list you keep next to the tools.

# %% [markdown]
# ## Exercise 5 — `report_actions` (3 points)
#
# Write `report_actions(run, impl, writes)`:
#
# - `run` is the loop with everything but its tools filled in: a function that takes a tools dict
#   and returns an `AgentResult`, e.g. `lambda tools: run_agent(client, model, question, schemas,
#   tools)`. `impl` is the tools by name, `writes` the names of the tools that write.
# - Call `run` once, with a **new** dict of the same tools in which each tool named in `writes`
#   first notes its name and then calls the real tool, returning what it returns (an exception goes
#   on as it is: the loop turns it into an observation). Note the name **before** the call: a write
#   that raised or timed out may still have acted. Tools not in `writes` go in as they are, and
#   `impl` itself does not change.
# - When the result's status is not `"done"` and a write tool was called, return
#   `AgentResult(result.answer, f"{result.status} after {names} ran", result.steps)`, where `names`
#   are the write tools called, each once, in the order of their first call, joined by `", "`
#   (`"STOPPED: timeout after refund, write_note ran"`). Otherwise return the result as it is: a
#   `done` run tells what it did in its answer, and a stop after reads only can simply run again.
#
# Chapter 20 counts how often each limit stops the runs of an evaluation; it reads the limit
# before `" after "`, so a timeout after a refund still counts as a timeout.

# %% nbgrader={"grade": false, "grade_id": "report_actions", "locked": false, "schema_version": 3, "solution": true}
def report_actions(run, impl, writes):
    """Run the loop with its writing tools watched: a stop after one of them ran says so in its status."""
    ### BEGIN SOLUTION
    acted = []

    def watched(name, tool):
        def call(*args, **kwargs):
            if name not in acted:
                acted.append(name)  # before the call: a write that fails may still have acted
            return tool(*args, **kwargs)
        return call

    tools = {name: watched(name, tool) if name in writes else tool for name, tool in impl.items()}
    result = run(tools)
    if result.status == "done" or not acted:
        return result
    return AgentResult(result.answer, f"{result.status} after {', '.join(acted)} ran", result.steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "report_actions_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: report_actions adds "after refund ran" to a stop that came after a refund, with
the answer and the steps kept; a stop after reads only and a done run keep their status; a refund
that raised still counts, and its exception reaches the loop as it is; each write tool is named
once, in order, and each wrapped tool calls its own tool and returns its result."""
import dataclasses
from dataclasses import dataclass

from workbook.checks import fresh

#@include 02_the_loop AgentResult


wb = fresh()
calls = []


def get_order(order_id):
    calls.append(("get_order", order_id))
    return {"order_id": order_id, "status": "shipped"}


def refund(order_id, amount):
    calls.append(("refund", order_id))
    return {"refunded": amount, "order_id": order_id}


def card_block():
    calls.append(("card_block",))
    return {"blocked": True}


def failing_refund(order_id, amount):
    raise RuntimeError("the payment provider did not answer")


def check(got, status, what):
    assert wb.checks.kind(got) == "AgentResult", (
        f"{what}: report_actions returns an AgentResult, got {type(got).__name__}: {got!r}")
    wb.checks.equal((got.answer, got.status, got.steps), (None, status, 3) if status != "done" else ("Done.", status, 2),
                    what, hint="keep the answer and the steps; add ' after <write tools> ran' to a stop only")


def stopped(*steps, status="STOPPED: step limit"):
    """A stand-in loop: calls the tools as the model asked, then stops."""
    def run(tools):
        for name, kwargs in steps:
            try:
                tools[name](**kwargs)
            except Exception:
                pass  # call_tool turns it into an observation
        return AgentResult(None, status, 3) if status != "done" else AgentResult("Done.", "done", 2)
    return run


impl = {"get_order": get_order, "refund": refund, "card_block": card_block}
writes = {"refund", "card_block"}
with wb.checks.no_raise("report_actions(run, impl, writes)",
                        hint="call run once with a new dict of the tools, each write tool wrapped"):
    got = report_actions(stopped(("get_order", {"order_id": "A-1001"}), ("refund", {"order_id": "A-1001", "amount": 2450})),
                         impl, writes)
check(got, "STOPPED: step limit after refund ran", "a step limit after get_order and refund")
assert calls == [("get_order", "A-1001"), ("refund", "A-1001")], (
    f"each tool in the new dict calls its own tool, once per call; the tools saw {calls}")
got = report_actions(stopped(("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"})), impl, writes)
check(got, "STOPPED: step limit", "a step limit after two get_order calls (reads only)")
got = report_actions(stopped(("refund", {"order_id": "A-1001", "amount": 2450}), status="done"), impl, writes)
check(got, "done", "a done run after a refund")
got = report_actions(stopped(("refund", {"order_id": "A-1001", "amount": 2450}), status="STOPPED: timeout"),
                     {**impl, "refund": failing_refund}, writes)
check(got, "STOPPED: timeout after refund ran", "a timeout after a refund that raised")
calls.clear()
got = report_actions(stopped(("refund", {"order_id": "A-1001", "amount": 2450}), ("card_block", {}),
                             ("refund", {"order_id": "A-1002", "amount": 1290}), status="STOPPED: loop"), impl, writes)
check(got, "STOPPED: loop after refund, card_block ran", "a loop stop after refund, card_block and refund again")
assert calls == [("refund", "A-1001"), ("card_block",), ("refund", "A-1002")], (
    f"each wrapped tool must call its own tool (in a loop, bind the name and the tool for each one); the tools saw {calls}")
returned = []
report_actions(lambda tools: returned.append(tools["refund"](order_id="A-1", amount=5)) or AgentResult("ok", "done", 1),
               impl, writes)
wb.checks.equal(returned, [{"refunded": 5, "order_id": "A-1"}], "what the wrapped refund returned to the loop",
                hint="return the real tool's result")
raised = []


def loop_sees(tools):
    try:
        tools["refund"](order_id="A-1001", amount=2450)
    except RuntimeError:
        raised.append("RuntimeError")
    return AgentResult(None, "STOPPED: timeout", 1)


report_actions(loop_sees, {**impl, "refund": failing_refund}, writes)
assert raised == ["RuntimeError"], (
    "an exception of a write tool goes on to the loop as it is (the loop turns it into an observation): "
    "note the name, then call the tool, without a try around it")
print("report_actions: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "report_actions_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: every stop status keeps its text before " after "; writes as a list, a tuple or
empty; a write tool the run never calls; run called once; positional arguments; the real loop on
the refund that times out."""
### BEGIN HIDDEN TESTS
import dataclasses
import json
from dataclasses import dataclass

from workbook.checks import fresh

#@include 02_the_loop AgentResult


wb = fresh()


def tool(name, seen):
    def call(*args, **kwargs):
        seen.append((name, args, kwargs))
        return {"tool": name}
    return call


def run_calling(names, status, answer=None, steps=4):
    runs = []

    def run(tools):
        runs.append(sorted(tools))
        for name in names:
            tools[name](order_id="A-1001")
        return AgentResult(answer, status, steps)
    return run, runs


seen = []
impl = {name: tool(name, seen) for name in ("get_order", "refund", "write_note", "card_block")}
for status in ("STOPPED: token budget", "STOPPED: length", "STOPPED: empty answer", "STOPPED: timeout"):
    run, runs = run_calling(["write_note", "get_order", "refund", "write_note"], status)
    got = report_actions(run, impl, ["refund", "write_note"])
    assert wb.checks.kind(got) == "AgentResult", f"an AgentResult, got {got!r}"
    wb.checks.equal((got.answer, got.status, got.steps), (None, f"{status} after write_note, refund ran", 4),
                    f"report_actions on {status}")
    wb.checks.equal(runs, [["card_block", "get_order", "refund", "write_note"]], "run is called once, with every tool")
run, runs = run_calling(["refund"], "STOPPED: loop")
wb.checks.equal(report_actions(run, impl, ("refund",)).status, "STOPPED: loop after refund ran", "writes as a tuple")
run, runs = run_calling(["refund"], "STOPPED: loop")
wb.checks.equal(report_actions(run, impl, []).status, "STOPPED: loop", "no write tools")
run, runs = run_calling(["get_order"], "STOPPED: loop")
wb.checks.equal(report_actions(run, impl, {"refund", "cancel_order"}).status, "STOPPED: loop",
                "a write tool never called, and one that is not in impl")
run, runs = run_calling(["refund"], "done", answer="Refunded.")
got = report_actions(run, impl, {"refund"})
wb.checks.equal((got.answer, got.status, got.steps), ("Refunded.", "done", 4), "a done run after a refund")
seen.clear()
got = report_actions(lambda tools: (tools["refund"]("A-1", 5), AgentResult(None, "STOPPED: step limit", 1))[1],
                     impl, {"refund"})
wb.checks.equal(got.status, "STOPPED: step limit after refund ran", "a write called with positional arguments")
wb.checks.equal(seen, [("refund", ("A-1", 5), {})], "the real tool gets the same arguments")

S = wb.scenarios
scenario = S.refund_with_timeout()


def timed_out(order_id, amount):
    raise TimeoutError("the payment provider did not answer within 30 s")


def loop(tools):
    """Chapter 03's loop, at most 3 model calls: the tool calls until the model answers."""
    client = wb.fake_llm.FakeLLM(scenario).client(max_calls=3)
    messages = [{"role": "user", "content": scenario.question}]
    for step in range(1, 4):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenario.openai_tools()).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return AgentResult(message.content, "done", step)
        for call in message.tool_calls:
            try:
                result = tools[call.function.name](**json.loads(call.function.arguments))
            except Exception as e:
                result = {"error": f"{type(e).__name__}: {e}"}
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    return AgentResult(None, "STOPPED: step limit", 3)


got = report_actions(loop, {"refund": timed_out}, {"refund"})
wb.checks.equal((got.answer, got.status, got.steps), (None, "STOPPED: step limit after refund ran", 3),
                "the refund that timed out three times")
print("report_actions: hidden tests passed")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the impl it handed report_actions, so only it can see whether
# that dict changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(report_actions, lambda tools: AgentResult("Done.", "done", 1), {"refund": lambda **kw: kw}, {"refund"}))

# %% [markdown]
# The run from the start of this part, reported:

# %%
scenario = scenarios.refund_with_timeout()
print(report_actions(lambda tools: run_agent(FakeLLM(scenario).client(), "fake-model", scenario.question,
                                             scenario.openai_tools(), tools),
                     {"refund": refund}, writes={"refund"}))

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **Checking the budget before adding the last usage.** `if tokens > max_tokens: stop` at the top
#   of the step, then `tokens += usage`: the check always lags one reply behind, so the reply that
#   went over gets its tools run and one more model call is paid for.
# - **An off-by-one step limit.** `range(max_steps)` with `step + 1` forgotten, `steps > max_steps`
#   instead of `>=`, or counting before checking: one call too many or too few. Test with
#   `max_steps=1`.
# - **Truncating without a marker.** `content[:limit]` silently hands the model half a document,
#   which it will treat as the whole. Say that it was cut, and by how much.
# - **A loop detector keyed on the name only.** It stops a model that is searching with new
#   queries (`never_finishes`) as if it were stuck. Key on name *and* arguments.
# - **Comparing raw argument strings,** or only the previous call: spacing, key order and
#   alternating calls (`goes_in_circles`) slip through.
# - **`time.time()` inside the loop.** The injected clock is ignored, so no test can make the
#   timeout fire — and `time.time` can jump when the system clock is corrected. Use `clock`.
# - **Trusting a reply with text.** `finish_reason == "length"` with three good sentences is still
#   a cut reply; a cut tool call has arguments the model never finished.
# - **Raising on a limit.** `raise TimeoutError(...)` loses the conversation and the reason. Return
#   `AgentResult(None, "STOPPED: ...", steps)`.
# - **A stop that hides what acted.** A status without `after refund ran` reads as "nothing
#   happened"; so does one that lists a write only when it succeeded (a refund that timed out may
#   have gone through), and one that counts reads, which change nothing, as actions.
# - **The status changed for a done run,** or a write named as often as it ran: `done` keeps its
#   status, and `after refund, refund ran` is one refund too many to read.
# - **Wrapping tools in a loop without binding each one.** `for name in writes: wrapped[name] =
#   lambda **kw: impl[name](**kw)` makes every wrapper call the last tool of the loop; pass the name
#   and the tool to a function that makes the wrapper. And give `run` a new dict: wrapping `impl` in
#   place changes the caller's tools (not graded: only your kernel can see it; the cell after the
#   tests checks it).

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("06_limits")

# %% [markdown]
# ## Live cell (optional)
#
# Your `run_agent` against a real model, with a small budget so you can watch a limit fire: real
# usage numbers differ from the fake's, but they grow the same way. It runs only when
# `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        scenario = scenarios.taxi_spending()
        for limits in ({"max_tokens": 20_000}, {"max_tokens": 300}):
            live = run_agent(live_client, live_model, scenario.question, scenario.openai_tools(),
                             Shop("C-001").tools(), max_steps=5, timeout_s=60, **limits)
            print(limits, live)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **07 · What only code decides**: limits say *how much* an agent may do; the next chapter is about
# *what* it may do at all. Identity from the session, confirmation from the customer, and three
# tools — `read_file`, `write_note`, `calculate` — that cannot do more than they should, whatever
# the model asks.
