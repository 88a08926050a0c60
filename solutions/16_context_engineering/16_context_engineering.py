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
# # 16 · Context engineering
#
# Every step of the loop sends the whole conversation again: the system prompt, the task, every
# tool call and every tool result so far. A task of twelve lookups with bulky results sends the
# first result twelve times. Sooner or later the messages no longer fit the model's **context
# window**, the number of tokens it can read in one request, and then a cloud API refuses the
# request with a 400 while Ollama quietly drops the oldest messages — the user's question first.
#
# Context engineering is deciding what the model sees at each step. This chapter treats the window
# as a **budget**, measured before every call, and gives the loop two ways to stay inside it:
# **trimming** (drop the oldest steps, whole) and **compaction** (one model call summarises the old
# steps into one message that keeps the ids and numbers the task still needs).
#
# **Learning goals.** After this chapter you can
# - measure a request's size before sending it and read it back from `usage.prompt_tokens`;
# - say what a cloud API and Ollama do with a request over the window, and show it;
# - trim old steps without orphaning a tool call, keeping the system prompt and the task;
# - compact old steps with one model call into one message that keeps what the task needs;
# - write a loop that compacts past a threshold, before the provider refuses, and finishes a long
#   task the plain loop cannot;
# - name a third way, isolation: a sub-agent whose transcript never enters yours.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop and the tool-call pairing rule), 06 · Limits
# and stopping (`call_tool`, `tool_message`), 14 · One agent or a team (workers with private
# messages), 15 · Why the bill grows: tokens, prices, caching (tokens per step). The code you need
# from them is given below.

# %% [markdown]
# ## Given code from chapters 03 and 06
#
# `AgentResult`, `call_tool`, `tool_message` and `run_agent` are the ones of chapter 06, with the
# loop taking the opening `messages` and appending every turn to them (as in chapter 15).

# %% nbgrader={"grade": false, "grade_id": "given_chapter_06", "locked": true, "schema_version": 3, "solution": false}
import json
from dataclasses import dataclass, field

import openai

from workbook import scenarios
from workbook.fake_llm import FakeLLM, prompt_tokens
from workbook.scenarios import context


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 06_limits tool_message


def run_agent(client, model, messages, tools, impl, max_steps=8):
    """Chapter 03's loop on the messages given; every turn is appended to `messages`."""
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return AgentResult(message.content, "done", step)
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# ## Part 1 · The window is a budget, measured every step
#
# The chapter's task: a customer asks about twelve September orders, one by one — which were
# returned, with their refund ids, and the total refunded. The tool `order_details(order_id)`
# answers with everything the shop knows about an order (items, descriptions, tracking history),
# about 400 tokens, and the one line the task needs comes last:

# %%
scenario = context.returns_audit()
print(scenario.question)
record = context.order_details("A-2003")
print(len(json.dumps(record)), "characters;", "tracking events:", len(record["tracking"]))
print(record["outcome"])

# %% [markdown]
# The fake counts tokens by a published rule (chapter 15): a message costs
# `ceil(len(compact JSON) / 4) + 3`, the tool definitions `ceil(len(JSON) / 4)`, and every request
# 3 more. `prompt_tokens(messages, tools)` from `workbook.fake_llm` computes it **before** you send,
# and the reply's `usage.prompt_tokens` says the same number after. With a real provider the count
# before sending is an estimate (a tokenizer such as `tiktoken`, or the last step's usage plus the
# new messages); the number in `usage` is the truth.
#
# The window holds the reply too: `max_completion_tokens` is part of what a request asks for, and
# on a reasoning model (chapter 15) the reasoning tokens count against the cap and the window
# like visible output, and are billed as output.
#
# Run the task with the plain loop on a window large enough for everything (128,000 tokens) and
# watch the prompt grow:

# %%
def opening(scenario):
    """The messages a run starts with: the system prompt and the task."""
    return [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]


llm = FakeLLM(scenario, context_window=128_000)
messages = opening(scenario)
result = run_agent(llm.client(), "fake-model", messages, scenario.openai_tools(), context.IMPL, max_steps=20)
sizes = [prompt_tokens(r["messages"], r.get("tools")) for r in llm.requests]
print(result.status, "in", result.steps, "steps:", result.answer)
print("prompt tokens per step:", sizes)
print("total prompt tokens:", sum(sizes), "| largest prompt:", max(sizes))

# %% [markdown]
# Each step adds about 380 tokens, and each request repeats all of them: the largest prompt is 25
# times the first, the total grows with the square of the steps. The answer is right — but it
# needs the refund id of order A-2003, which arrived at step 3. Whatever you do to keep the
# messages small must not lose that.
#
# ## Part 2 · What happens over the window
#
# Give the same task a window of 3000 tokens. A cloud API checks the size of every request and
# refuses one that does not fit with a **400**, before the model reads a word. OpenAI's text is
# "This model's maximum context length is … tokens. However, your messages resulted in … tokens"
# (code `context_length_exceeded`; newer models on OpenAI's Responses API say "Your input exceeds
# the context window of this model"); DeepSeek's and Anthropic's say the same in their words
# (`docs/SOURCES.md`). The SDK raises `openai.BadRequestError`, and the loop dies in the middle
# of the task:

# %%
WINDOW = 3000
small = FakeLLM(scenario, context_window=WINDOW)
try:
    run_agent(small.client(), "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL, max_steps=20)
except openai.BadRequestError as e:
    plain_failed_at = len(small.requests)
    print(f"step {plain_failed_at}: {e.status_code} {e.code}: {e.body['message']}")

# %% [markdown]
# A request that fails is still a request: the loop sent it, and it is in `small.requests`. Sending
# it again fails again (chapter 08: never retry a 400). The loop has to make the messages smaller
# **before** it sends them.
#
# Ollama does something worse: it never refuses. When a conversation outgrows its window (4096
# tokens by default on a machine with less than 24 GiB of video memory) it drops whole messages
# from the front, oldest first, keeping every system message and the latest message — and says
# nothing. The oldest non-system message is usually the user's question. `llm.seen` records what
# the model actually read:

# %%
llm = FakeLLM(scenario, dialect="ollama", context_window=4096)
result = run_agent(llm.client(), "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL, max_steps=20)
last_seen = llm.seen[-1]
print("sent:", len(llm.requests[-1]["messages"]), "messages | the model read:", len(last_seen))
print("roles read:", [m["role"] for m in last_seen[:4]], "...")
print("question read:", any(m["role"] == "user" for m in last_seen))
print(result.status, "|", result.answer)

# %% [markdown]
# The run ends "done", with no error anywhere, and the answer is a greeting: the model never saw
# what it was asked. The remedy is the same for both providers: the loop keeps the messages inside
# the window itself, and decides what goes.
#
# ## Part 3 · What may be dropped: whole steps, never the head
#
# Two parts of the messages must stay: the **system prompt** (the rules) and the **task** (the
# first user message). Call them the **head**: every system message at the start, and the user
# message right after them. Everything after the head can go, but only in whole **blocks**: an
# assistant turn with `tool_calls` leaves **together with** its tool messages. A tool message
# whose assistant turn was dropped is an orphan, and the provider refuses the request (chapter 03):

# %%
orphan = [{"role": "system", "content": "You are the shop's agent."},
          {"role": "user", "content": "Status of A-2001?"},
          {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(context.order_details("A-2001"))}]
try:
    FakeLLM(scenarios.scripted("ok")).client().chat.completions.create(model="fake-model", messages=orphan)
except openai.BadRequestError as e:
    print(e.status_code, e.body["message"])

# %% [markdown]
# The other way round fails too: an assistant turn whose tool messages were dropped gets "An
# assistant message with 'tool_calls' must be followed by tool messages…". `blocks` is given: it
# cuts a message list into blocks, an assistant turn with `tool_calls` plus the tool messages after
# it, any other message alone.

# %% nbgrader={"grade": false, "grade_id": "given_blocks", "locked": true, "schema_version": 3, "solution": false}
def blocks(messages):
    """The messages cut into blocks: an assistant turn with tool_calls together with the tool
    messages that follow it; every other message alone. Joining the blocks gives `messages`."""
    out = []
    for m in messages:
        if m.get("role") == "tool" and out and out[-1][0].get("tool_calls"):
            out[-1].append(m)
        else:
            out.append([m])
    return out


print([[m["role"] for m in b] for b in blocks(messages[:8])])

# %% [markdown]
# ## Exercise 1 — `trim_history` (4 points)
#
# Write `trim_history(messages, budget, tools=None)`. It returns a **new** list:
#
# 1. the **head**: every system message at the start of `messages`, and the user message right
#    after them (the task), if there is one;
# 2. then the **newest** blocks of the rest (cut with `blocks`) that fit: drop the oldest block,
#    then the next oldest, ..., until `prompt_tokens(result, tools) <= budget`. Whole blocks only,
#    in their order; if everything fits, nothing is dropped;
# 3. if the head and the newest block alone do not fit, raise `ValueError` with a message that
#    names the `budget` (there is nothing sensible to send);
# 4. `budget` that is not a positive `int` (`True` is not one) is a `ValueError` too, its message
#    naming the `budget` as well; `messages` itself never changes.
#
# ```python
# trim_history([system, task, a1, t1, a2, t2], budget)  ->  [system, task, a2, t2]   # a1+t1 did not fit
# ```

# %% nbgrader={"grade": false, "grade_id": "trim_history", "locked": false, "schema_version": 3, "solution": true}
def trim_history(messages, budget, tools=None):
    """The head (system prompt and task) and the newest whole blocks that fit in `budget` tokens."""
    ### BEGIN SOLUTION
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise ValueError(f"budget must be a positive number of tokens, got {budget!r}")
    n = 0
    while n < len(messages) and messages[n].get("role") == "system":
        n += 1
    if n < len(messages) and messages[n].get("role") == "user":
        n += 1
    head, rest = list(messages[:n]), blocks(messages[n:])
    for start in range(len(rest)):
        kept = head + [m for b in rest[start:] for m in b]
        if prompt_tokens(kept, tools) <= budget:
            return kept
    if not rest and prompt_tokens(head, tools) <= budget:
        return head
    raise ValueError(f"the system prompt, the task and the newest step need more than the budget "
                     f"of {budget} tokens: nothing sensible fits")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "trim_history_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: trim_history keeps the system prompt and the task, drops the oldest steps
first and whole (a step with two tool calls leaves with both tool messages, so the provider
accepts the result), fits the budget (tools counted), and raises ValueError when nothing
sensible fits or the budget is not a positive int."""
import json

from workbook.checks import fresh

wb = fresh()
count = wb.fake_llm.prompt_tokens


def conversation(steps):
    msgs = [{"role": "system", "content": "You are the shop's agent."},
            {"role": "user", "content": "Check my orders, please."}]
    for i in range(steps):
        calls = [{"id": f"call_{i}{x}", "type": "function",
                  "function": {"name": "get_order", "arguments": json.dumps({"order_id": f"A-{i}{x}"})}}
                 for x in "ab"]
        msgs.append({"role": "assistant", "tool_calls": calls})
        msgs += [{"role": "tool", "tool_call_id": c["id"], "content": f"order {c['id']}: " + "x" * 200}
                 for c in calls]
    return msgs


msgs = conversation(5)
budget = count(msgs[:2] + msgs[-6:], None) + 80  # room for the two newest steps and one more message
with wb.checks.no_raise("trim_history(messages, budget)", hint="the head and the two newest steps fit this budget"):
    got = trim_history(msgs, budget)
assert type(got) is list, f"trim_history must return a list, got {type(got).__name__}"
wb.checks.equal(got[:2], msgs[:2], "the first two messages kept",
                hint="the head stays: the system prompt and the task (the first user message)")
assert got[2].get("role") != "tool", (
    "trim_history left a tool message without its assistant turn (an orphan: the provider answers 400); "
    "drop whole blocks, an assistant turn together with its tool messages")
wb.checks.equal(got, msgs[:2] + msgs[-6:], "trim_history(5 steps, room for 2 and a bit)",
                hint="drop the oldest blocks, whole, until the rest fits; the two newest steps fit")
assert count(got, None) <= budget, f"the result has {count(got, None)} tokens, over the budget of {budget}"
reply = wb.fake_llm.FakeLLM(wb.scenarios.scripted("ok")).client().chat.completions.create(
    model="fake-model", messages=got)
assert reply.choices[0].message.content == "ok", "the provider accepts the trimmed messages and answers"
tools = wb.scenarios.context.returns_audit().openai_tools()
with_tools = trim_history(msgs, budget - 20, tools)
assert count(with_tools, tools) <= budget - 20, "count the tool definitions too: prompt_tokens(result, tools) <= budget"
wb.checks.equal(with_tools, msgs[:2] + msgs[-3:], "trim_history(..., tools) when the tools take room",
                hint="with the tools counted only the newest step fits")
wb.checks.equal(trim_history(msgs, 10_000), msgs, "trim_history when everything fits")
with wb.checks.raises(ValueError, match="budget", what="trim_history(messages, 100)"):
    trim_history(msgs, 100)
with wb.checks.raises(ValueError, match="budget", what="trim_history(messages, 0)"):
    trim_history(msgs, 0)
print("trim_history: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "trim_history_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: trim_history with two system messages, with no system prompt, with a later
user message and final answers as blocks of their own, with a budget on a block's edge, on the
long task's real messages (the provider accepts them), and with budgets of the wrong type."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
count = wb.fake_llm.prompt_tokens
S = {"role": "system", "content": "Rules."}
S2 = {"role": "system", "content": "More rules."}
Q = {"role": "user", "content": "The task."}


def step(i, n=1, size=300):
    calls = [{"id": f"c{i}_{k}", "type": "function", "function": {"name": "t", "arguments": "{}"}} for k in range(n)]
    return [{"role": "assistant", "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": c["id"], "content": "y" * size} for c in calls]


later = {"role": "user", "content": "And one more thing."}
answer = {"role": "assistant", "content": "Done."}
msgs = [S, S2, Q, *step(1, 3), answer, later, *step(2, 2), *step(3)]
for budget in range(count([S, S2, Q, *step(3)], None), count(msgs, None) + 1, 7):
    got = trim_history(msgs, budget)
    assert count(got, None) <= budget, f"trim_history(..., {budget}) is over the budget"
    wb.checks.equal(got[:3], [S, S2, Q], f"the head of trim_history(..., {budget})", hint="every leading system message, then the task")
    tail = msgs[3:]
    assert got[3:] == tail[len(tail) - len(got) + 3:], f"trim_history(..., {budget}) must keep a tail of whole blocks"
    assert not got[3:] or got[3]["role"] != "tool", f"trim_history(..., {budget}) orphaned a tool message"
edge = count([S, S2, Q, answer, later, *step(2, 2), *step(3)], None)
wb.checks.equal(trim_history(msgs, edge), [S, S2, Q, answer, later, *step(2, 2), *step(3)], "a budget on a block's edge",
                hint="<= budget fits")
wb.checks.equal(trim_history(msgs, edge - 1), [S, S2, Q, later, *step(2, 2), *step(3)], "one token less")
no_system = [Q, *step(1), *step(2)]
wb.checks.equal(trim_history(no_system, count([Q, *step(2)], None)), [Q, *step(2)], "no system prompt")
wb.checks.equal(trim_history([S, Q], 1000), [S, Q], "the head alone")

scenario = wb.scenarios.context.returns_audit()
tools = scenario.openai_tools()
llm = wb.fake_llm.FakeLLM(scenario, context_window=100_000)
client = llm.client(max_calls=8)
real = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]
for _ in range(6):
    message = client.chat.completions.create(model="fake-model", messages=real, tools=tools).choices[0].message
    real.append(message.model_dump(exclude_none=True))
    real += [{"role": "tool", "tool_call_id": c.id, "content": json.dumps(wb.scenarios.context.order_details(
        **json.loads(c.function.arguments)))} for c in message.tool_calls]
got = trim_history(real, 1500, tools)
wb.checks.equal(got, real[:2] + real[-6:], "trim_history(the long task after 6 steps, 1500, tools)")
client.chat.completions.create(model="fake-model", messages=got, tools=tools)
for bad in (-5, 2.5, "1000", None, True):
    with wb.checks.raises(ValueError, match="budget", what=f"trim_history(messages, {bad!r})"):
        trim_history(msgs, bad)
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the messages it handed trim_history, so only it can see
# whether they changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(trim_history, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
               + [{"role": "assistant", "content": "x" * 400}, {"role": "user", "content": "More?"}] * 3, 120))

# %% [markdown]
# Trimming keeps every request legal and inside the window, and it is free: no model call. But
# what it drops is gone. On the long task the model loses the early results, looks the same
# orders up again, loses them again, and never answers (Part 6 measures it). A task whose answer
# needs facts from early steps needs those facts kept in a **smaller form**.
#
# ## Part 4 · Compaction: one call, one message
#
# Compaction asks the model itself to summarise the old steps, and puts the summary where they
# were:
#
# ```
# [system, task, a1, t1, a2, t2, ..., a7, t7, a8, t8]
#     -> [system, task, {"role": "user", "content": "Summary of the earlier steps: ..."}, a7, t7, a8, t8]
# ```
#
# The rules that make it work:
#
# - **One** model call for all the old steps, not one per step: a call costs a whole request.
# - The call gets the old steps **whole**, tool results included: a summary can keep only what
#   the summariser was shown. Here the line the task needs is the last field of each result; cut
#   each message to 300 characters "to save tokens" and it is gone.
# - The head stays as it is, and the newest `keep_last` blocks stay word for word (the model is
#   in the middle of them); `keep_last` counts **blocks**, never messages, or it splits a step.
# - The summary prompt asks for what the task needs: ids, numbers, results.
#
# The fake recognises a compaction call by its system prompt (it contains "summarise the
# conversation") and answers with the fact sentences ("Order A-2003: returned, refund R-7731, 4990
# KZT refunded.") it finds in what it was sent, and nothing else. A real model is less predictable,
# which is why the prompt says what to keep. The prompt to send:

# %%
SUMMARY_PROMPT = context.SUMMARY_PROMPT
print(SUMMARY_PROMPT)

# %% [markdown]
# ## Exercise 2 — `compact` (4 points)
#
# Write `compact(messages, client, keep_last, model="fake-model")`. It returns a **new** list:
#
# 1. the head as in Exercise 1 (the system messages at the start and the user message after them);
# 2. cut the rest into blocks; the newest `keep_last` blocks are **kept**, the older ones are
#    **old**. With no old blocks return a copy of `messages` and make no call;
# 3. otherwise make **one** call: `client.chat.completions.create(model=model, messages=[
#    {"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": transcript}])`,
#    where `transcript` is every old message, whole, as one line of JSON each
#    (`json.dumps(m, ensure_ascii=False)`, joined with `"\n"`);
# 4. return head + `[{"role": "user", "content": <the reply's text>}]` + the kept blocks' messages.
#
# `keep_last` must be an `int` ≥ 0, not a `bool` (else `ValueError`, its message naming
# `keep_last`); `messages` never changes.

# %% nbgrader={"grade": false, "grade_id": "compact", "locked": false, "schema_version": 3, "solution": true}
def compact(messages, client, keep_last, model="fake-model"):
    """The head, one summary of the old blocks (one model call), and the newest keep_last blocks."""
    ### BEGIN SOLUTION
    if not isinstance(keep_last, int) or isinstance(keep_last, bool) or keep_last < 0:
        raise ValueError(f"keep_last must be a whole number of blocks >= 0, got {keep_last!r}")
    n = 0
    while n < len(messages) and messages[n].get("role") == "system":
        n += 1
    if n < len(messages) and messages[n].get("role") == "user":
        n += 1
    rest = blocks(messages[n:])
    cut = max(len(rest) - keep_last, 0)
    old = [m for b in rest[:cut] for m in b]
    if not old:
        return list(messages)
    transcript = "\n".join(json.dumps(m, ensure_ascii=False) for m in old)
    response = client.chat.completions.create(model=model, messages=[
        {"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": transcript}])
    summary = {"role": "user", "content": response.choices[0].message.content}
    return list(messages[:n]) + [summary] + [m for b in rest[cut:] for m in b]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "compact_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: compact makes one model call with the summary prompt, sends every old tool
result whole, keeps the system prompt and the task, puts one summary message in place of the old
steps (every refund id and amount of the old steps in it), keeps the newest keep_last steps
whole, makes no call when there is nothing old, and the model then goes on with the next
order."""
import json

from workbook.checks import fresh

wb = fresh()
C = wb.scenarios.context
scenario = C.returns_audit()


def history(orders):
    msgs = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]
    for o in orders:
        msgs.append({"role": "assistant", "tool_calls": [{"id": f"call_{o}", "type": "function", "function": {
            "name": "order_details", "arguments": json.dumps({"order_id": o})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{o}", "content": json.dumps(C.order_details(o))})
    return msgs


msgs = history(C.ORDERS[:6])
llm = wb.fake_llm.FakeLLM(scenario, context_window=100_000)
with wb.checks.no_raise("compact(messages, client, keep_last=2)", hint="one summary call of the old blocks"):
    got = compact(msgs, llm.client(max_calls=10), keep_last=2)
assert len(llm.requests) == 1, f"compact must make exactly one model call; it made {len(llm.requests)}"
sent = llm.requests[0]["messages"]
assert sent[0] == {"role": "system", "content": C.SUMMARY_PROMPT}, "the call's first message: the system prompt SUMMARY_PROMPT"
assert "A-2001" in json.dumps(sent) and "SKU-2001" in json.dumps(sent), (
    "send every old message whole, tool results included: the summary can keep only what it was shown")
assert type(got) is list, f"compact must return a list, got {type(got).__name__}"
wb.checks.equal(got[:2], msgs[:2], "the head after compact", hint="keep the system prompt and the task")
wb.checks.equal(got[3:], msgs[-4:], "the messages after the summary",
                hint="keep the newest keep_last=2 blocks (an assistant turn with its tool messages), whole")
assert len(got) == 7, f"expected head (2) + one summary + 2 blocks of 2 messages = 7 messages, got {len(got)}"
summary = got[2]
assert summary.get("role") == "user" and isinstance(summary.get("content"), str), (
    f"the summary is one message {{'role': 'user', 'content': <the reply's text>}}; got {summary!r:.120}")
for fact in ("Order A-2001: delivered, no refund.", "Order A-2003: returned, refund R-7731, 4990 KZT refunded."):
    assert fact in summary["content"], f"the summary lost {fact!r}: send the old tool results, whole"
nxt = llm.client(max_calls=1).chat.completions.create(model="fake-model", messages=got, tools=scenario.openai_tools())
wb.checks.equal(json.loads(nxt.choices[0].message.tool_calls[0].function.arguments), {"order_id": "A-2007"},
                "what the model looks up after compaction", hint="it knows A-2001..A-2006 from the summary and the kept steps")
quiet = wb.fake_llm.FakeLLM(scenario)
short = history(C.ORDERS[:2])
wb.checks.equal(compact(short, quiet.client(max_calls=1), keep_last=2), short, "compact with nothing old")
assert not quiet.requests, "with nothing older than the newest keep_last blocks, make no model call"
with wb.checks.raises(ValueError, match="keep_last", what="compact(messages, client, keep_last=-1)"):
    compact(msgs, quiet.client(max_calls=1), keep_last=-1)
print("compact: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "compact_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: compact with keep_last 0, 1 and 3 (exact messages kept), a step with two tool
calls, an earlier summary carried into the next one, every fact of the old steps in the summary,
the model passed on, the summary text exactly the reply, and keep_last of the wrong type."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
C = wb.scenarios.context
scenario = C.returns_audit()


def turn(*orders):
    calls = [{"id": f"call_{o}", "type": "function", "function": {
        "name": "order_details", "arguments": json.dumps({"order_id": o})}} for o in orders]
    return [{"role": "assistant", "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": f"call_{o}", "content": json.dumps(C.order_details(o))} for o in orders]


head = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]
steps = [turn("A-2001", "A-2002"), turn("A-2003"), turn("A-2004"), turn("A-2005", "A-2006"), turn("A-2007")]
msgs = head + [m for s in steps for m in s]
for keep in (0, 1, 3):
    llm = wb.fake_llm.FakeLLM(scenario, context_window=100_000)
    got = compact(msgs, llm.client(max_calls=2), keep, model="model-x")
    assert len(llm.requests) == 1, f"compact(..., keep_last={keep}) must make one call, made {len(llm.requests)}"
    assert llm.requests[0]["model"] == "model-x", "pass `model` on to the call"
    kept = [m for s in steps[len(steps) - keep:] for m in s]
    wb.checks.equal(got[:2], head, f"the head after compact(..., {keep})")
    wb.checks.equal(got[3:], kept, f"the kept blocks after compact(..., keep_last={keep})")
    old = {o for s in steps[:len(steps) - keep] for m in s for o in C.ORDERS if f'"order_id": "{o}"' in m.get("content", "")}
    wb.checks.equal(got[2]["content"], C.summary([C.outcome(o) for o in sorted(old)]),
                    f"the summary after compact(..., keep_last={keep})", hint="the reply's text, as it came")
    llm.client(max_calls=2).chat.completions.create(model="fake-model", messages=got, tools=scenario.openai_tools())

llm = wb.fake_llm.FakeLLM(scenario, context_window=100_000)
first = compact(msgs, llm.client(max_calls=3), keep_last=1)
more = first + turn("A-2008") + turn("A-2009")
second = compact(more, llm.client(max_calls=3), keep_last=1)
for o in ("A-2001", "A-2003", "A-2007", "A-2008"):
    assert C.outcome(o) in second[2]["content"], f"the second summary lost {C.outcome(o)!r}: send the earlier summary too"
wb.checks.equal(len(second), 5, "messages after two compactions")
for bad in (1.5, "2", None, True):
    with wb.checks.raises(ValueError, match="keep_last", what=f"compact(messages, client, {bad!r})"):
        compact(msgs, llm.client(max_calls=3), bad)
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the messages it handed compact, so only it can see whether
# they changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(compact, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Audit."}]
               + [{"role": "assistant", "content": "Step."}, {"role": "user", "content": "Go on."}] * 3,
               FakeLLM(scenarios.context.returns_audit()).client(), keep_last=1))

# %% [markdown]
# ## Part 5 · A loop that stays inside the window
#
# Now the loop. Before **every** model call it measures the request it is about to send,
# `prompt_tokens(messages, tools)`. Past a **threshold** — a share of the window, 0.75 here — it
# compacts. If the messages still do not fit the window after that, it trims. Then it calls the
# model, and records the `usage.prompt_tokens` the provider reports, so the run shows what each
# step really cost.
#
# Why a threshold below the window, and why before the call? Compaction is itself a request (the
# old steps go to the model), so it must happen while they still fit; the model's reply needs room
# too; a loop that waits for the 400 has wasted a round trip on a refused request and now has to
# guess how much to cut; and on Ollama the 400 never comes.
#
# The loop takes `compact` and `trim` as arguments, so you can run it with yours, or with a
# compaction that does nothing to see trimming alone (Part 6 does).

# %% nbgrader={"grade": false, "grade_id": "given_budget_run", "locked": true, "schema_version": 3, "solution": false}
@dataclass
class BudgetRun:
    """How a run with a token budget ended."""

    answer: str | None  # the model's final text; None when the run was stopped
    status: str  # "done", or "STOPPED: step limit"
    steps: int  # loop steps (compaction calls not counted)
    prompt_tokens: list = field(default_factory=list)  # usage.prompt_tokens of each loop step
    compactions: int = 0  # how many times `compact` was called


# %% [markdown]
# ## Exercise 3 — `run_with_budget` (4 points)
#
# Write `run_with_budget(client, model, messages, tools, impl, window, compact, trim,
# threshold=0.75, keep_last=2, max_steps=30)`, the loop of `run_agent` with one addition before
# each call to the model:
#
# 1. if `prompt_tokens(messages, tools) > threshold * window`: replace the contents of `messages`
#    with `compact(messages, client, keep_last)` and count it in `compactions`;
# 2. then, if `prompt_tokens(messages, tools) > window`: replace them with
#    `trim(messages, window, tools)`;
# 3. call the model; append `response.usage.prompt_tokens` to `prompt_tokens`; then as
#    `run_agent`: append the assistant turn, a final answer ends the run ("done"), tool calls get
#    their `tool_message`s.
#
# Change `messages` **in place** (`messages[:] = ...`), so the caller sees the conversation as the
# model last saw it. Return a `BudgetRun`; after `max_steps` steps its status is
# `"STOPPED: step limit"`. A `threshold` outside `0 < threshold <= 1` is a `ValueError`, its
# message naming the `threshold`.

# %% nbgrader={"grade": false, "grade_id": "run_with_budget", "locked": false, "schema_version": 3, "solution": true}
def run_with_budget(client, model, messages, tools, impl, window, compact, trim,
                    threshold=0.75, keep_last=2, max_steps=30):
    """run_agent that compacts past threshold * window and trims to the window, before each call."""
    ### BEGIN SOLUTION
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold is a share of the window, 0 < threshold <= 1; got {threshold!r}")
    run = BudgetRun(None, "STOPPED: step limit", 0)
    for step in range(1, max_steps + 1):
        if prompt_tokens(messages, tools) > threshold * window:
            messages[:] = compact(messages, client, keep_last)
            run.compactions += 1
        if prompt_tokens(messages, tools) > window:
            messages[:] = trim(messages, window, tools)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        run.prompt_tokens.append(response.usage.prompt_tokens)
        run.steps = step
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            run.answer, run.status = message.content, "done"
            return run
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return run
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_with_budget_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_with_budget finishes the long task in a 3000-token window with the test's
own compact: the right answer, every request inside the window (none refused), every step's
prompt under the threshold, usage.prompt_tokens recorded per step, two compactions (each given
the keep_last passed in), the messages changed in place; with a compaction that does nothing it
trims to the window and stops at max_steps; a bad threshold is a ValueError."""
import json

from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
C = wb.scenarios.context
count = wb.fake_llm.prompt_tokens
scenario = C.returns_audit()


kept = []


def squash(messages, client, keep_last):
    """The test's own compaction: the head, one summary of the old steps, the newest step."""
    kept.append(keep_last)
    last = max(i for i, m in enumerate(messages) if m.get("tool_calls"))
    reply = client.chat.completions.create(model="fake-model", messages=[
        {"role": "system", "content": C.SUMMARY_PROMPT}, {"role": "user", "content": json.dumps(messages[2:last])}])
    return messages[:2] + [{"role": "user", "content": reply.choices[0].message.content}] + messages[last:]


def untouched(messages, budget, tools=None):
    return list(messages)


llm = wb.fake_llm.FakeLLM(scenario, context_window=3000)
messages = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]
with wb.checks.no_raise("run_with_budget(..., window=3000)", hint="measure and compact BEFORE each call"):
    run = run_with_budget(llm.client(max_calls=40), "fake-model", messages, scenario.openai_tools(), C.IMPL,
                          3000, squash, untouched, keep_last=1)
messages = after(messages)
sizes = [count(r["messages"], r.get("tools")) for r in llm.requests]
assert max(sizes) <= 3000, f"a request of {max(sizes)} tokens went over the window of 3000: compact before the call"
steps = [count(r["messages"], r.get("tools")) for r in llm.requests if r.get("tools")]
assert max(steps) <= 0.75 * 3000, (
    f"a step sent {max(steps)} tokens, over the threshold 0.75 * 3000: compact when the prompt passes the threshold")
wb.checks.equal(run.status, "done", "run.status")
wb.checks.equal(run.answer, C.ANSWER, "run.answer", hint="the refund ids of early steps must survive the compactions")
wb.checks.equal(run.steps, 13, "run.steps", hint="count loop steps, not compaction calls")
wb.checks.equal(run.compactions, 2, "run.compactions")
wb.checks.equal(kept, [1, 1], "the keep_last each compaction was given", hint="compact(messages, client, keep_last)")
wb.checks.equal(run.prompt_tokens, steps, "run.prompt_tokens", hint="append response.usage.prompt_tokens after each step's call")
wb.checks.equal(messages[-1].get("content"), C.ANSWER, "the last of the caller's messages",
                hint="change messages in place: messages[:] = compact(...)")


def drop_oldest(messages, budget, tools=None):
    out = list(messages)
    while count(out, tools) > budget:
        del out[2:4]
    return out


def no_compaction(messages, client, keep_last):
    return list(messages)


llm = wb.fake_llm.FakeLLM(scenario, context_window=2500)
start = [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]
with wb.checks.no_raise("run_with_budget(..., compact=no_compaction, window=2500, max_steps=8)",
                        hint="when compaction is not enough, trim(messages, window, tools) before the call"):
    run = run_with_budget(llm.client(max_calls=16), "fake-model", start, scenario.openai_tools(), C.IMPL,
                          2500, no_compaction, drop_oldest, max_steps=8)
sizes = [count(r["messages"], r.get("tools")) for r in llm.requests]
assert max(sizes) <= 2500, f"a request of {max(sizes)} tokens went over the window of 2500: trim when compaction is not enough"
wb.checks.equal((run.status, run.steps, run.answer), ("STOPPED: step limit", 8, None), "a run stopped at max_steps=8")
with wb.checks.raises(ValueError, match="threshold", what="run_with_budget(..., threshold=1.5)"):
    run_with_budget(llm.client(max_calls=1), "fake-model", [], [], {}, 3000, squash, untouched, threshold=1.5)
print("run_with_budget: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_with_budget_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_with_budget trims when compaction is not enough (every request inside the
window), never compacts a run that fits, passes keep_last on, stops at max_steps, and with a
threshold of 0.5 compacts more often."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
C = wb.scenarios.context
count = wb.fake_llm.prompt_tokens
scenario = C.returns_audit()
tools = scenario.openai_tools()


def start():
    return [{"role": "system", "content": scenario.system}, {"role": "user", "content": scenario.question}]


def squash(messages, client, keep_last):
    seen.append(keep_last)
    last = max(i for i, m in enumerate(messages) if m.get("tool_calls"))
    reply = client.chat.completions.create(model="fake-model", messages=[
        {"role": "system", "content": C.SUMMARY_PROMPT}, {"role": "user", "content": json.dumps(messages[2:last])}])
    return messages[:2] + [{"role": "user", "content": reply.choices[0].message.content}] + messages[last:]


def nothing(messages, client, keep_last):
    return list(messages)


#@include 16_context_engineering drop_oldest


llm = wb.fake_llm.FakeLLM(scenario, context_window=2000)
run = run_with_budget(llm.client(max_calls=30), "fake-model", start(), tools, C.IMPL, 2000, nothing, drop_oldest,
                      max_steps=12)
sizes = [count(r["messages"], r.get("tools")) for r in llm.requests]
assert max(sizes) <= 2000, f"a request of {max(sizes)} tokens went over the window: trim when compaction is not enough"
wb.checks.equal((run.status, run.steps, run.answer, run.compactions), ("STOPPED: step limit", 12, None, 8),
                "a run that only trims")
wb.checks.equal(run.prompt_tokens, [count(r["messages"], r.get("tools")) for r in llm.requests], "run.prompt_tokens")

seen = []
llm = wb.fake_llm.FakeLLM(scenario, context_window=100_000)
run = run_with_budget(llm.client(max_calls=20), "fake-model", start(), tools, C.IMPL, 100_000, squash, drop_oldest)
wb.checks.equal((run.status, run.steps, run.compactions, seen), ("done", 13, 0, []), "a run that fits")
wb.checks.equal(len(llm.requests), 13, "requests of a run that fits")

seen = []
llm = wb.fake_llm.FakeLLM(scenario, context_window=3000)
run = run_with_budget(llm.client(max_calls=40), "fake-model", start(), tools, C.IMPL, 3000, squash, drop_oldest,
                      threshold=0.5, keep_last=1)
wb.checks.equal((run.status, run.answer), ("done", C.ANSWER), "a run with threshold 0.5")
assert run.compactions > 2 and seen and set(seen) == {1}, (
    f"threshold 0.5 compacts more often than 0.75 (got {run.compactions}); pass keep_last on (got {seen})")
assert all(p <= 1500 for p in run.prompt_tokens), "with threshold 0.5 every step stays under 0.5 * 3000"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 6 · The numbers
#
# The same task, five ways: the plain loop with room for everything, the plain loop in a
# 3000-token window, your loop with trimming only (`keep_all` in place of compaction), your loop
# with compaction, and your loop with compaction on Ollama's default window, where the plain loop
# lost the question. "Total" is every prompt token the provider was sent, compaction calls
# included (for the refused run: the requests that were answered). Tokens are not yet the bill:
# the next table prices them.

# %%
def keep_all(messages, client, keep_last):
    """No compaction at all: the messages as they are (so the loop can only trim)."""
    return list(messages)


def measure(window, compactor, max_steps=30, dialect="openai"):
    """One run of the long task; (status, steps, model calls, total prompt tokens, largest prompt)."""
    llm = FakeLLM(scenario, dialect=dialect, context_window=window)
    try:
        run = run_with_budget(llm.client(), "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL,
                              window, compactor, trim_history, max_steps=max_steps)
    except Exception as e:  # your loop or a function it calls failed: the row says so
        return f"{type(e).__name__}", "-", len(llm.requests), "-", "-"
    sizes = [prompt_tokens(r["messages"], r.get("tools")) for r in llm.requests]
    right = "right answer" if run.answer == context.ANSWER else run.status
    return right, run.steps, len(llm.requests), sum(sizes), max(sizes)


llm = FakeLLM(scenario, context_window=128_000)
run_agent(llm.client(), "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL, max_steps=20)
plain = [prompt_tokens(r["messages"], r.get("tools")) for r in llm.requests]
answered = [prompt_tokens(r["messages"], r.get("tools")) for r in small.requests[:plain_failed_at - 1]]
rows = [("plain loop, window 128,000", "right answer", len(plain), len(plain), sum(plain), max(plain)),
        (f"plain loop, window {WINDOW}", f"400 at step {plain_failed_at}", plain_failed_at, plain_failed_at,
         sum(answered), max(answered)),
        (f"trim only, window {WINDOW}", *measure(WINDOW, keep_all)),
        (f"compaction, window {WINDOW}", *measure(WINDOW, compact)),
        ("compaction, Ollama 4096", *measure(4096, compact, dialect="ollama"))]
print(f"{'run':30}{'outcome':>22}{'steps':>7}{'calls':>7}{'total':>8}{'largest':>9}")
for name, *cells in rows:
    print(f"{name:30}" + "".join(f"{c!s:>{w}}" for c, w in zip(cells, (22, 7, 7, 8, 9), strict=True)))

# %% [markdown]
# Compaction finishes the task inside a window the plain loop cannot, and sends fewer prompt
# tokens, even though it pays for two extra calls: the largest prompt stays under the threshold
# instead of growing with every step. On Ollama the same loop never lets the conversation reach
# the window, so nothing is cut and the question stays. Trimming alone stays legal but forgets,
# pays for the same lookups again and again, and is stopped by the step limit.
#
# ### The bill, with the cache counted
#
# Fewer tokens is not the same as less money. Chapter 15's prefix cache bills a token the
# provider has already seen at a tenth of the price, and the plain loop's growing history is
# exactly such a prefix: each step resends the previous one plus a little. A compaction
# **rewrites the head** of the conversation, so the request after it shares almost nothing with
# the ones before and is billed as fresh input. The same two runs, priced at `gpt-5-mini`'s rates
# from each reply's `usage` (cached tokens at the cached price), and as they would cost without
# any cache:

# %%
from workbook.prices import PRICES

PRICE = PRICES["gpt-5-mini"]


class Billed:
    """A client that keeps the usage of every reply, compaction calls included."""

    def __init__(self, client):
        self.client, self.usages = client, []
        self.chat = self  # so that billed.chat.completions.create(...) works
        self.completions = self

    def create(self, **kwargs):
        response = self.client.chat.completions.create(**kwargs)
        self.usages.append(response.usage.model_dump())
        return response


def dollars(usage, cache=True):
    """US$ of one call at PRICE: chapter 15's cost for the OpenAI shape (no cache: all fresh)."""
    cached = ((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0) if cache else 0
    return ((usage["prompt_tokens"] - cached) * PRICE["input"] + cached * PRICE["cached_input"]
            + usage["completion_tokens"] * PRICE["output"]) / 1_000_000


def bill(compactor=None, window=128_000):
    """(calls, prompt tokens, US$ with the cache, US$ without) of one run of the long task."""
    client = Billed(FakeLLM(scenario, context_window=window).client())
    if compactor is None:
        run_agent(client, "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL, max_steps=20)
    else:
        run_with_budget(client, "fake-model", opening(scenario), scenario.openai_tools(), context.IMPL,
                        window, compactor, trim_history)
    usages = client.usages
    return (len(usages), sum(u["prompt_tokens"] for u in usages), sum(dollars(u) for u in usages),
            sum(dollars(u, cache=False) for u in usages))


bills = {"plain loop, window 128,000": bill(), f"compaction, window {WINDOW}": bill(compact, WINDOW)}
print(f"{'run':30}{'calls':>7}{'prompt':>9}{'US$ cached':>12}{'US$ no cache':>14}")
for name, (calls, prompt, cached, fresh) in bills.items():
    print(f"{name:30}{calls:>7}{prompt:>9}{cached:>12.6f}{fresh:>14.6f}")
(_, _, plain_cost, plain_fresh), (_, _, compact_cost, compact_fresh) = bills.values()
print(f"compaction vs plain: {compact_cost / plain_cost - 1:+.0%} with the cache, "
      f"{compact_fresh / plain_fresh - 1:+.0%} without")

# %% [markdown]
# Without a cache, compaction is the cheaper run. With the cache, the one this course's providers
# apply, it is the **dearer** one: the plain loop paid a tenth for almost all of its history,
# while every request after a compaction starts a new prefix at full price (and the compaction
# calls themselves send the old steps once more). So compaction buys **room** — a task that
# finishes inside a window the plain loop overflows, and shorter prompts, which also answer
# faster — and whether it also saves money depends on the cache. Compact rarely (a threshold near
# the window, not every few steps), keep the head above the summary byte for byte the same, and
# measure the bill, not the token count. (The fake's model here does not reason; on a reasoning
# model each compaction call also pays for its reasoning, as output.)
#
# The providers also offer compaction and trimming on their side, opt-in: OpenAI's Responses API
# has `truncation: "auto"` and a compaction endpoint, Anthropic has context editing (clearing old
# tool results). Chat Completions, as used here, never drops anything for you: it refuses.
#
# ## Part 7 · Isolation: a context that never enters yours
#
# The third way to keep the window small is not to let the bulk in at all. Chapter 14's
# orchestrator calls a **worker** as a tool, `ask_<agent>(task)`; the worker runs its own loop on
# its own private messages — twelve bulky lookups — and returns one short result. The
# orchestrator's messages grow by one tool call and one line, not by twelve results. The price:
# the worker's own calls are paid too, and whatever it did not put in its result is lost to the
# orchestrator. Isolation suits a subtask with a short answer ("which of these orders were
# returned?"); compaction suits one long thread of work.
#
# Smaller measures help on every path: a tool that returns only the fields asked for (or cuts a
# big result with a note saying so), and a system prompt and tool list that hold only what this
# task needs.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Orphaned tool messages.** Trimming message by message leaves a tool message whose assistant
#   turn is gone (or an assistant turn without its results): the provider answers 400. Drop whole
#   blocks.
# - **The system prompt or the question dropped.** "Keep the last N messages" drops the head first.
#   That is exactly Ollama's silent failure, written by hand.
# - **Dropping the newest steps.** The model is in the middle of them; the oldest go first.
# - **A summary that loses ids or numbers.** A compaction that sends only the assistant's words,
#   only the last few steps, or every message cut short, gets a summary without the refund ids —
#   and the task fails later, far from the cause. Send the old steps whole, the earlier summary
#   included.
# - **Compaction that makes several calls.** One summary call per step costs a request each; one
#   call summarises them all.
# - **`keep_last` counted in messages.** Keeping "the last 4 messages" can start in the middle of a
#   step with two tool calls. Count blocks.
# - **The threshold checked after the 400.** Sending first and compacting when the provider
#   refuses wastes a round trip on a refused request, and on Ollama, which never refuses, the
#   question is silently gone instead.
#   Measure before every call; compact below the window, while the compaction request still fits.
# - **Changing the caller's list by accident, or not at all.** `trim_history` and `compact` return
#   new lists; the loop replaces the contents of `messages` on purpose (`messages[:] = ...`). (Only
#   the second half is graded: a list changed by accident is seen only by your kernel, and the cells
#   after the tests check it.)

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("16_context_engineering")

# %% [markdown]
# ## Live cell (optional)
#
# Your loop with a real model, in a small window you set yourself: the same twelve orders, served
# by the chapter's tool. Watch the prompt sizes drop after each compaction, and read the summary
# the model wrote (`messages[2]`): did it keep every refund id? It runs only when `LLM_PROVIDER`
# names a live provider (see chapter 00) and is never graded. The window is counted with the fake's
# rule, an estimate for a real model. It needs your three functions from the cells above: after a
# restart, run those first.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.scenarios import context

if live_enabled():
    try:
        live_client, live_model = make_client()
        audit = context.returns_audit()
        live_messages = [{"role": "system", "content": audit.system}, {"role": "user", "content": audit.question}]
        live = run_with_budget(live_client, live_model, live_messages, audit.openai_tools(), context.IMPL,
                               3000, lambda m, c, k: compact(m, c, k, model=live_model), trim_history,
                               max_steps=20)
        print(live.status, live.compactions, "compactions; prompt tokens:", live.prompt_tokens)
        print(live.answer)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# Compaction keeps what one conversation needs while it lasts. Chapter 17 keeps facts across
# conversations: long-term memory, written by the agent and read back on demand.
