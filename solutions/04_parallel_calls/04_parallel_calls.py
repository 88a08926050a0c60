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
# # 04 · Parallel tool calls
#
# A customer writes "Where are my orders A-1001 and A-1002?". The model does not ask for one
# look-up, wait, and ask for the next: it asks for **both in one reply**. `message.tool_calls` is a
# list, and from now on your loop treats it as one: every call in it runs, every call gets its own
# answer, and all the answers go back together before the model is called again.
#
# Running several calls raises a question a single call never did: **may they run at the same
# time?** Two look-ups can; they change nothing. Two refunds must not: each one checks the order
# and then moves money, and two of them interleaved can pay the customer twice. Your code, not the
# model, makes that decision.
#
# **Learning goals.** After this chapter you can
# - run every tool call of a reply and answer each one under its own `tool_call_id`, all in the
#   same round, right after the assistant turn and before the next model call;
# - say why a provider refuses results sent one round at a time;
# - tell reads from actions that change state, with an allow-list your code owns;
# - plan a reply's calls as batches: neighbouring reads together, each action alone, in the order
#   the model asked;
# - run a batch of reads at the same time with a thread pool, and keep the results in the order of
#   the calls even when they finish in another order.
#
# **Time:** about 60 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (tool calls with ids, `tool` messages, `run_agent`,
# `AgentResult`). What you need from it is restated below as given code.

# %% [markdown]
# ## Given code from chapter 03
#
# `AgentResult` and `call_tool` as before, and `execute(name, arguments, impl)`: chapter 03's
# handling of one tool call, from the JSON-string arguments to the JSON text that goes into the
# `tool` message. Broken JSON and failing tools become `{"error": ...}` observations; chapter 05
# writes an `execute` with the same arguments whose errors are much better.
#
# Two new pieces. `READ_ONLY` names the shop's tools that only read. `refund_tool(shop)` is a toy
# refund for the logged-in customer: it checks the order, waits a moment for the payment provider,
# then marks the order refunded (and refuses to refund it twice).

# %% nbgrader={"grade": false, "grade_id": "given_chapter_03", "locked": true, "schema_version": 3, "solution": false}
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import SCHEMAS, Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


def execute(name, arguments, impl):
    """One tool call, from its JSON-string arguments to the text of its `tool` message."""
    try:
        args = json.loads(arguments)
    except json.JSONDecodeError as e:
        result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
    else:
        result = (call_tool(impl, name, args) if isinstance(args, dict)
                  else {"error": "arguments must be one JSON object"})
    return json.dumps(result, ensure_ascii=False, default=str)


# The tools that only read. Anything else, including a tool this list has never heard of,
# is treated as an action that changes state.
READ_ONLY = frozenset({"txn_sum", "get_order", "get_weather", "search_kb"})


def refund_tool(shop, seconds=0.05):
    """A refund for the session's customer: check the order, wait for the payment provider, act."""
    def refund(order_id: str, amount: int) -> dict:
        shop.log.append(("refund", {"order_id": order_id, "amount": amount}))
        order = shop.orders.get(order_id)
        if order is None or order["customer"] != shop.customer_id:
            raise KeyError(f"no order {order_id!r} for this customer")
        if order["status"] == "refunded":
            raise ValueError(f"order {order_id} is already refunded")
        if amount > order["total"]:
            raise ValueError(f"at most {order['total']} KZT can be refunded for order {order_id}")
        time.sleep(seconds)  # the payment provider takes a moment
        order["status"] = "refunded"
        return {"order_id": order_id, "refunded_kzt": amount, "status": "refunded"}

    return refund


def shop_tools(shop):
    """The impl dict for a session: the shop's own tools plus refund."""
    return {**shop.tools(), "refund": refund_tool(shop)}


# %% [markdown]
# ## Part 1 · One reply, several calls
#
# Ask the `two_orders` scenario its question and look at the reply:

# %%
llm = FakeLLM(scenarios.two_orders())
client = llm.client()
TOOLS = [SCHEMAS["get_order"]]
messages = [{"role": "user", "content": "Where are my orders A-1001 and A-1002?"}]
reply = client.chat.completions.create(model="fake-model", messages=messages, tools=TOOLS)
message = reply.choices[0].message
print("finish_reason:", reply.choices[0].finish_reason)
for call in message.tool_calls:
    print(f"  {call.id}  {call.function.name}({call.function.arguments})")

# %% [markdown]
# Two calls, two ids. OpenAI calls this **parallel tool calling**; it is on by default
# (`parallel_tool_calls=true`). "Parallel" describes the *request*: the model asks for several
# things at once. It says nothing about how your code runs them — that is decided below.
#
# What the provider expects next, and refuses with 400 otherwise:
#
# ```
#  user        Where are my orders A-1001 and A-1002?
#  assistant   tool_calls: [call_1 get_order(A-1001), call_2 get_order(A-1002)]   ← verbatim
#  tool        tool_call_id=call_1   {"order_id": "A-1001", ... "status": "shipped"}
#  tool        tool_call_id=call_2   {"order_id": "A-1002", ... "status": "processing"}
#  ── only now: the next chat.completions.create ──
# ```
#
# 1. **Every** call runs and gets exactly one `tool` message, under its own id.
# 2. All of them come **right after** the assistant turn, nothing in between.
# 3. The next request goes out only when **all** of them are there. A round is: one reply, all its
#    results.
#
# Keep the `tool` messages in the order of the calls. The provider pairs them by id, but a
# transcript in a stable order is one you can read, diff and test.

# %%
shop = Shop("C-001")
messages.append(message.model_dump(exclude_none=True))
for call in message.tool_calls:
    messages.append({"role": "tool", "tool_call_id": call.id,
                     "content": execute(call.function.name, call.function.arguments, shop.tools())})
final = client.chat.completions.create(model="fake-model", messages=messages, tools=TOOLS)
print(final.choices[0].message.content)

# %% [markdown]
# A loop written for one call at a time often sends the first result, calls the model, and means
# to send the second one "next round". The provider sees an assistant turn with an unanswered id
# and refuses the whole request:

# %%
half_round = messages[:3]  # question, assistant turn, only the first result
try:
    client.chat.completions.create(model="fake-model", messages=half_round, tools=TOOLS)
except Exception as e:
    print(f"{type(e).__name__}: {e}")

# %% [markdown]
# ## Part 2 · Reads and actions
#
# `get_order` only reads. Running two of them at the same time is safe, and faster when each
# waits on a database or a network. `refund` **changes state**: it checks that the order is not
# refunded yet, waits for the payment provider, and only then marks it refunded. Run two refunds of
# the same order at the same time, and both checks happen before either mark:

# %%
def refund_twice(at_the_same_time):
    """The model asked for the same refund twice in one reply. What does the customer get?"""
    impl = {"refund": refund_tool(Shop("C-001"))}
    args = {"order_id": "A-1001", "amount": 2450}
    if not at_the_same_time:
        return [call_tool(impl, "refund", args), call_tool(impl, "refund", args)]
    with ThreadPoolExecutor() as pool:
        first, second = pool.submit(call_tool, impl, "refund", args), pool.submit(call_tool, impl, "refund", args)
        return [first.result(), second.result()]


print("one at a time:   ", refund_twice(at_the_same_time=False))
print("at the same time:", refund_twice(at_the_same_time=True))

# %% [markdown]
# One at a time, the second refund is refused. At the same time, the customer is paid twice. This
# is a **check-then-act race**, and no amount of care inside `refund` makes it go away as long as
# the caller runs two at once. (Chapter 08 adds idempotency keys, which also protect against the
# model asking for the same refund again in a later step.)
#
# So the rule: **independent reads may run at the same time; actions that change state run one at
# a time, in the order the model asked.** The order matters too: "refund A-1002, then block the
# card" done the other way round is a different story for the customer.
#
# Which tools only read? **Your code decides**, with an allow-list: `READ_ONLY` above. A tool that
# is not on the list — a new one, or a name the model made up — is treated as an action. Getting
# it wrong in that direction costs a few milliseconds; the other direction costs money.

# %% [markdown]
# ## Part 3 · A plan: batches
#
# Before running anything, split the reply's calls into **batches** that run one after another.
# Neighbouring reads share a batch (they may run together); every action is a batch of its own.
# The order of the calls is never changed:
#
# ```
#  calls      get A    get B    refund A    refund B    get C    get D
#  batches   [get A,   get B]  [refund A]  [refund B]  [get C,   get D]
#              together          alone       alone       together
# ```
#
# The reads after the refunds wait for them: `get C` may well be about order A, and should see it
# refunded.

# %% [markdown]
# ## Exercise 1 — `plan_batches` (3 points)
#
# Write `plan_batches(calls, read_only=READ_ONLY)`. `calls` is a list of tool calls (the objects in
# `message.tool_calls`; the name is `call.function.name`), `read_only` a set of tool names. Return
# a **list of lists** of those same call objects:
#
# - the batches, put back together, are exactly `calls`, in the same order;
# - a batch is either a single call, or two or more neighbouring calls whose names are **all** in
#   `read_only`;
# - every run of neighbouring reads forms **one** batch (do not split reads that may go together);
# - every call whose name is not in `read_only` is alone in its batch.
#
# No calls give `[]`.

# %% nbgrader={"grade": false, "grade_id": "plan_batches", "locked": false, "schema_version": 3, "solution": true}
def plan_batches(calls, read_only=READ_ONLY):
    """Split a reply's tool calls into batches: neighbouring reads together, each action alone."""
    ### BEGIN SOLUTION
    batches = []
    for call in calls:
        is_read = call.function.name in read_only
        if is_read and batches and batches[-1][-1].function.name in read_only:
            batches[-1].append(call)  # another read next to a read: same batch
        else:
            batches.append([call])
    return batches
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "plan_batches_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: plan_batches puts two neighbouring reads in one batch and two refunds in one
batch each, keeping the calls (the same objects) in order; a read asked after a refund stays
after it; a tool that is not in read_only (even an unknown one) is an action, alone; the read_only
it is given decides; no calls give []."""
from workbook.checks import fresh

wb = fresh()


def tool_calls(*pairs):
    """Real SDK tool calls: a scripted fake model that asks for exactly these (name, args) in one reply."""
    S = wb.scenarios
    asks = S.scripted(S.calls(*(S.Call(name, args) for name, args in pairs)))
    return wb.fake_llm.FakeLLM(asks).client().chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "go"}]).choices[0].message.tool_calls


def ids(batches):
    assert type(batches) is list and all(type(b) is list for b in batches), (
        f"plan_batches must return a list of lists, got {batches!r}")
    return [[c.id for c in batch] for batch in batches]


reads = tool_calls(("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"}))
got = plan_batches(reads, {"get_order"})
assert ids(got) == [[reads[0].id, reads[1].id]], (
    "two neighbouring reads may run together: they belong in ONE batch, in the order asked")
assert got[0][0] == reads[0] and got[0][1] == reads[1], "put the calls themselves in the batches, unchanged"

refunds = tool_calls(("refund", {"order_id": "A-1001", "amount": 2450}),
                     ("refund", {"order_id": "A-1002", "amount": 1290}))
assert ids(plan_batches(refunds, {"get_order"})) == [[refunds[0].id], [refunds[1].id]], (
    "refund is not read-only: each refund must be alone in its batch, in the order asked")

mixed = tool_calls(("get_order", {"order_id": "A-1001"}), ("refund", {"order_id": "A-1001", "amount": 2450}),
                   ("get_order", {"order_id": "A-1001"}))
assert ids(plan_batches(mixed, {"get_order"})) == [[c.id] for c in mixed], (
    "never change the order of the calls: the read asked after the refund runs after it (and sees it)")
unknown = tool_calls(("get_order", {"order_id": "A-1001"}), ("cancel_order", {"order_id": "A-1002"}))
assert ids(plan_batches(unknown, {"get_order"})) == [[unknown[0].id], [unknown[1].id]], (
    "a tool that is not in read_only (cancel_order, one you have never heard of) is an action: alone in its batch")
assert ids(plan_batches(reads, set())) == [[reads[0].id], [reads[1].id]], (
    "use the read_only set you were given: with an empty set, get_order is not a read, so each call is alone")
got = plan_batches([], {"get_order"})
assert type(got) is list and got == [], f"no calls give []; got {got!r}"
print("plan_batches: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "plan_batches_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: plan_batches keeps the order of mixed reads and actions, merges every run of
neighbouring reads, isolates every action and every tool not on the allow-list, uses the read_only
it is given, and handles empty and single-call replies."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


#@include 04_parallel_calls tool_calls


def plan(calls, read_only):
    with wb.checks.no_raise("plan_batches", hint='plan_batches only splits the calls into batches: it never raises'):
        got = plan_batches(calls, read_only)
    assert type(got) is list and all(type(b) is list and b for b in got), (
        f"return a list of non-empty lists, got {got!r}")
    flat = [c for batch in got for c in batch]
    assert len(flat) == len(calls) and all(a == b for a, b in zip(flat, calls)), (
        "the batches, put back together, must be exactly the calls, in the order the model asked")
    return [[calls.index(c) for c in batch] for batch in got]


R = {"get_order", "txn_sum"}
g = lambda o: ("get_order", {"order_id": o})  # noqa: E731
r = lambda o: ("refund", {"order_id": o, "amount": 100})  # noqa: E731
calls = tool_calls(g("A"), g("B"), r("A"), r("B"), g("C"), ("txn_sum", {"category": "taxi", "month": "2026-09"}))
assert plan(calls, R) == [[0, 1], [2], [3], [4, 5]], (
    "reads next to each other share a batch; each refund is alone; the order never changes")
calls = tool_calls(r("A"), g("A"), r("B"))
assert plan(calls, R) == [[0], [1], [2]], (
    "a read between two actions stays between them: never move reads before or after actions")
calls = tool_calls(g("A"), g("B"), g("C"), g("D"))
assert plan(calls, R) == [[0, 1, 2, 3]], "a run of reads is one batch, however long"
calls = tool_calls(("cancel_order", {"order_id": "A"}), ("lookup_order", {"order_id": "B"}), g("C"))
assert plan(calls, R) == [[0], [1], [2]], (
    "a tool that is not in read_only (even one you have never heard of) counts as an action")
calls = tool_calls(g("A"), g("B"), ("card_block", {}), ("card_block", {}))
assert plan(calls, set()) == [[0], [1], [2], [3]], (
    "use the read_only set you were given: with an empty set, every call is alone")
assert plan(calls, {"get_order", "card_block"}) == [[0, 1, 2, 3]], (
    "use the read_only set you were given, not a list of your own")
calls = tool_calls(g("A"))
assert plan(calls, R) == [[0]], "one call is one batch"
assert plan_batches([], R) == [] and type(plan_batches([], R)) is list, "no calls give []"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · Running a batch at the same time
#
# `concurrent.futures.ThreadPoolExecutor` runs functions in worker threads. Threads suit tool calls
# well: a tool spends its time waiting on a database, a network or a payment provider, and Python
# lets other threads run while one waits. Three slow look-ups, one after another and then together:

# %%
def slow_get_order(order_id: str) -> dict:
    time.sleep(0.2)  # a slow database
    return Shop("C-001").get_order(order_id)


order_ids = ["A-1001", "A-1002", "A-1001"]
started = time.perf_counter()
one_by_one = [slow_get_order(o) for o in order_ids]
print(f"one at a time:    {time.perf_counter() - started:.1f} s")

started = time.perf_counter()
with ThreadPoolExecutor(max_workers=len(order_ids)) as pool:
    together = list(pool.map(slow_get_order, order_ids))
print(f"at the same time: {time.perf_counter() - started:.1f} s")
print("same results, same order:", together == one_by_one)

# %% [markdown]
# Two details make this safe to use:
#
# - **`pool.map` returns results in the order of its inputs**, whichever finishes first.
#   `as_completed` yields them as they finish — useful for progress bars, wrong for results that
#   must line up with their calls. `pool.submit` returns futures; read them in the order you
#   submitted them.
# - **`with ThreadPoolExecutor() as pool:` waits for every job when the block ends.** So a batch is
#   finished before the next one starts.
#
# Exceptions do not get lost either: a job that raised re-raises when you read its result. Here
# that never happens, because `execute` turns every failure into an observation.
#
# One tool call, one thread, and reads that share nothing but the shop's log (appending to a list is
# safe across threads in Python): that is all the threading this needs.

# %% [markdown]
# ## Exercise 2 — `run_batches` (4 points)
#
# Write `run_batches(batches, impl)`. `batches` is a plan like `plan_batches` returns; `impl` is
# the dict name → function. Run it and return the `tool` messages, **one per call, in the order of
# the calls** (batch by batch):
#
# ```python
# {"role": "tool", "tool_call_id": call.id, "content": execute(call.function.name, call.function.arguments, impl)}
# ```
#
# - a batch of two or more calls runs **at the same time**, in a `ThreadPoolExecutor` (one worker
#   per call);
# - a batch of one call runs on its own;
# - a batch is **finished** before the next one starts;
# - the order of the messages is the order of the calls, not the order in which they finished.
#
# An empty plan gives `[]`.

# %% nbgrader={"grade": false, "grade_id": "run_batches", "locked": false, "schema_version": 3, "solution": true}
def run_batches(batches, impl):
    """Run a plan batch by batch (each batch's calls at the same time); tool messages in call order."""
    ### BEGIN SOLUTION
    def run(call):
        return execute(call.function.name, call.function.arguments, impl)

    messages = []
    for batch in batches:
        if len(batch) == 1:
            contents = [run(batch[0])]
        else:
            with ThreadPoolExecutor(max_workers=len(batch)) as pool:
                contents = list(pool.map(run, batch))  # in the order of the calls
        messages += [{"role": "tool", "tool_call_id": call.id, "content": content}
                     for call, content in zip(batch, contents)]
    return messages
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_batches_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_batches runs a batch of two reads at the same time, runs two refunds one after
the other, and returns one tool message per call, in the order of the calls (also when the second
call finishes first), with execute's text: the tool's JSON result, or an error observation when
the tool fails; an empty plan gives []."""
import json
import sys
import threading
import time

from workbook.checks import fresh

wb = fresh()


#@include 04_parallel_calls tool_calls


probe = wb.checks.Overlap(2)  # reads that run together: each starts while the other is running
calls = tool_calls(("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"}))
out = run_batches([list(calls)], {"get_order": probe.tool("get_order")})
assert type(out) is list and len(out) == 2, f"two calls need two tool messages; got {out!r}"
assert [m.get("tool_call_id") if type(m) is dict else m for m in out] == [c.id for c in calls], (
    "one tool message per call, in the order of the calls (not the order in which they finished)")
assert probe.together == {"A-1001", "A-1002"}, (
    "the two reads of one batch must run at the same time (in a ThreadPoolExecutor, one worker per call); "
    f"they ran one after the other: {probe.events}")
for msg, call, order_id in zip(out, calls, ("A-1001", "A-1002")):
    assert type(msg) is dict and msg.get("role") == "tool" and msg.get("tool_call_id") == call.id, (
        f"each message is {{'role': 'tool', 'tool_call_id': <its call's id>, 'content': ...}}, in order; got {msg!r}")
    assert type(msg.get("content")) is str and json.loads(msg["content"]) == {"order_id": order_id, "tool": "get_order"}, (
        f"content must be execute(...) of that call: the tool's result as JSON text; got {msg.get('content')!r}")

# The first call ends only after the second ended: the messages still follow the calls.
second_done, second_thread, caller = threading.Event(), [], threading.get_ident()


def frames(thread_id):
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        yield frame.f_code
        frame = frame.f_back


def caller_waits_for_results():
    """This thread (inside run_batches) waits in threading for results, not for a worker to start."""
    names = [code.co_name for code in frames(caller) if code.co_filename.endswith("threading.py")]
    return "start" not in names and bool({"wait", "join", "_wait_for_tstate_lock"} & set(names))


def in_a_pool_task(thread_id):
    """Is that thread still inside a ThreadPoolExecutor task (its future not done yet)?"""
    return any(code.co_name == "run" and code.co_filename.endswith("thread.py") for code in frames(thread_id))


def first(order_id):
    second_done.wait(5.0)  # a latch: only code that never runs the two together reaches the bound
    bound = time.monotonic() + 5.0  # states, not a length of time: the second call's future is done
    while (not second_thread or in_a_pool_task(second_thread[0]) or not caller_waits_for_results()) \
            and time.monotonic() < bound:  # and run_batches waits for results
        time.sleep(0)
    return {"order_id": order_id, "tool": "get_order"}


def second(order_id):
    second_thread.append(threading.get_ident())
    second_done.set()
    return {"order_id": order_id, "tool": "txn_sum"}


calls = tool_calls(("get_order", {"order_id": "A-1001"}), ("txn_sum", {"order_id": "A-1002"}))
out = run_batches([list(calls)], {"get_order": first, "txn_sum": second})
assert [m.get("tool_call_id") if type(m) is dict else m for m in out] == [c.id for c in calls], (
    "one tool message per call, in the order of the calls, not the order in which they finished (the second "
    "call finished first here): read the results with pool.map, or the futures in the order you submitted them")

probe = wb.checks.Overlap(2)
calls = tool_calls(("refund", {"order_id": "A-1001"}), ("refund", {"order_id": "A-1002"}))
out = run_batches([[calls[0]], [calls[1]]], {"refund": probe.tool("refund")})
assert probe.overlaps == 0, f"two batches must run one after the other, never at the same time: {probe.events}"
assert probe.order == [("refund", "A-1001"), ("refund", "A-1002")], (
    f"run the batches in order; the tools saw {probe.order}")
assert [m.get("tool_call_id") for m in out] == [calls[0].id, calls[1].id], "one message per call, in order"


def down(order_id):
    raise RuntimeError("the order database is down")


calls = tool_calls(("get_order", {"order_id": "A-1001"}), ("txn_sum", {"order_id": "A-1002"}))
with wb.checks.no_raise("run_batches with a tool that raises RuntimeError",
                        hint="content is execute(name, arguments, impl): a failing tool is an error observation"):
    out = run_batches([list(calls)], {"get_order": down, "txn_sum": lambda order_id: {"ok": order_id}})
assert [m.get("tool_call_id") if type(m) is dict else m for m in out] == [c.id for c in calls], (
    f"every call gets its message, even when its tool fails; got {out!r}")
error = wb.checks.error_text(out[0].get("content"), "the content for a tool that raised")
assert "database is down" in error, f"execute's error observation holds the exception's message; got {error!r}"
got = run_batches([], {})
assert type(got) is list and got == [], f"an empty plan gives []; got {got!r}"
print("run_batches: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_batches_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_batches runs three reads at the same time in worker threads, waits for a batch
to finish before the next starts, never overlaps actions, returns messages in call order even when
the calls finish in reverse, answers every id when a tool fails or the arguments are broken, and
returns [] for an empty plan."""
### BEGIN HIDDEN TESTS
import json
import threading

from workbook.checks import fresh

wb = fresh()


#@include 04_parallel_calls tool_calls


def run(batches, impl):
    with wb.checks.no_raise("run_batches", hint="a failing tool is an observation (use execute)"):
        out = run_batches(batches, impl)
    assert type(out) is list and all(type(m) is dict for m in out), f"return a list of dicts, got {out!r}"
    return out


# Three reads in one batch: all at the same time, in worker threads.
probe = wb.checks.Overlap(3)
calls = tool_calls(*[("get_order", {"order_id": o}) for o in ("A", "B", "C")])
out = run([list(calls)], {"get_order": probe.tool("get_order")})
assert len(out) == 3, f"one tool message per call: 3 calls, {len(out)} messages"
assert probe.together == {"A", "B", "C"}, (
    f"all calls of a batch must run at the same time, one worker per call; events: {probe.events}")
assert threading.get_ident() not in probe.threads, "a batch of reads runs in the pool's worker threads"
assert [m["tool_call_id"] for m in out] == [c.id for c in calls], "one message per call, in the order of the calls"
for m in out:
    assert set(m) == {"role", "tool_call_id", "content"} and m["role"] == "tool", (
        f"a tool message has exactly role, tool_call_id and content; got {m!r}")

# Batches one after another: the refund starts only after both reads ended; the last read after it.
probe = wb.checks.Overlap(2)
calls = tool_calls(("get_order", {"order_id": "A"}), ("get_order", {"order_id": "B"}),
                   ("refund", {"order_id": "C"}), ("txn_sum", {"order_id": "D"}))
impl = {"get_order": probe.tool("get_order"), "refund": probe.tool("refund", hold=False),
        "txn_sum": probe.tool("txn_sum", hold=False)}
out = run([[calls[0], calls[1]], [calls[2]], [calls[3]]], impl)
events = probe.events
assert events.index(("start", "C")) > max(events.index(("end", "A")), events.index(("end", "B"))), (
    f"wait for a batch to finish before starting the next one; events: {events}")
assert events.index(("start", "D")) > events.index(("end", "C")), f"batches run in order; events: {events}"
assert [m["tool_call_id"] for m in out] == [c.id for c in calls], "one message per call, in order"

# Actions, one batch each: never at the same time, in the order asked.
probe = wb.checks.Overlap(3)
calls = tool_calls(*[("refund", {"order_id": o}) for o in ("A", "B", "C")])
out = run([[c] for c in calls], {"refund": probe.tool("refund")})
assert probe.overlaps == 0, f"batches of one action must never overlap; events: {probe.events}"
assert [e for e in probe.events if e[0] == "start"] == [("start", "A"), ("start", "B"), ("start", "C")], (
    f"run the actions in the order asked; events: {probe.events}")

# The first call finishes last (it waits for the second to end): the messages still follow the calls.
fast_done, ended = threading.Event(), []


def slow(order_id):
    fast_done.wait(5.0)  # a latch: only code that never runs the two together reaches the bound
    ended.append(order_id)
    return {"order_id": order_id}


def fast(order_id):
    ended.append(order_id)
    fast_done.set()
    return {"order_id": order_id}


calls = tool_calls(("get_order", {"order_id": "slow"}), ("txn_sum", {"order_id": "fast"}))
out = run([list(calls)], {"get_order": slow, "txn_sum": fast})
assert ended == ["fast", "slow"], "test set-up: the second call should finish first"
assert [m["tool_call_id"] for m in out] == [c.id for c in calls], (
    "return the messages in the order of the calls, not in the order they finished (no as_completed)")
assert [json.loads(m["content"])["order_id"] for m in out] == ["slow", "fast"], (
    "each message must carry its own call's result")


# A failing tool and broken arguments in a batch: every id is still answered.
def broken(order_id):
    raise RuntimeError("database is down")


calls = tool_calls(("get_order", {"order_id": "A"}), ("get_order", '{"order_id": "B"'), ("txn_sum", {"order_id": "C"}))
out = run([list(calls)], {"get_order": broken, "txn_sum": lambda order_id: {"ok": order_id}})
assert [m["tool_call_id"] for m in out] == [c.id for c in calls], (
    f"every call gets its message, even when its tool fails; got {out!r}")
assert "database is down" in out[0]["content"] and "json" in out[1]["content"].lower(), (
    f"a failure is an observation (use execute); got {[m['content'] for m in out]}")
assert json.loads(out[2]["content"]) == {"ok": "C"}, "the other calls of the batch still run"

assert run([], {}) == [], "an empty plan gives []"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · The loop
#
# Chapter 03's loop changes in one place: the tool step handles a whole reply. Everything else —
# the assistant turn first and verbatim, the stop statuses, the step limit — stays.
#
# ```
#  for step in 1..max_steps:
#      response = client.chat.completions.create(model=..., messages=messages, tools=tools)
#      append the assistant message (verbatim)
#      no tool calls:  finish_reason "stop" → AgentResult(content, "done", step)
#                      anything else        → AgentResult(None, "STOPPED: <finish_reason>", step)
#      tool calls:     run ALL of them (reads may go together, actions one at a time, in order)
#                      append one tool message per call, in the order of the calls
#                      ── and only then the next step ──
#  → AgentResult(None, "STOPPED: step limit", max_steps)
# ```

# %% [markdown]
# ## Exercise 3 — `run_agent` (4 points)
#
# Write `run_agent(client, model, question, tools, impl, max_steps=8, read_only=READ_ONLY)`: chapter
# 03's loop, with the tool step above.
#
# - one round per model reply: every tool call runs, each gets one `tool` message under its own
#   id, in the order of the calls, all appended before the next `create`;
# - calls whose names are not in `read_only` must never run at the same time as another call, and
#   run in the order asked;
# - run the calls with `run_batches(plan_batches(calls, read_only), impl)` from the exercises above,
#   or simply one after another in order — that is slower for reads, but also correct;
# - the rest as in chapter 03: the question is the only message at first, the assistant turn goes in
#   verbatim (`message.model_dump(exclude_none=True)`), `finish_reason == "stop"` ends with
#   `"done"`, another reason with `f"STOPPED: {finish_reason}"`, and `max_steps` model calls
#   without an answer with `AgentResult(None, "STOPPED: step limit", max_steps)`.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, question, tools, impl, max_steps=8, read_only=READ_ONLY):
    """The agent loop: every tool call of a reply answered, by id, in one round."""
    ### BEGIN SOLUTION
    # The tool step is written out (not run_batches) so this exercise is graded on its own.
    def run(call):
        return execute(call.function.name, call.function.arguments, impl)

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
        calls = message.tool_calls
        if len(calls) > 1 and all(c.function.name in read_only for c in calls):
            with ThreadPoolExecutor(max_workers=len(calls)) as pool:  # only reads: all together
                contents = list(pool.map(run, calls))
        else:
            contents = [run(c) for c in calls]  # an action among them: one at a time, in order
        messages += [{"role": "tool", "tool_call_id": c.id, "content": content}
                     for c, content in zip(calls, contents)]
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers the two-orders question in two model calls (the first sends the
model name, the tools and the question alone), sending both results, each under its own id, in
the second request; two refunds asked in one reply run one at a time, in the order asked; with an
empty read_only even look-ups run one at a time; a reply cut off by the token limit and a model
that never answers end with their stop statuses."""

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
with wb.checks.no_raise("run_agent on the two-orders question",
                        hint="every tool_call_id needs its own tool message, all before the next model call"):
    result = run_agent(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                       wb.shop.Shop("C-001").tools())
assert wb.checks.kind(result) == "AgentResult", (
    f"run_agent must return an AgentResult, got {type(result).__name__}: {result!r}")
assert (result.answer, result.status, result.steps) == (scenario.answer, "done", 2), (
    f"expected AgentResult({scenario.answer!r}, 'done', 2), got {result!r}")
sent = llm.requests[1]["messages"]
calls = sent[1].get("tool_calls") or []
assert [m.get("role") for m in sent] == ["user", "assistant", "tool", "tool"], (
    f"the second request is: question, assistant turn, one tool message per call; roles were {[m.get('role') for m in sent]}")
assert [m.get("tool_call_id") for m in sent[2:]] == [c["id"] for c in calls], (
    "answer each call under its own id, in the order of the calls")
first = llm.requests[0]
assert (first.get("model"), first.get("tools")) == ("fake-model", scenario.openai_tools()), (
    "send the model name and the tools you were given with every request")
assert first.get("messages") == [{"role": "user", "content": scenario.question}], (
    f"the question is the only message at first; the first request held {first.get('messages')!r}")

probe = wb.checks.Overlap(2)
scenario = wb.scenarios.two_refunds()
with wb.checks.no_raise("run_agent on the two-refunds question",
                        hint="every tool_call_id needs its own tool message, all before the next model call"):
    result = run_agent(wb.fake_llm.FakeLLM(scenario).client(max_calls=3), "fake-model", scenario.question,
                       scenario.openai_tools(), {"refund": probe.tool("refund")})
assert probe.overlaps == 0, f"two refunds ran at the same time: a call not in read_only must run alone; {probe.events}"
assert probe.order == [("refund", "A-1001"), ("refund", "A-1002")], (
    f"run the refunds in the order the model asked; they ran as {probe.order}")
assert (result.status, result.steps) == ("done", 2), f"both refunds in one round, then the answer; got {result!r}"

probe = wb.checks.Overlap(2)
scenario = wb.scenarios.two_orders()
with wb.checks.no_raise("run_agent on the two-orders question with read_only=frozenset()",
                        hint="every tool_call_id needs its own tool message, all before the next model call"):
    result = run_agent(wb.fake_llm.FakeLLM(scenario).client(max_calls=3), "fake-model", scenario.question,
                       scenario.openai_tools(), {"get_order": probe.tool("get_order")}, read_only=frozenset())
assert probe.overlaps == 0, (
    f"use the read_only you were given: with none, two look-ups must not run at the same time; {probe.events}")

S = wb.scenarios
cut = S.scripted(S.final("Your ord", finish_reason="length"), tools=("get_order",))
with wb.checks.no_raise("run_agent on a reply cut off by the token limit",
                        hint="a reply without tool calls ends the run: another finish_reason than 'stop' gives "
                        "'STOPPED: <finish_reason>'"):
    result = run_agent(wb.fake_llm.FakeLLM(cut).client(max_calls=2), "fake-model", "Where is A-1001?",
                       cut.openai_tools(), wb.shop.Shop("C-001").tools())
assert (result.answer, result.status, result.steps) == (None, "STOPPED: length", 1), (
    f"finish_reason 'length' is not an answer: AgentResult(None, 'STOPPED: length', 1); got {result!r}")
llm = wb.fake_llm.FakeLLM(S.never_finishes())
with wb.checks.no_raise("run_agent on a model that never answers", hint="stop after max_steps model calls"):
    result = run_agent(llm.client(max_calls=4), "fake-model", "How long does delivery take?",
                       S.never_finishes().openai_tools(), {"search_kb": lambda query: {"hits": []}}, max_steps=3)
assert llm.calls == 3 and (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3), (
    f"after max_steps=3 model calls: AgentResult(None, 'STOPPED: step limit', 3); got {result!r} "
    f"after {llm.calls} calls")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent runs every call of a reply in one round, never overlaps refunds (or any
call not in read_only), runs them in the order asked, reads a mixed reply's results by id, keeps the
assistant turn verbatim, sends model and tools, recovers from broken JSON, and stops at max_steps
and on a non-"stop" finish_reason."""
### BEGIN HIDDEN TESTS
import json
import types

from workbook.checks import fresh

wb = fresh()


def run(scenario, impl, cap=12, model="fake-model", **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario)
    with wb.checks.no_raise("run_agent", hint="a 400 means the provider refused your messages: the assistant "
                            "turn, then one tool message per tool_call_id, all before the next model call"):
        r = run_agent(llm.client(max_retries=0, max_calls=cap), model, scenario.question,
                      scenario.openai_tools(), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, r


def refund_ok(order_id, amount):
    return {"order_id": order_id, "refunded_kzt": amount, "status": "refunded"}


# Two refunds: one round, never at the same time, in the order asked.
meter = wb.checks.Overlap(2)
shop = wb.shop.Shop("C-001")
impl = {**shop.tools(), "refund": meter.tool("refund", refund_ok)}
scenario = wb.scenarios.two_refunds()
llm, r = run(scenario, impl)
assert meter.overlaps == 0, "two refunds ran at the same time: actions must run one at a time"
assert meter.order == [("refund", "A-1001"), ("refund", "A-1002")], (
    f"run the refunds in the order the model asked; they ran as {meter.order}")
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2) and llm.calls == 2, (
    f"both refunds in one round, then the answer; got {r!r} after {llm.calls} model calls")

# A refund and a look-up: each result under its own id; the refund first.
meter = wb.checks.Overlap(2)
shop = wb.shop.Shop("C-001")
impl = {**shop.tools(), "refund": meter.tool("refund", refund_ok)}
impl["get_order"] = meter.tool("get_order", impl["get_order"])
scenario = wb.scenarios.refund_and_status()
llm, r = run(scenario, impl)
assert meter.overlaps == 0, "a refund ran at the same time as another call: an action runs alone"
assert [n for n, _ in meter.order] == ["refund", "get_order"], f"keep the order asked; ran {meter.order}"
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), (
    f"each result must go back under its own call's id; got {r!r}")

# The wire: model, tools, the assistant turn verbatim, then every result in order.
scenario = wb.scenarios.two_orders()
shop = wb.shop.Shop("C-001")
llm, r = run(scenario, shop.tools(), model="fake-model-2")
first, second = llm.requests
assert first["model"] == "fake-model-2" and first["tools"] == scenario.openai_tools(), (
    "send the model name and the tools you were given")
assert first["messages"] == [{"role": "user", "content": scenario.question}], "start with the question only"
replayed = wb.fake_llm.FakeLLM(scenario).handle(first).body["choices"][0]["message"]
sent = second["messages"]
assert sent[1].get("tool_calls") == replayed["tool_calls"], "append the assistant turn verbatim"
assert [m.get("tool_call_id") for m in sent[2:]] == [c["id"] for c in replayed["tool_calls"]], (
    "one tool message per call, in the order of the calls, right after the assistant turn")
assert [json.loads(m["content"])["order_id"] for m in sent[2:]] == ["A-1001", "A-1002"], (
    "each tool message carries its own call's result")
assert sorted(a["order_id"] for _, a in shop.log) == ["A-1001", "A-1002"], f"run every call once; ran {shop.log}"

# read_only is honoured: with nothing read-only, even look-ups run one at a time.
meter = wb.checks.Overlap(2)
shop = wb.shop.Shop("C-001")
llm, r = run(wb.scenarios.two_orders(), {"get_order": meter.tool("get_order", shop.get_order)},
             read_only=frozenset())
assert meter.overlaps == 0 and r.status == "done", (
    "a call whose name is not in read_only must not run at the same time as another one")

# Broken JSON is an observation; the step limit and finish reasons as in chapter 03.
scenario = wb.scenarios.broken_json_then_fix()
llm, r = run(scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 3), f"broken JSON is an observation; got {r!r}"
llm, r = run(wb.scenarios.never_finishes(), {"search_kb": lambda query: {"hits": []}}, cap=5, max_steps=3)
assert llm.calls == 3 and (r.answer, r.status, r.steps) == (None, "STOPPED: step limit", 3), (
    f"with max_steps=3 stop after 3 model calls with AgentResult(None, 'STOPPED: step limit', 3); got {r!r}")
cut = wb.scenarios.scripted(wb.scenarios.final("Your ord", finish_reason="length"), tools=("get_order",),
                            question="Where is my order A-1001?")
llm, r = run(cut, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1), f"'length' is not an answer; got {r!r}"
### END HIDDEN TESTS

# %% [markdown]
# ## The loop at work
#
# Your loop against the chapter's scenarios, each with a fresh session. `client(max_calls=25)` stops
# a loop that forgets its limit before it hangs the notebook. Look at the refund scenarios' shop
# state: each order refunded once.

# %%
for name in ["two_orders", "two_refunds", "refund_and_status", "taxi_spending", "broken_json_then_fix"]:
    scenario = scenarios.get(name)
    shop = Shop("C-001")
    result = run_agent(FakeLLM(scenario).client(max_calls=25), "fake-model", scenario.question,
                       scenario.openai_tools(), shop_tools(shop))
    refunded = [o for o, order in shop.orders.items() if order["status"] == "refunded"]
    print(f"{name:20} {result.status:6} steps={result.steps}  refunded={refunded}  {result.answer!r}")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **Running only `tool_calls[0]`.** Code written for one call at a time. The provider answers
#   400: "The following tool_call_ids did not have response messages".
# - **Results in separate rounds.** Sending the first result and calling the model before the
#   second: the same 400. A round is one reply and *all* its results.
# - **One assistant turn per call.** Splitting the reply into several assistant messages, one call
#   each, gets past the provider but rewrites history: the model no longer sees that it asked for
#   both at once, and reads only the last result as the answer to its request.
# - **The wrong ids.** Pairing results with calls by tool name: two `get_order` calls get the same
#   id (400, duplicate response) or each other's results.
# - **Results in the order they finished.** `as_completed` yields futures as they complete; the
#   transcript then changes from run to run. Use `pool.map`, or read futures in submission order.
# - **Everything in one thread pool.** Fast, and wrong: two refunds race, and the customer is paid
#   twice. Actions run one at a time, in the order asked.
# - **Moving reads around actions.** "All reads first, then the actions" reorders the request: a
#   look-up the model placed after a refund must see the refund.
# - **Deciding by a list of dangerous tools.** A deny-list (`name in {"refund", "card_block"}`)
#   lets every new or unknown tool run concurrently. Keep an allow-list of reads.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("04_parallel_calls")

# %% [markdown]
# ## Live cell (optional)
#
# The same `run_agent` against a real model. It runs when `LLM_PROVIDER` names a live provider (see
# chapter 00) and is never graded. Whether a live model asks for both orders in one reply or one
# after the other is its own choice; your loop handles both.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        live = run_agent(live_client, live_model, "Where are my orders A-1001 and A-1002?",
                         [SCHEMAS["get_order"]], Shop("C-001").tools(), max_steps=5)
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
# **05 · Errors are observations**: so far a failing call came back as a terse `{"error": ...}`.
# Next you make every failure — an unknown tool, broken JSON, arguments that do not match the
# schema, a tool that raises, a call written as plain text — an `{"error": ...}` observation
# precise enough for the model to fix its own call, and a loop that never crashes.
