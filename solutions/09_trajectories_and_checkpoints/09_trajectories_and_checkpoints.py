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
# # 09 · Trajectories, checkpoints and a human in the loop
#
# An agent's path is not known in advance. The same question can take two steps today and six
# tomorrow, and when a run goes wrong — a wrong answer, a step limit, a refund nobody expected —
# the final answer alone does not tell you why. You need the **trajectory**: what the model
# thought, which tool it called with what, what came back, and what each step cost.
#
# A run can also be interrupted: the process dies, the machine restarts, or the agent reaches an
# action a person must approve first. Everything the agent knows is in its message list (chapter
# 01), so saving that list after every step — a **checkpoint** — is enough to carry on later
# instead of starting over.
#
# **Learning goals.** After this chapter you can
# - write a trajectory: one JSON line per step (thought, tool, input, result preview, tokens,
#   milliseconds) and a summary line, for **every** way a run stops;
# - explain why asking the model for a short "thought" before each call makes the log useful;
# - checkpoint the messages after every step with an **atomic** write (a temporary file, then
#   `os.replace`), so a crash never leaves a half-written checkpoint;
# - resume a crashed run without repeating the actions it already completed;
# - pause before a state-changing action until a human approves, and resume with the answer —
#   knowing that the paused step runs again, so its actions must be idempotent.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop), 06 · Limits and stopping (stop
# statuses) and 08 · Timeouts, retries and idempotency keys (the refund tool that cannot pay
# twice). What you need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 03 and 08
#
# `AgentResult`, `call_tool` (chapter 08's version: tools that declare a keyword-only `call_id`
# get the tool call's id from the code), and `tool_message`, which turns **one tool call, as a plain
# dict** into its `tool` message (chapter 06's `tool_message`, for a dict). It takes a dict (not
# the SDK object) because the messages you load back from a checkpoint are plain JSON.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_03", "locked": true, "schema_version": 3, "solution": false}
import contextlib
import hashlib
import inspect
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workbook import scenarios, trace
from workbook.fake_llm import FakeLLM
from workbook.payments import Payments
from workbook.shop import Shop


@dataclass
class AgentResult:
    """How a run ended."""

    answer: str | None  # the model's final text; None when the run was stopped or paused
    status: str  # "done", a stop status such as "STOPPED: step limit", or "PAUSED: ..."
    steps: int  # how many times the model was called


#@include 08_retries_and_idempotency call_tool


def tool_message(call, impl):
    """One tool call, as a dict {"id", "function": {"name", "arguments"}} -> its tool message."""
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as e:
        result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
    else:
        result = call_tool(impl, call["function"]["name"], args, call_id=call["id"])
    return {"role": "tool", "tool_call_id": call["id"],
            "content": json.dumps(result, ensure_ascii=False, default=str)}


# %% [markdown]
# And chapter 08's refund tool: the idempotency key comes from the tool call's id plus the order
# and amount, and a refund that already happened (the business key) is reported, not repeated.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_08", "locked": true, "schema_version": 3, "solution": false}
def make_refund_tool(payments, sleep=time.sleep, attempts=3):
    """The refund tool: at most one refund per order and amount, however often it is retried or re-asked."""

    def refund(order_id: str, amount: int, *, call_id: str) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        for earlier in payments.refunds_for(order_id):
            if earlier["amount"] == amount:
                return {**earlier, "status": "already refunded"}
        key = "refund-" + hashlib.sha256(json.dumps([call_id, order_id, amount]).encode()).hexdigest()
        for attempt in range(attempts):
            try:
                return payments.refund(order_id, amount, idempotency_key=key)
            except TimeoutError:
                if attempt < attempts - 1:
                    sleep(0.5 * 2**attempt)
        return {"error": f"the payment service did not answer after {attempts} attempts: the refund may "
                         "or may not have been made. Do not promise it; tell the customer we are checking."}

    return refund


# Logs and checkpoints of this notebook go to a fresh temporary folder, never into the repository.
WORK = Path(tempfile.mkdtemp(prefix="09-trajectories-"))
print("this notebook writes its files to", WORK)

# %% [markdown]
# ## Part 1 · A trajectory, one line per step
#
# The scenario `refund_then_check` is a small errand: look up order A-1001, refund what it cost,
# check order A-1002, answer. Here is the run as a plain loop, printing what happened at each step:

# %%
scenario = scenarios.refund_then_check()
llm = FakeLLM(scenario)
client = llm.client()
impl = {**Shop("C-001").tools(), "refund": make_refund_tool(Payments())}
messages = [{"role": "user", "content": scenario.question}]
for step in range(1, 6):
    response = client.chat.completions.create(model="fake-model", messages=messages,
                                              tools=scenario.openai_tools())
    message = response.choices[0].message.model_dump(exclude_none=True)
    messages.append(message)
    results = [tool_message(call, impl) for call in message.get("tool_calls", [])]
    messages.extend(results)
    for call, result in zip(message.get("tool_calls", []), results):
        print(f"step {step}: {message.get('content')!r}\n    {call['function']['name']}"
              f"{call['function']['arguments']} -> {result['content'][:70]}")
    if not results:
        print(f"step {step}: answer {message.get('content')!r}")
        break

# %% [markdown]
# Each printed step has the three parts of the classic **Thought → Action → Observation** cycle
# (the ReAct pattern): the model's text beside the call ("I refund that amount"), the tool call,
# and its result. A trajectory file records exactly that, plus the cost, one JSON object per line
# ([JSON Lines](https://jsonlines.org/)). The workbook's format (`docs/TRAJECTORY.md`) is:
#
# ```
# {"type": "step", "step": 2, "thought": "The lamp cost 2450 KZT: I refund that amount.",
#  "tool": "refund", "input": {"order_id": "A-1001", "amount": 2450},
#  "result_preview": "{\"refund_id\": \"rf_0001\", \"order_id\": \"A-1001\", \"amount\": 2450, \"status\": \"refunded\"}",
#  "tokens_in": 297, "tokens_out": 61, "ms": 812.5}
# ...
# {"type": "summary", "status": "done", "steps": 4, "tokens_in": 1410, "tokens_out": 215,
#  "total_tokens": 1625, "answer": "Refunded 2450 KZT for order A-1001; order A-1002 (Green tea, 200 g) is processing."}
# ```
#
# (one line each in the file). Field by field:
#
# | field | value |
# |---|---|
# | `step` | 1, 2, 3… one per model call |
# | `thought` | what the model said beside its tool call (`content`; DeepSeek's `reasoning_content` when there is one), or `null` |
# | `tool`, `input` | the call's name and its arguments as an object; `null` for a reply without a call (the final answer) |
# | `result_preview` | the first 200 characters of the result; the full result stays in the messages |
# | `tokens_in`, `tokens_out` | `usage.prompt_tokens` and `usage.completion_tokens` of this model call |
# | `ms` | how long the model call took |
# | `calls` | only for a reply with several tool calls: every call as `{"tool", "input", "result_preview"}` |
#
# ### Why ask for a thought
#
# Models may call tools without a word of explanation, and then the log shows *what* happened but
# not *why*. One line in the system prompt — "Before each tool call, say in one short sentence why
# you make it" — costs a few tokens per step and makes every step explainable: you see that the
# model refunded 2450 *because it read the order total*, or that it searched again *because it
# misread* the first result. That is what you need to debug a run, and later to grade runs
# automatically (evals). A thought is the model's account, not proof: the tool calls and results
# are the facts; the thought tells you where to look.
#
# A preview, not the whole result: a trajectory is a file people share and read, so keep lines
# short and never write API keys or customers' personal data into it.

# %% [markdown]
# ## Exercise 1 — `step_line` (3 points)
#
# Write `step_line(step, response, results, ms)` → the step line as a `dict`:
#
# - `response`: this step's `ChatCompletion`; its reply is `response.choices[0].message`;
# - `results`: this step's tool messages (`{"role": "tool", "tool_call_id", "content"}`), `[]`
#   for a reply without calls. They may come **in any order**: pair each with its call by
#   `tool_call_id`;
# - `ms`: how long the model call took (put it in as it is).
#
# The keys: `"type": "step"`, `step`, `thought`, `tool`, `input`, `result_preview`, `tokens_in`,
# `tokens_out`, `ms`, as in the table above, and:
#
# - `thought`: the reply's `reasoning_content` when it has one
#   (`(message.model_extra or {}).get("reasoning_content")`), otherwise its `content` **if it has
#   tool calls**, otherwise `None` (a final answer is not a thought);
# - `tool`, `input`, `result_preview` describe the **first** call; `input` is the parsed
#   arguments, or the raw string when they are not valid JSON;
# - `result_preview`: the result's content when it has at most 200 characters, otherwise its
#   first 199 characters followed by `"…"` (200 in all); `None` when there is no result;
# - with two or more calls, add `"calls"`: a list with `{"tool", "input", "result_preview"}` for
#   every call, in the order of the reply.

# %% nbgrader={"grade": false, "grade_id": "step_line", "locked": false, "schema_version": 3, "solution": true}
def step_line(step, response, results, ms):
    """One step of the trajectory as a dict: thought, first tool call, result preview, tokens, ms."""
    ### BEGIN SOLUTION
    message = response.choices[0].message
    calls = message.tool_calls or []
    by_id = {r["tool_call_id"]: r["content"] for r in results}

    def preview(text):
        return text if text is None or len(text) <= 200 else text[:199] + "…"

    def describe(call):
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError:
            args = call.function.arguments  # shown as the model sent it
        return {"tool": call.function.name, "input": args, "result_preview": preview(by_id.get(call.id))}

    described = [describe(c) for c in calls]
    first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
    reasoning = (message.model_extra or {}).get("reasoning_content")
    line = {"type": "step", "step": step, "thought": reasoning or ((message.content or None) if calls else None),
            **first, "tokens_in": response.usage.prompt_tokens,
            "tokens_out": response.usage.completion_tokens, "ms": ms}
    if len(described) > 1:
        line["calls"] = described
    return line
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "step_line_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: step_line describes the first step of refund_then_check: its thought, the
get_order call, the result preview, the tokens of the model call and the ms given; for a reply
with two calls it lists both in "calls", pairs results by tool_call_id (they may come in another
order) and cuts a long result to 200 characters ending in "…"; arguments that are not JSON stay
the raw string, a call without a result has no preview, DeepSeek's reasoning_content is the
thought; a final answer has no thought, tool, input or result_preview."""
import json

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.refund_then_check()
response = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}], tools=scenario.openai_tools())
call = response.choices[0].message.tool_calls[0]
result = {"role": "tool", "tool_call_id": call.id, "content": json.dumps(wb.shop.Shop().get_order("A-1001"))}
line = step_line(1, response, [result], 812.5)
assert type(line) is dict, f"step_line must return a dict, got {type(line).__name__}"
expected = {"type": "step", "step": 1, "thought": "First I look up order A-1001 to see what it cost.",
            "tool": "get_order", "input": {"order_id": "A-1001"}, "result_preview": result["content"],
            "tokens_in": response.usage.prompt_tokens, "tokens_out": response.usage.completion_tokens,
            "ms": 812.5}
for key, want in expected.items():
    assert key in line, f"the step line needs the key {key!r}; it has {sorted(line)}"
    assert line[key] == want, f"{key!r} should be {want!r}, got {line[key]!r}"
json.dumps(line)  # a line must be JSON

two = wb.scenarios.two_orders()
response = wb.fake_llm.FakeLLM(two).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": two.question}], tools=two.openai_tools())
first, second = response.choices[0].message.tool_calls
results = [{"role": "tool", "tool_call_id": second.id, "content": '{"order_id": "A-1002"}'},  # finished first
           {"role": "tool", "tool_call_id": first.id, "content": "x" * 300}]
line = step_line(2, response, results, 5.0)
calls = line.get("calls")
assert type(calls) is list and [c.get("input") for c in calls] == [{"order_id": "A-1001"}, {"order_id": "A-1002"}], (
    f"a reply with two calls lists both under 'calls', in the order of the reply; got {calls!r}")
assert [c.get("result_preview") for c in calls] == ["x" * 199 + "…", '{"order_id": "A-1002"}'], (
    "pair each result with its call by tool_call_id (not by position), and cut a result over 200 characters to "
    f"its first 199 and '…'; got {[c.get('result_preview') for c in calls]!r}")
final = wb.scenarios.long_chat_small_context()
response = wb.fake_llm.FakeLLM(final).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "Where is my order A-1001?"}])
line = step_line(1, response, [], 3.0)
got = {k: line.get(k) for k in ("thought", "tool", "input", "result_preview")}
assert got == {"thought": None, "tool": None, "input": None, "result_preview": None}, (
    f"a final answer is not a thought and has no call: all four are None; got {got}")
broken = wb.scenarios.broken_json_then_fix()
response = wb.fake_llm.FakeLLM(broken).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": broken.question}], tools=broken.openai_tools())
raw = response.choices[0].message.tool_calls[0].function.arguments
line = step_line(1, response, [], 2.0)
assert (line.get("input"), line.get("result_preview")) == (raw, None), (
    "arguments that are not valid JSON go into 'input' as the raw string, and a call without a result has "
    f"result_preview None; got input {line.get('input')!r}, result_preview {line.get('result_preview')!r}")
thinking = wb.scenarios.deepseek_thinking()
response = wb.fake_llm.FakeLLM(thinking, dialect="deepseek").client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": thinking.question}], tools=thinking.openai_tools())
line = step_line(1, response, [], 1.0)
assert line.get("thought") == "I need the taxi total for September 2026.", (
    f"the thought is the reply's reasoning_content when it has one (DeepSeek's); got {line.get('thought')!r}")
print("step_line: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "step_line_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: step_line cuts long results to 200 characters ending in "…", pairs results by
tool_call_id, lists every call of a parallel reply in "calls", keeps arguments that are not JSON as
the raw string, has no thought or tool for a final answer, takes DeepSeek's reasoning_content as
the thought, and returns plain JSON data."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def first_response(scenario, dialect="openai", messages=None):
    llm = wb.fake_llm.FakeLLM(scenario, dialect=dialect)
    return llm.client().chat.completions.create(
        model="fake-model", messages=messages or [{"role": "user", "content": scenario.question}],
        tools=scenario.openai_tools())


def line_of(*args):
    with wb.checks.no_raise("step_line", hint='read the reply through response.choices[0].message; pair results by tool_call_id with .get, a call may have none'):
        line = step_line(*args)
    assert type(line) is dict, f"step_line must return a dict, got {type(line).__name__}"
    assert json.loads(json.dumps(line)) == line, "a step line must be plain JSON data (str, int, dict, list, None)"
    return line


# A long result is cut to 200 characters, ending in "…"; a result of exactly 200 is kept.
response = first_response(wb.scenarios.taxi_spending())
call_id = response.choices[0].message.tool_calls[0].id
for length in (199, 200):
    text = "x" * length
    got = line_of(3, response, [{"role": "tool", "tool_call_id": call_id, "content": text}], 10.0)
    assert got["result_preview"] == text, f"a result of {length} characters is kept whole"
text = json.dumps({"rows": list(range(400))})
got = line_of(3, response, [{"role": "tool", "tool_call_id": call_id, "content": text}], 10.0)
assert got["result_preview"] == text[:199] + "…" and len(got["result_preview"]) == 200, (
    f"a long result becomes its first 199 characters plus '…' (200 in all); got {got['result_preview'][-20:]!r} "
    f"({len(got['result_preview'] or '')} characters)")
assert got["thought"] is None, "a tool call without any text beside it has thought None"
assert got["step"] == 3 and got["ms"] == 10.0 and got["type"] == "step", "a step line holds type 'step', and step and ms as they were given"

# Parallel calls: results paired by id, whatever their order; every call in "calls".
response = first_response(wb.scenarios.two_orders())
calls = response.choices[0].message.tool_calls
shop = wb.shop.Shop()
results = [{"role": "tool", "tool_call_id": c.id,
            "content": json.dumps(shop.get_order(json.loads(c.function.arguments)["order_id"]))} for c in calls]
got = line_of(1, response, results[::-1], 5)
assert got["tool"] == "get_order" and got["input"] == {"order_id": "A-1001"}, (
    f"tool and input describe the first call; got {got['tool']!r}, {got['input']!r}")
assert got["result_preview"] == results[0]["content"], (
    "pair results with calls by tool_call_id (here they came in reverse order); the first call's preview "
    f"is its own result, got {got['result_preview']!r}")
assert got.get("calls") == [{"tool": "get_order", "input": {"order_id": "A-1001"}, "result_preview": results[0]["content"]},
                            {"tool": "get_order", "input": {"order_id": "A-1002"}, "result_preview": results[1]["content"]}], (
    f"a reply with two calls lists both in 'calls', in the reply's order, each with its own result; got {got.get('calls')!r}")

# A call whose result is missing has result_preview None.
got = line_of(1, response, [], 5)
assert got["result_preview"] is None, f"no result for the call: result_preview None, got {got['result_preview']!r}"

# Arguments that are not JSON are kept as the raw string.
response = first_response(wb.scenarios.broken_json_then_fix())
raw = response.choices[0].message.tool_calls[0].function.arguments
got = line_of(1, response, [], 1)
assert got["input"] == raw, f"arguments that are not valid JSON go into 'input' as the raw string; got {got['input']!r}"

# A final answer: no thought, no tool.
scenario = wb.scenarios.taxi_spending()
first = first_response(scenario)
tool_call = first.choices[0].message.tool_calls[0]
history = [{"role": "user", "content": scenario.question}, first.choices[0].message.model_dump(exclude_none=True),
           {"role": "tool", "tool_call_id": tool_call.id, "content": json.dumps(wb.shop.Shop().txn_sum("taxi", "2026-09"))}]
final = first_response(scenario, messages=history)
got = line_of(2, final, [], 7.5)
assert (got["thought"], got["tool"], got["input"], got["result_preview"]) == (None, None, None, None), (
    "a reply without tool calls has thought, tool, input and result_preview None (the answer goes in the "
    f"summary); got {[got.get(k) for k in ('thought', 'tool', 'input', 'result_preview')]}")
assert got["tokens_in"] == final.usage.prompt_tokens and got["tokens_out"] == final.usage.completion_tokens, (
    "tokens_in is usage.prompt_tokens, tokens_out is usage.completion_tokens")
assert "calls" not in got or got["calls"] == [], "a reply without calls has no 'calls' list"

# DeepSeek's reasoning_content is the thought.
response = first_response(wb.scenarios.deepseek_thinking(), dialect="deepseek")
got = line_of(1, response, [], 1)
assert got["thought"] == "I need the taxi total for September 2026.", (
    f"take the thought from reasoning_content when the reply has one; got {got['thought']!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · Log every stop
#
# The loop writes a step line as soon as each step is done, and a **summary line** when the run
# stops — for every way it stops, not only for a final answer:
#
# ```
# {"type": "summary", "status": "done" | "STOPPED: step limit" | "STOPPED: length" | ...,
#  "steps": <number of step lines>, "tokens_in": <sum>, "tokens_out": <sum>,
#  "total_tokens": <tokens_in + tokens_out>, "answer": <the final text, or null>}
# ```
#
# Two rules make the log trustworthy:
#
# - **Append each line when its step is done**, not all at the end. If the process dies at step 5,
#   the file still shows steps 1–4, and a missing summary says "this run did not finish".
# - **Every stop writes a summary.** Runs that hit a limit are exactly the ones you will want to
#   read later; a log that only records successes hides the failures.
#
# The clock is a parameter (`clock=time.perf_counter`), as in chapter 06, so a test can pass a
# fake clock and know the exact milliseconds. `ms` times the **model call** only: tool time is a
# different question.

# %% [markdown]
# ## Exercise 2 — `run_logged` (4 points)
#
# Write `run_logged(client, model, question, tools, impl, log_path, max_steps=8, system=None,
# clock=time.perf_counter)`, chapter 03's loop that also writes the trajectory:
#
# - the conversation starts with `{"role": "system", "content": system}` when `system` is given,
#   then the user's question;
# - each step: read `clock()` just before and just after `chat.completions.create`; `ms` is the
#   difference × 1000 (rounding to 0.1 ms is fine). Append the assistant message
#   (`model_dump(exclude_none=True)`), run the calls with `tool_message`, append their results, then
#   **append** one step line to `log_path` (`json.dumps(line, ensure_ascii=False)` plus `"\n"`,
#   file opened with `"a"`);
# - stop as in chapter 03 — `"done"` on a reply without calls whose `finish_reason` is `"stop"`,
#   `f"STOPPED: {finish_reason}"` for any other reply without calls, `"STOPPED: step limit"` after
#   `max_steps` model calls — and write the summary line **before** returning the `AgentResult`.
#
# You may call your `step_line` (the reference builds the lines itself, so this exercise is graded
# on its own).

# %% nbgrader={"grade": false, "grade_id": "run_logged", "locked": false, "schema_version": 3, "solution": true}
def run_logged(client, model, question, tools, impl, log_path, max_steps=8, system=None,
               clock=time.perf_counter):
    """The agent loop that writes its trajectory: a line per step, then a summary line for any stop."""
    ### BEGIN SOLUTION
    def write(line):
        with open(log_path, "a", encoding="utf-8") as log:  # on disk as soon as the step is done
            log.write(json.dumps(line, ensure_ascii=False) + "\n")

    def stop(answer, status, steps):
        write({"type": "summary", "status": status, "steps": steps, "tokens_in": used[0],
               "tokens_out": used[1], "total_tokens": used[0] + used[1], "answer": answer})
        return AgentResult(answer, status, steps)

    def preview(content):
        return content if content is None or len(content) <= 200 else content[:199] + "…"

    messages = ([{"role": "system", "content": system}] if system else [])
    messages.append({"role": "user", "content": question})
    used = [0, 0]
    for step in range(1, max_steps + 1):
        started = clock()
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        ms = round((clock() - started) * 1000, 1)
        choice = response.choices[0]
        message = choice.message.model_dump(exclude_none=True)
        messages.append(message)
        calls = message.get("tool_calls", [])
        results = [tool_message(call, impl) for call in calls]
        messages.extend(results)
        used[0] += response.usage.prompt_tokens
        used[1] += response.usage.completion_tokens
        described = []
        for call, result in zip(calls, results):
            try:
                args = json.loads(call["function"]["arguments"])
            except json.JSONDecodeError:
                args = call["function"]["arguments"]
            described.append({"tool": call["function"]["name"], "input": args,
                              "result_preview": preview(result["content"])})
        first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
        thought = message.get("reasoning_content") or (message.get("content") or None if calls else None)
        line = {"type": "step", "step": step, "thought": thought, **first,
                "tokens_in": response.usage.prompt_tokens, "tokens_out": response.usage.completion_tokens,
                "ms": ms}
        write(line | ({"calls": described} if len(described) > 1 else {}))
        if not calls:
            if choice.finish_reason == "stop":
                return stop(message.get("content"), "done", step)
            return stop(None, f"STOPPED: {choice.finish_reason}", step)
    return stop(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_logged_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_logged answers the taxi question and leaves a trajectory of two step lines and
a summary line (with the steps' tokens added up) that the workbook's trajectory reader reads
without a problem; ms times the model call only, not the tools; a run stopped by the step limit,
or by a reply cut off at its token limit, ends with a summary line too; the system prompt comes
first; when the provider fails at step 2, step 1's line is already on disk."""
import openai
import json

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()
scenario = wb.scenarios.taxi_spending()
llm = wb.fake_llm.FakeLLM(scenario)
with notebook_folder() as folder:
    path = folder / "run.jsonl"
    result = run_logged(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                        wb.shop.Shop().tools(), path)
    assert wb.checks.kind(result) == "AgentResult" and (result.answer, result.status, result.steps) == (
        scenario.answer, "done", 2), f"expected AgentResult({scenario.answer!r}, 'done', 2), got {result!r}"
    assert path.is_file(), "run_logged must write the trajectory to log_path"
    text = path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line.get("type") for line in lines] == ["step", "step", "summary"], (
        f"expected two step lines then a summary line; the types were {[line.get('type') for line in lines]}")
    summary = lines[-1]
    assert (summary.get("status"), summary.get("steps"), summary.get("answer")) == ("done", 2, scenario.answer), (
        f"the summary says how the run ended: status 'done', steps 2, the answer; got {summary}")
    tin, tout = sum(line.get("tokens_in") or 0 for line in lines[:-1]), sum(line.get("tokens_out") or 0 for line in lines[:-1])
    assert (summary.get("tokens_in"), summary.get("tokens_out"), summary.get("total_tokens")) == (tin, tout, tin + tout), (
        f"the summary adds up the steps' tokens: tokens_in {tin}, tokens_out {tout}, total_tokens {tin + tout}; "
        f"got {summary}")
    traj = wb.trace.read_jsonl(path)
    assert traj.problems == [], f"the trajectory reader found problems: {traj.problems}"
    limited = wb.scenarios.never_finishes()
    path = folder / "limit.jsonl"
    result = run_logged(wb.fake_llm.FakeLLM(limited).client(), "fake-model", limited.question,
                        limited.openai_tools(), {"search_kb": lambda query: {"hits": []}}, path, max_steps=2)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert result.status == "STOPPED: step limit" and lines and lines[-1].get("type") == "summary", (
        "a run stopped by the step limit must end its trajectory with a summary line too; the last line was "
        f"{lines[-1] if lines else None}")
    cut = wb.scenarios.cut_off()
    llm, path = wb.fake_llm.FakeLLM(cut), folder / "cut.jsonl"
    result = run_logged(llm.client(), "fake-model", cut.question, cut.openai_tools(), wb.shop.Shop().tools(), path,
                        system="Be brief.")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert llm.requests[0]["messages"][0] == {"role": "system", "content": "Be brief."}, (
        f"with system=..., the conversation starts with the system message; sent {llm.requests[0]['messages'][:1]}")
    assert (result.status, result.answer, lines[-1].get("type"), lines[-1].get("status")) == (
        "STOPPED: length", None, "summary", "STOPPED: length"), (
        "a reply without calls whose finish_reason is not 'stop' ends the run with f'STOPPED: {finish_reason}' "
        f"and a summary line; got {result!r} and last line {lines[-1]}")

    now = [0.0]

    def tick():  # every read of the clock moves it on by 0.25 s
        now[0] += 0.25
        return now[0]

    def slow_txn_sum(category, month):  # the tool takes 5 s
        now[0] += 5
        return {"category": category, "month": month, "count": 2, "total_kzt": 5000}

    path = folder / "timed.jsonl"
    run_logged(wb.fake_llm.FakeLLM(scenario).client(), "fake-model", scenario.question, scenario.openai_tools(),
               {"txn_sum": slow_txn_sum}, path, clock=tick)
    ms = [json.loads(line).get("ms") for line in path.read_text(encoding="utf-8").splitlines()][:2]
    assert all(type(m) in (int, float) and m < 1000 for m in ms), (
        f"ms is the model call's time only (clock() just before and just after create); the 5 s tool must not "
        f"count; got ms {ms}")

    S = wb.scenarios
    failing = S.scripted(S.call("txn_sum", category="taxi", month="2026-09"), S.server_error(500), tools=("txn_sum",))
    path = folder / "crash.jsonl"
    with wb.checks.raises(openai.InternalServerError, what="run_logged when the provider fails at step 2"):
        run_logged(wb.fake_llm.FakeLLM(failing).client(max_retries=0), "fake-model", scenario.question,
                   failing.openai_tools(), wb.shop.Shop().tools(), path)
    written = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    assert len(written) == 1 and json.loads(written[0]).get("step") == 1, (
        "write each step line as soon as the step is done (open log_path with 'a' every step): after a failure "
        f"at step 2, step 1 must be on disk; found {len(written)} lines")
print("run_logged: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_logged_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_logged writes a summary for the step limit and for a cut-off reply, adds up the
tokens, times only the model call with the given clock, logs each step as soon as it is done (a run
that dies leaves its steps and no summary), records thoughts, starts with the system prompt when
given, and writes one line per model call."""
### BEGIN HIDDEN TESTS
import json
import math
import types

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()


class Timed:
    """A client whose model calls take `call_s` seconds of a fake clock; tools can spend time too."""

    LINK_DATA = ("chat",)  # graded, what the notebook may read of it besides its methods

    def __init__(self, client, call_s=0.8, cap=12):
        self.client, self.call_s, self.cap, self.now, self.n = client, call_s, cap, 100.0, 0
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def clock(self):
        return self.now

    def create(self, **kwargs):
        self.n += 1
        if self.n > self.cap:
            raise AssertionError("the model was called more times than max_steps allows")
        self.now += self.call_s
        return self.client.chat.completions.create(**kwargs)


def logged(scenario, impl, folder, max_steps=8, system=None, timed=None, expect_crash=False):
    llm = wb.fake_llm.FakeLLM(scenario)
    timed = timed or Timed(llm.client())
    timed.client = llm.client()
    path = folder / f"{scenario.name}-{len(list(folder.iterdir()))}.jsonl"  # a new file per run
    kwargs = {"system": system} if system else {}
    result = None
    try:
        with wb.checks.no_raise("run_logged", hint='every stop is a status with a summary line, never an exception'):
            result = run_logged(timed, "fake-model", scenario.question, scenario.openai_tools(), impl, path,
                                max_steps=max_steps, clock=timed.clock, **kwargs)
    except BaseException as e:  # the crash the test provokes (a BaseException, as a power cut)
        if not (expect_crash and type(e).__name__ == "Crash"):
            raise
    if result is not None:
        assert wb.checks.kind(result) == "AgentResult", f"run_logged must return an AgentResult, got {result!r}"
    assert path.is_file(), "run_logged must write to log_path"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return llm, result, lines, path


with notebook_folder() as folder:
    # The step limit: three step lines, then the summary.
    search = {"search_kb": lambda query: {"hits": []}}
    llm, result, lines, path = logged(wb.scenarios.never_finishes(), search, folder, max_steps=3)
    assert (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3), (
        f"expected AgentResult(None, 'STOPPED: step limit', 3), got {result!r}")
    assert [line.get("type") for line in lines] == ["step"] * 3 + ["summary"], (
        "a run stopped by the step limit still ends with a summary line: got types "
        f"{[line.get('type') for line in lines]}")
    summary = lines[-1]
    assert summary.get("status") == "STOPPED: step limit" and summary.get("answer") is None and summary.get("steps") == 3, (
        f"the summary of a limit stop: status 'STOPPED: step limit', answer null, steps 3; got {summary}")
    prompts = [wb.fake_llm.prompt_tokens(body["messages"], body["tools"]) for body in llm.requests]
    assert [line.get("step") for line in lines[:3]] == [1, 2, 3], "steps are numbered 1, 2, 3"
    assert [line.get("tokens_in") for line in lines[:3]] == prompts, (
        f"tokens_in of each step is that call's usage.prompt_tokens {prompts}; got {[line.get('tokens_in') for line in lines[:3]]}")
    tin, tout = sum(line["tokens_in"] for line in lines[:3]), sum(line["tokens_out"] for line in lines[:3])
    assert (summary.get("tokens_in"), summary.get("tokens_out"), summary.get("total_tokens")) == (tin, tout, tin + tout), (
        f"the summary adds up the steps: tokens_in {tin}, tokens_out {tout}, total_tokens {tin + tout}; got {summary}")
    assert wb.trace.read_jsonl(path).problems == [], f"reader problems: {wb.trace.read_jsonl(path).problems}"

    # A reply cut off by the token limit: a stop status, and a summary.
    llm, result, lines, path = logged(wb.scenarios.cut_off(), wb.shop.Shop().tools(), folder)
    assert (result.status, result.answer) == ("STOPPED: length", None), f"expected 'STOPPED: length', got {result!r}"
    assert lines[-1].get("type") == "summary" and lines[-1].get("status") == "STOPPED: length", (
        f"a 'length' stop also ends with a summary line; the last line was {lines[-1]}")
    assert len(lines) == 3 and lines[1].get("tool") is None, "two model calls, two step lines, then the summary"

    # ms is the model call only, read from the clock you were given.
    timed = Timed(None, call_s=0.8)

    def slow(fn):
        def tool(**kwargs):
            timed.now += 0.3  # the tool takes 0.3 s of the same clock
            return fn(**kwargs)
        return tool

    slow_tools = {name: slow(fn) for name, fn in wb.shop.Shop().tools().items()}
    llm, result, lines, path = logged(wb.scenarios.taxi_spending(), slow_tools, folder, timed=timed)
    for line in lines[:-1]:
        assert isinstance(line.get("ms"), (int, float)) and math.isclose(line["ms"], 800.0, abs_tol=0.05), (
            "ms is (clock() after the model call - clock() before it) * 1000 with the clock you were given: "
            f"each fake model call takes 0.8 s, the tool 0.3 s more; expected 800.0, got {line.get('ms')!r}")

    # Thoughts, and the system prompt first.
    payments = wb.payments.Payments()
    impl = {**wb.shop.Shop().tools(), "refund": lambda order_id, amount: payments.refund(order_id, amount, "k-" + order_id)}
    llm, result, lines, path = logged(wb.scenarios.refund_then_check(), impl, folder,
                                      system="Before each tool call, say why in one short sentence.")
    assert result.status == "done" and len(lines) == 5, f"refund_then_check: 4 step lines and a summary; got {len(lines)} lines"
    assert lines[1].get("thought") == "The lamp cost 2450 KZT: I refund that amount.", (
        f"the thought is the reply's content beside the tool call; got {lines[1].get('thought')!r}")
    assert lines[1].get("tool") == "refund" and lines[1].get("input") == {"order_id": "A-1001", "amount": 2450}, "the refund step's line: tool 'refund' and its parsed input"
    first = llm.requests[0]["messages"]
    assert first[0] == {"role": "system", "content": "Before each tool call, say why in one short sentence."} and (
        first[1]["role"] == "user"), f"with system=..., the conversation starts with the system message; sent {first[:2]}"

    # A run that dies: the steps done so far are on disk, and there is no summary.
    payments = wb.payments.Payments()
    impl = {**wb.shop.Shop().tools(), "refund": lambda order_id, amount: payments.refund(order_id, amount, "k-" + order_id)}
    llm, result, lines, path = logged(wb.scenarios.refund_then_check(crash_on_step=3), impl, folder,
                                      expect_crash=True)
    assert [line.get("type") for line in lines] == ["step", "step"], (
        "the process died during model call 3: the file must already hold the two finished steps (append each "
        f"line when its step is done) and no summary; it held {[line.get('type') for line in lines]}")
    assert "no summary line" in " ".join(wb.trace.read_jsonl(path).problems), "a run that died leaves its step lines and no summary line"
### END HIDDEN TESTS

# %% [markdown]
# ### Reading a trajectory
#
# `workbook.trace` reads a trajectory file and shows it: `read_jsonl` parses it (and reports any
# problem in words instead of raising), `table` lays the steps out, `view` steps through them.
# Here is a run of `refund_then_check` with the system prompt that asks for thoughts, and one that
# hits the step limit:

# %%
THOUGHT_PROMPT = "You are Northwind support. Before each tool call, say in one short sentence why you make it."

scenario = scenarios.refund_then_check()
log_path = WORK / "refund_then_check.jsonl"
log_path.unlink(missing_ok=True)  # run_logged appends: running this cell again starts a new log
result = run_logged(FakeLLM(scenario).client(), "fake-model", scenario.question, scenario.openai_tools(),
                    {**Shop().tools(), "refund": make_refund_tool(Payments())}, log_path, system=THOUGHT_PROMPT)
print(result)
traj = trace.read_jsonl(log_path)
trace.table(traj)

# %%
limit_path = WORK / "never_finishes.jsonl"
limit_path.unlink(missing_ok=True)  # a new log each time the cell runs
scenario = scenarios.never_finishes()
run_logged(FakeLLM(scenario).client(), "fake-model", scenario.question, scenario.openai_tools(),
           {"search_kb": lambda query: {"hits": []}}, limit_path, max_steps=3)
print(limit_path.read_text(encoding="utf-8"))
trace.view(trace.read_jsonl(limit_path))

# %% [markdown]
# The `ms` column shows real milliseconds here (the default clock); the fake answers in about a
# millisecond. Against a live provider they are hundreds or thousands, and they grow with the
# prompt: the capstone's evaluation (chapter 11) puts them in a column of its table.

# %% [markdown]
# ## Part 3 · Checkpoints, written atomically
#
# The message list is the agent's whole memory (chapter 01). Save it after every step, together
# with the step number and the run's status, and a run can be continued from that point by a new
# process. That saved state is a **checkpoint**:
#
# ```json
# {"step": 2, "messages": [...], "status": "running", "answer": null}
# ```
#
# Saving it is more delicate than it looks. The obvious code opens the file for writing — which
# **empties it at once** — and then writes. If the process dies in between, or serialising fails
# half-way, the old checkpoint is gone and the new one is half written: the one file that was
# supposed to survive a crash is destroyed by it. Here is that happening, with an object that
# fails while being serialised standing in for the crash:

# %%
class DiesWhileWritten:
    """Stands in for a crash in the middle of writing: serialising it raises."""

    def __repr__(self):
        raise RuntimeError("the process died while writing the checkpoint (simulated)")

    __str__ = __repr__


def naive_save(path, state):
    with open(path, "w", encoding="utf-8") as f:  # "w" empties the file first...
        json.dump(state, f, default=str)  # ...then a crash part-way leaves half a file


checkpoint = WORK / "naive.json"
naive_save(checkpoint, {"step": 1, "messages": [{"role": "user", "content": "Refund my lamp, please."}]})
print("before:", checkpoint.read_text())
try:
    naive_save(checkpoint, {"step": 2, "messages": [{"role": "user", "content": "Refund my lamp, please."},
                                                    DiesWhileWritten()]})
except RuntimeError as e:
    print("crash: ", e)
print("after: ", checkpoint.read_text())
try:
    json.loads(checkpoint.read_text())
except json.JSONDecodeError as e:
    print("the checkpoint is broken:", e)

# %% [markdown]
# The fix is the classic **atomic write**:
#
# 1. write the whole new state into a **temporary file in the same folder**
#    (`tempfile.mkstemp(dir=path.parent)`), flush it, and `os.fsync` it so it is really on disk;
# 2. `os.replace(temporary, path)`: renaming a file within one file system is atomic, so anyone
#    reading `path` sees either the complete old checkpoint or the complete new one — never half;
# 3. if anything fails before the rename, delete the temporary file and let the error propagate:
#    the old checkpoint is untouched.
#
# "The same folder" matters: `os.replace` renames within one file system only. Across two it does
# not quietly fall back to a copy; it raises `OSError` (errno `EXDEV`, "Invalid cross-device
# link"). The system's temporary folder is often on another file system than your data (`/tmp` is
# often a RAM disk), while a temporary file next to the checkpoint is always on the right one.

# %% [markdown]
# Reading a checkpoint back is the easy half, and it is given: `load_checkpoint(path)` returns the
# saved state, or `None` when there is no checkpoint yet.

# %% nbgrader={"grade": false, "grade_id": "given_load_checkpoint", "locked": true, "schema_version": 3, "solution": false}
def load_checkpoint(path):
    """The state saved at `path`, or None when there is no checkpoint yet."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"the checkpoint {path.name} is broken ({e}); was it written atomically?") from None


# %% [markdown]
# ## Exercise 3 — `save_checkpoint` (3 points)
#
# Write `save_checkpoint(path, state, replace=os.replace)`: save the JSON-able dict `state` to
# `path` (a `str` or a `Path`) atomically, as described above. After it returns, `path` holds
# exactly `json.dumps(state)`'s data and no temporary file is left. If serialising fails, the
# exception propagates, the previous content of `path` is untouched, and no temporary file is left.
#
# Make the rename with `replace(temporary, path)`: the parameter is `os.replace` unless a caller
# passes another function with the same job (the tests pass one that notes each move before it
# makes it, as chapter 08's tests passed their own `sleep`).

# %% nbgrader={"grade": false, "grade_id": "save_checkpoint", "locked": false, "schema_version": 3, "solution": true}
def save_checkpoint(path, state, replace=os.replace):
    """Write `state` as JSON to `path` atomically: a temporary file in the same folder, then replace()."""
    ### BEGIN SOLUTION
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())  # on disk before it takes the checkpoint's name
        replace(temporary, path)  # atomic (os.replace): the old checkpoint or the new one, never half of one
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "save_checkpoint_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: save_checkpoint writes the state as JSON, overwrites an older checkpoint, leaves no
temporary file behind (also when writing fails part-way, and the old checkpoint stays), and moves
the new file into place with replace(temporary, path) from a temporary file in the checkpoint's
folder."""
import json
import os

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder, notebook_path

wb = fresh()
UNWRITABLE = {("a", "tuple"): "JSON keys are strings: serialising this raises, as a crash part-way would"}


def mover(folder):
    """A replace= for save_checkpoint: makes each move in `folder` only, and notes each (source,
    target) move it made (a call that failed moved nothing)."""
    moves = []

    def replace(src, dst):
        src, dst = notebook_path(os.fsdecode(src)), notebook_path(os.fsdecode(dst))
        if src.resolve().parent != folder or dst.resolve().parent != folder:
            raise AssertionError(
                f"replace({str(src)!r}, {str(dst)!r}): the temporary file must be in the checkpoint's own folder "
                "(os.replace is atomic only within one file system)")
        before = dst.read_text(encoding="utf-8", errors="replace") if dst.is_file() else None
        src.replace(dst)
        moves.append((src, dst))
        replace.held.append(before)  # what the target held until the move

    replace.held = []
    return replace, moves


with notebook_folder() as folder:
    path = folder / "run.json"
    first = {"step": 1, "messages": [{"role": "user", "content": "Refund my lamp, please."}], "status": "running"}
    save_checkpoint(path, first)
    assert path.is_file(), "save_checkpoint must create the file at path"
    assert json.loads(path.read_text(encoding="utf-8")) == first, "the file must hold the state as JSON"
    second = {**first, "step": 2, "messages": first["messages"] + [{"role": "assistant", "content": "Done."}]}
    save_checkpoint(str(path), second)
    assert json.loads(path.read_text(encoding="utf-8")) == second, "a new save replaces the old checkpoint (path may be a str)"
    left = sorted(p.name for p in folder.iterdir())
    assert left == ["run.json"], f"only the checkpoint may be left in the folder; found {left}"
    with wb.checks.raises(Exception, what="save_checkpoint of a state that cannot be serialised"):
        save_checkpoint(path, {"step": 3, "messages": second["messages"] * 100 + [UNWRITABLE]})
    try:
        survived = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise AssertionError("writing failed part-way and left a broken checkpoint: write a temporary file in "
                             "the same folder, then os.replace it onto path") from None
    assert survived == second, "writing failed part-way and the old checkpoint changed; it must stay as it was"
    left = sorted(p.name for p in folder.iterdir())
    assert left == ["run.json"], f"after a failed save, delete the temporary file; the folder holds {left}"

    replace, moves = mover(folder)
    save_checkpoint(path, {**second, "step": 4}, replace=replace)
    onto = [src for src, dst in moves if dst.resolve() == path.resolve()]
    assert onto and onto[-1].resolve().parent == path.resolve().parent and onto[-1].resolve() != path.resolve(), (
        "write a temporary file in the checkpoint's own folder, then replace(temporary, path): writing the "
        f"file directly, or from another folder (file system), is not atomic; moves seen: {moves}")
    assert json.loads(replace.held[-1] or "null") == second, (
        "until the move, the checkpoint must still hold the old state: write the new one to the temporary file "
        "only, never to path itself (a crash in between would leave half a file)")
    assert json.loads(path.read_text(encoding="utf-8"))["step"] == 4, "after the move, path holds the new state"
    left = sorted(p.name for p in folder.iterdir())
    assert left == ["run.json"], f"only the checkpoint may be left in the folder; found {left}"
print("save_checkpoint: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "save_checkpoint_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: when writing fails part-way the old checkpoint survives intact and no temporary file
is left; the new file is moved into place with replace() from a temporary file in the same folder;
text that is not ASCII survives."""
### BEGIN HIDDEN TESTS
import json
import os

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder, notebook_path

wb = fresh()
UNWRITABLE = {("not", "a", "str"): "a key JSON cannot write"}


def mover(folder):
    moves = []

    def replace(src, dst):  # a move is noted once made: a failed call moved nothing
        src, dst = notebook_path(os.fsdecode(src)), notebook_path(os.fsdecode(dst))
        if src.resolve().parent != folder or dst.resolve().parent != folder:
            raise AssertionError(f"the temporary file must be in the checkpoint's own folder (os.replace is atomic "
                                 f"only within one file system); it was {str(src)!r}")
        before = dst.read_text(encoding="utf-8", errors="replace") if dst.is_file() else None
        src.replace(dst)
        moves.append((src, dst))
        replace.held.append(before)  # what the target held until the move

    replace.held = []
    return replace, moves


with notebook_folder() as folder:
    path = folder / "run.json"
    good = {"step": 2, "messages": [{"role": "user", "content": "Верните деньги за лампу, пожалуйста. " * 20}],
            "status": "running", "answer": None}
    save_checkpoint(path, good)
    assert json.loads(path.read_text(encoding="utf-8")) == good, "text that is not ASCII must survive the round trip"

    # A crash part-way: the old checkpoint must survive.
    broken = {"step": 3, "messages": good["messages"] * 50 + [{"role": "tool", "content": UNWRITABLE}]}
    with wb.checks.raises(Exception, what="save_checkpoint of a state that cannot be serialised (it must not "
                          "pretend it worked)"):
        save_checkpoint(path, broken)
    try:
        survived = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise AssertionError("writing failed part-way and the checkpoint is now broken JSON: write to a temporary "
                             "file, then os.replace it onto the checkpoint") from None
    assert survived == good, "writing failed part-way and the old checkpoint was changed; it must stay as it was"
    left = sorted(p.name for p in folder.iterdir())
    assert left == ["run.json"], f"after a failed save, delete the temporary file; the folder holds {left}"

    # The new file arrives by a rename from the same folder.
    replace, moves = mover(folder)
    with wb.checks.no_raise("save_checkpoint(path, state, replace=...)", hint="call replace(temporary, path) once, with the temporary file in path's folder"):
        save_checkpoint(path, {**good, "step": 4}, replace=replace)
    onto = [(src, dst) for src, dst in moves if dst.resolve() == path.resolve()]
    assert onto, ("the checkpoint must be moved into place with replace(temporary, path): writing the file "
                  "directly is not atomic")
    src = onto[-1][0]
    assert src.resolve().parent == path.resolve().parent and src.resolve() != path.resolve(), (
        f"the temporary file must be in the checkpoint's own folder (os.replace is atomic only within one file "
        f"system); it was {src}")
    held = [h for (s, d), h in zip(moves, replace.held) if d.resolve() == path.resolve()][-1]
    assert json.loads(held or "null") == good, (
        "until the move, the checkpoint must still hold the old state: write the new state to the temporary "
        "file only, never to path itself")
    assert json.loads(path.read_text(encoding="utf-8"))["step"] == 4, "after the move, path holds the new state"
    assert sorted(p.name for p in folder.iterdir()) == ["run.json"], "no temporary file may be left"
### END HIDDEN TESTS

# %% [markdown]
# The same crash as before, with your `save_checkpoint`:

# %%
checkpoint = WORK / "atomic.json"
before = set(WORK.iterdir()) | {checkpoint}  # to see whether a temporary file is left behind
save_checkpoint(checkpoint, {"step": 1, "messages": [{"role": "user", "content": "Refund my lamp, please."}]})
try:
    save_checkpoint(checkpoint, {"step": 2, "messages": [DiesWhileWritten()]})
except Exception as e:
    print("crash:", type(e).__name__, e)
print("the checkpoint is still step", load_checkpoint(checkpoint)["step"], "| other files left:",
      sorted(p.name for p in set(WORK.iterdir()) - before))

# %% [markdown]
# ## Part 4 · Resume a crashed run
#
# With a checkpoint after every step, resuming is short:
#
# ```
# state = load_checkpoint(path), or a fresh one: {"step": 0, "messages": [question], "status": "running", "answer": None}
# if state["status"] is not "running": the run is over; return its result, do nothing again
# while state["step"] < max_steps:
#     state["step"] += 1; call the model with state["messages"]; append the reply
#     no tool calls → set status ("done" or "STOPPED: <finish_reason>") and answer; save; return
#     run the calls, append their results
#     save_checkpoint(path, state)             ← the step is finished: it will never run again
# status "STOPPED: step limit"; save; return
# ```
#
# `refund_then_check(crash_on_step=3)` plays the crash: its third model call never returns (the
# process "dies" with `scenarios.Crash`, which no `except Exception` catches). Steps 1 and 2 — the
# look-up and the **refund** — were finished and checkpointed. The resumed run, a new process with
# a new client, must continue at model call 3, and must not refund again.
#
# Note where the checkpoint leaves a gap: a crash *after* a tool ran but *before* the checkpoint
# was saved. Resuming then re-runs that step, and its tool runs twice. No ordering of saves closes
# this gap for good; what closes it is an **idempotent** action (chapter 08). Checkpoints give you
# "at least once"; idempotency turns it into "effectively once".

# %% [markdown]
# ## Exercise 4 — `run_resumable` (4 points)
#
# Write `run_resumable(client, model, question, tools, impl, path, max_steps=8)` following the
# outline above:
#
# - the state is `{"step", "messages", "status", "answer"}`; a missing checkpoint means a fresh
#   run (the messages start with the user's question);
# - call the model with `client.chat.completions.create(model=model, messages=..., tools=tools)`,
#   append the reply as `message.model_dump(exclude_none=True)`, and run tool calls with `tool_message`;
# - save with `save_checkpoint` after **every** step that ran tools, and when the run ends;
# - a checkpoint whose status is not `"running"` is a finished run: return
#   `AgentResult(answer, status, step)` from it without calling the model;
# - `AgentResult.steps` counts the model calls of the whole run, before and after the crash.

# %% nbgrader={"grade": false, "grade_id": "run_resumable", "locked": false, "schema_version": 3, "solution": true}
def run_resumable(client, model, question, tools, impl, path, max_steps=8):
    """The agent loop with a checkpoint after every step: a run that crashed continues where it stopped."""
    ### BEGIN SOLUTION
    state = load_checkpoint(path) or {"step": 0, "messages": [{"role": "user", "content": question}],
                                      "status": "running", "answer": None}
    if state["status"] != "running":  # finished earlier: report it, repeat nothing
        return AgentResult(state["answer"], state["status"], state["step"])
    messages = state["messages"]
    while state["step"] < max_steps:
        state["step"] += 1
        choice = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0]
        message = choice.message.model_dump(exclude_none=True)
        messages.append(message)
        if not message.get("tool_calls"):
            done = choice.finish_reason == "stop"
            state["status"] = "done" if done else f"STOPPED: {choice.finish_reason}"
            state["answer"] = message.get("content") if done else None
            save_checkpoint(path, state)
            return AgentResult(state["answer"], state["status"], state["step"])
        messages.extend(tool_message(call, impl) for call in message["tool_calls"])
        save_checkpoint(path, state)  # this step is finished: it will never run again
    state["status"] = "STOPPED: step limit"
    save_checkpoint(path, state)
    return AgentResult(None, state["status"], state["step"])
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_resumable_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: a run of refund_then_check dies during model call 3; resumed from its checkpoint
with a new client, it finishes with the right answer, and the refund is made once; run again on
the finished checkpoint, it returns the same result without calling the model; a run stopped by
the step limit saves that status, so it is over too."""
import json

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()
payments, shop = wb.payments.Payments(), wb.shop.Shop()
impl = {**shop.tools(), "refund": lambda order_id, amount: payments.refund(order_id, amount, f"k-{len(payments.requests)}")}
healthy = wb.scenarios.refund_then_check()
with notebook_folder() as folder:
    path = folder / "run.json"
    dying = wb.fake_llm.FakeLLM(wb.scenarios.refund_then_check(crash_on_step=3))
    try:
        run_resumable(dying.client(), "fake-model", healthy.question, healthy.openai_tools(), impl, path)
    except BaseException as e:  # the scenario's Crash: the process died
        if type(e).__name__ != "Crash":
            raise
    assert path.is_file(), "after two finished steps there must be a checkpoint at path"
    llm = wb.fake_llm.FakeLLM(healthy)  # a new process: a new client
    result = run_resumable(llm.client(), "fake-model", healthy.question, healthy.openai_tools(), impl, path)
    assert wb.checks.kind(result) == "AgentResult" and (result.answer, result.status, result.steps) == (
        healthy.answer, "done", 4), f"expected AgentResult({healthy.answer!r}, 'done', 4), got {result!r}"
    assert len(payments.refunds) == 1, (
        f"the refund was finished before the crash; resuming made {len(payments.refunds)} refunds. Continue from "
        "the checkpoint's messages instead of starting over")
    assert llm.calls == 2, f"the resumed run needs model calls 3 and 4 only; it made {llm.calls}"
    again = wb.fake_llm.FakeLLM(healthy)
    result = run_resumable(again.client(max_calls=2), "fake-model", healthy.question, healthy.openai_tools(), impl, path)
    assert (result.answer, result.status, result.steps, again.calls) == (healthy.answer, "done", 4, 0), (
        "a checkpoint whose status is not 'running' is a finished run: return its AgentResult without calling the "
        f"model; got {result!r} after {again.calls} model calls")

    path = folder / "limit.json"
    never = wb.scenarios.never_finishes()
    result = run_resumable(wb.fake_llm.FakeLLM(never).client(max_calls=3), "fake-model", never.question,
                           never.openai_tools(), {"search_kb": lambda query: {"hits": []}}, path, max_steps=2)
    assert (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 2), (
        f"after max_steps=2 model calls: AgentResult(None, 'STOPPED: step limit', 2); got {result!r}")
    status = json.loads(path.read_text(encoding="utf-8")).get("status") if path.is_file() else None
    assert status == "STOPPED: step limit", (
        f"save the checkpoint when the run ends, with its stop status; the checkpoint says {status!r}")
print("run_resumable: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_resumable_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_resumable checkpoints after every step (the checkpoint before model call k holds
k-1 finished steps), resumes from a crash at any step without running a finished tool call again,
sends the checkpoint's messages unchanged, starts fresh without a checkpoint, returns a finished
run's result without calling the model, and records the step limit."""
### BEGIN HIDDEN TESTS
import json
import types

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()


class Watching:
    """A client that, before every model call, records what the checkpoint file holds."""

    LINK_DATA = ("chat",)  # graded, what the notebook may read of it besides its methods

    def __init__(self, client, path, cap=10):
        self.client, self.path, self.cap, self.seen = client, path, cap, []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        if len(self.seen) >= self.cap:
            raise AssertionError("too many model calls: does the loop stop at max_steps?")
        self.seen.append(json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else None)
        return self.client.chat.completions.create(**kwargs)


def counting_impl():
    ran, payments, shop = [], wb.payments.Payments(), wb.shop.Shop()

    def counted(name, fn):
        def tool(**kwargs):
            ran.append((name, json.dumps(kwargs, sort_keys=True)))
            return fn(**kwargs)
        return tool

    impl = {"get_order": counted("get_order", shop.get_order),
            "refund": counted("refund", lambda order_id, amount: payments.refund(order_id, amount, f"k{len(ran)}"))}
    return impl, ran, payments


def run(scenario, impl, path, max_steps=8):
    llm = wb.fake_llm.FakeLLM(scenario)
    client = Watching(llm.client(), path)
    result = None
    try:
        with wb.checks.no_raise("run_resumable", hint="a 400 means the provider refused the resumed messages: "
                                "save the checkpoint after the tool results, so it never ends with an "
                                "unanswered assistant turn"):
            result = run_resumable(client, "fake-model", scenario.question, scenario.openai_tools(), impl, path,
                                   max_steps=max_steps)
    except BaseException as e:  # the scenario's Crash, which the test provokes (a BaseException, as a power cut)
        if type(e).__name__ != "Crash":
            raise
    if result is not None:
        assert wb.checks.kind(result) == "AgentResult", f"run_resumable must return an AgentResult, got {result!r}"
    return llm, client, result


healthy = wb.scenarios.refund_then_check()
for crash in (2, 3, 4):
    with notebook_folder() as folder:
        path = folder / "run.json"
        impl, ran, payments = counting_impl()
        llm, client, result = run(wb.scenarios.refund_then_check(crash_on_step=crash), impl, path)
        assert result is None, "the crash must end the run (do not catch BaseException)"
        for k, saved in enumerate(client.seen, start=1):
            if k == 1:
                continue
            assert saved is not None and saved.get("step") == k - 1 and saved.get("status") == "running", (
                f"before model call {k} the checkpoint must hold the {k - 1} finished step(s), status 'running'; "
                f"it held {None if saved is None else {key: saved.get(key) for key in ('step', 'status')}}")
            assert len(saved["messages"]) == 1 + 2 * (k - 1) and saved["messages"][-1]["role"] == "tool", (
                "save after the step's tool results are appended: the checkpoint must end with a tool message")
        before = list(ran)
        checkpoint = json.loads(path.read_text(encoding="utf-8"))
        llm, client, result = run(healthy, impl, path)
        assert (result.answer, result.status, result.steps) == (healthy.answer, "done", 4), (
            f"resumed after a crash in model call {crash}: expected AgentResult({healthy.answer!r}, 'done', 4), "
            f"got {result!r}")
        assert llm.calls == 5 - crash, f"the resumed run must start at model call {crash}; it made {llm.calls} calls"
        assert llm.requests[0]["messages"] == checkpoint["messages"], (
            "the resumed run's first request must send the checkpoint's messages, unchanged")
        repeated = [r for r in ran[len(before):] if r in before]
        assert not repeated, f"finished tool calls ran again after resuming: {repeated}"
        assert len(ran) == 3 and len(payments.refunds) == 1, f"each of the three tool calls runs once; ran {ran}"
        final = json.loads(path.read_text(encoding="utf-8"))
        assert final.get("status") == "done" and final.get("answer") == healthy.answer and final.get("step") == 4, (
            "when the run ends, save its status and answer in the checkpoint")

        # A finished run is not run again.
        llm, client, again = run(healthy, impl, path)
        assert llm.calls == 0 and (again.answer, again.status, again.steps) == (healthy.answer, "done", 4), (
            f"a checkpoint with status 'done' is a finished run: return its result without calling the model; "
            f"made {llm.calls} calls, returned {again!r}")

# The step limit, recorded and final.
with notebook_folder() as folder:
    path = folder / "run.json"
    search = {"search_kb": lambda query: {"hits": []}}
    llm, client, result = run(wb.scenarios.never_finishes(), search, path, max_steps=3)
    assert (result.answer, result.status, result.steps) == (None, "STOPPED: step limit", 3) and llm.calls == 3, (
        f"expected AgentResult(None, 'STOPPED: step limit', 3) after 3 calls, got {result!r} after {llm.calls}")
    assert json.loads(path.read_text(encoding="utf-8")).get("status") == "STOPPED: step limit", "a run stopped by the step limit saves that status in its checkpoint"
    llm, client, again = run(wb.scenarios.never_finishes(), search, path, max_steps=3)
    assert llm.calls == 0 and again.status == "STOPPED: step limit", "a stopped run is over: do not call the model"
### END HIDDEN TESTS

# %% [markdown]
# ### A crash, live
#
# The same crash with a printout of the checkpoint. Notice the resumed run's first request: the
# five messages of the checkpoint, sent by a process that never saw them being made.

# %%
checkpoint = WORK / "crash.json"
checkpoint.unlink(missing_ok=True)  # run_resumable would resume an earlier run of this cell
payments = Payments()
impl = {**Shop().tools(), "refund": make_refund_tool(payments)}
healthy = scenarios.refund_then_check()
try:
    run_resumable(FakeLLM(scenarios.refund_then_check(crash_on_step=3)).client(), "fake-model",
                  healthy.question, healthy.openai_tools(), impl, checkpoint)
except scenarios.Crash as e:
    print("crash:", e)
saved = load_checkpoint(checkpoint)
print("checkpoint: step", saved["step"], "| status", saved["status"], "| roles",
      [m["role"] for m in saved["messages"]])
llm = FakeLLM(healthy)
print(run_resumable(llm.client(), "fake-model", healthy.question, healthy.openai_tools(), impl, checkpoint))
print("the resumed run sent", len(llm.requests[0]["messages"]), "messages first | refunds made:",
      [r["refund_id"] for r in payments.refunds])

# %% [markdown]
# ## Part 5 · A human in the loop
#
# Some actions should not happen on the model's word alone: a refund, blocking a card, anything
# that moves money or cannot be undone (chapter 07 made such tools need confirmation). With a
# checkpoint, "ask a human" no longer means keeping a process waiting for hours. The loop
# **pauses**: it saves the state, says what it wants to do, and returns. Later — a minute or a
# day — someone approves or declines, and the run **resumes** from the checkpoint with that answer.
#
# Frameworks work the same way. In LangGraph, `interrupt()` stops the graph and saves its state;
# calling it again with `Command(resume=...)` continues. Its documentation warns about one detail,
# and it is the point of this part: **the paused step runs again from its beginning**. Whatever
# the step did before the pause, it does a second time.
#
# In our loop, a step is "one model reply and all of its tool calls". When a call needs approval
# and has none yet, the loop saves the messages — ending with the assistant turn that asked for it
# — plus a `"pending"` note, and returns `AgentResult(None, "PAUSED: approval needed", step)`:
#
# ```json
# {"step": 1, "status": "paused", "messages": [..., {"role": "assistant", "tool_calls": [...]}],
#  "pending": {"id": "call_…", "tool": "refund", "input": {"order_id": "A-1001", "amount": 2450}},
#  "approvals": {}, "answer": null}
# ```
#
# Resumed with the human's `decision`, it records it in `"approvals"` (tool call id → `"yes"` or
# `"no"`) and runs that step's tool calls **again, from the first one** — it does not ask the model
# again: the human approved *this* call, and a new reply could ask for something else. Now take a
# reply with two refunds. The first pause is for refund 1; after "yes", refund 1 runs and the loop
# pauses for refund 2; after the second "yes", the step runs again: **refund 1 runs a second
# time**. With chapter 08's refund tool that is harmless; with a naive one the customer is paid
# twice (you will see it below).

# %% [markdown]
# ## Exercise 5 — `run_with_approval` (5 points)
#
# Write `run_with_approval(client, model, question, tools, impl, path, needs_approval,
# decision=None, max_steps=8)`. `needs_approval` is a set of tool names. Start from your
# `run_resumable` and change it so that:
#
# - the state also has `"pending"` (`None` or `{"id", "tool", "input"}`, with `input` the parsed
#   arguments) and `"approvals"` (a dict, tool call id → decision), and the status may be
#   `"paused"`;
# - a checkpoint with status `"paused"`: with `decision=None`, return the pause again (no model
#   call, no tool runs); otherwise store `approvals[pending id] = decision`, clear `pending`, set
#   the status back to `"running"` and continue;
# - if the last message is an assistant turn with tool calls (a paused step), run its calls again
#   without calling the model; otherwise call the model as before;
# - run a step's calls in order. Before a call whose tool is in `needs_approval`: no decision for
#   its id yet → set status `"paused"` and `pending`, save (without this step's results), and
#   return `AgentResult(None, "PAUSED: approval needed", step)`; decision `"yes"` → run it; any
#   other decision → its result is `{"error": ...}` saying the customer did not approve it. Other
#   tools just run.

# %% nbgrader={"grade": false, "grade_id": "run_with_approval", "locked": false, "schema_version": 3, "solution": true}
def run_with_approval(client, model, question, tools, impl, path, needs_approval, decision=None,
                      max_steps=8):
    """The checkpointed loop that pauses before tools in `needs_approval` until a human decides."""
    ### BEGIN SOLUTION
    state = load_checkpoint(path) or {"step": 0, "messages": [{"role": "user", "content": question}],
                                      "status": "running", "answer": None, "pending": None, "approvals": {}}
    if state["status"] == "paused":
        if decision is None:
            return AgentResult(None, "PAUSED: approval needed", state["step"])
        state["approvals"][state["pending"]["id"]] = decision
        state["status"], state["pending"] = "running", None
    if state["status"] != "running":
        return AgentResult(state["answer"], state["status"], state["step"])
    messages = state["messages"]
    while True:
        message = messages[-1]
        if not (message["role"] == "assistant" and message.get("tool_calls")):  # no step half done
            if state["step"] >= max_steps:
                state["status"] = "STOPPED: step limit"
                break
            state["step"] += 1
            choice = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0]
            message = choice.message.model_dump(exclude_none=True)
            messages.append(message)
            if not message.get("tool_calls"):
                done = choice.finish_reason == "stop"
                state["status"] = "done" if done else f"STOPPED: {choice.finish_reason}"
                state["answer"] = message.get("content") if done else None
                break
        results = []
        for call in message["tool_calls"]:  # from the first call, also when the step runs again
            name = call["function"]["name"]
            answer = state["approvals"].get(call["id"])
            if name in needs_approval and answer is None:
                try:
                    args = json.loads(call["function"]["arguments"])
                except json.JSONDecodeError:
                    args = call["function"]["arguments"]
                state["status"], state["pending"] = "paused", {"id": call["id"], "tool": name, "input": args}
                save_checkpoint(path, state)  # without this step's results: it runs again on resume
                return AgentResult(None, "PAUSED: approval needed", state["step"])
            if name in needs_approval and answer != "yes":
                result = {"error": f"the customer did not approve this {name}; do not try it again"}
                results.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
            else:
                results.append(tool_message(call, impl))
        messages.extend(results)
        save_checkpoint(path, state)
    save_checkpoint(path, state)
    return AgentResult(state["answer"], state["status"], state["step"])
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_with_approval_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: refund_then_check pauses before the refund without making it, with the pending call
(its id, tool and parsed input) in the checkpoint, and stays paused when resumed without a
decision; resumed with "yes" (by a new process), it records the approval, refunds once and
finishes, without asking the model again for the paused step; resumed with "no" instead, nothing
is refunded and the refund's result is an error observation; two refunds in one reply need two
approvals."""
import json

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()
scenario = wb.scenarios.refund_then_check()
payments = wb.payments.Payments()


def refund(order_id: str, amount: int, *, call_id: str) -> dict:
    """An idempotent refund: the business key, then a key from the call id."""
    done = [r for r in payments.refunds_for(order_id) if r["amount"] == amount]
    return done[0] if done else payments.refund(order_id, amount, idempotency_key=f"refund:{call_id}")


impl = {**wb.shop.Shop().tools(), "refund": refund}
with notebook_folder() as folder:
    path = folder / "run.json"
    paused = run_with_approval(wb.fake_llm.FakeLLM(scenario).client(), "fake-model", scenario.question,
                               scenario.openai_tools(), impl, path, {"refund"})
    assert wb.checks.kind(paused) == "AgentResult" and (paused.answer, paused.status, paused.steps) == (
        None, "PAUSED: approval needed", 2), f"expected AgentResult(None, 'PAUSED: approval needed', 2), got {paused!r}"
    assert payments.refunds == [], "nothing may be refunded before the human says yes"
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved.get("status") == "paused" and (saved.get("pending") or {}).get("tool") == "refund", (
        "the checkpoint must record the pause (status 'paused') and the pending refund")
    asked = ((saved.get("messages") or [{}])[-1].get("tool_calls") or [{}])[0].get("id")
    wb.checks.equal(saved.get("pending"), {"id": asked, "tool": "refund", "input": {"order_id": "A-1001", "amount": 2450}},
                    "the checkpoint's pending", hint="{'id': <the call's id>, 'tool': <its tool>, 'input': <the parsed arguments>}")
    wb.checks.equal(saved.get("approvals"), {}, "the checkpoint's approvals before any decision")
    llm = wb.fake_llm.FakeLLM(scenario)
    again = run_with_approval(llm.client(), "fake-model", scenario.question, scenario.openai_tools(), impl, path,
                              {"refund"})
    assert (again.status, llm.calls, payments.refunds) == ("PAUSED: approval needed", 0, []), (
        "resumed without a decision, the run stays paused: no model call, no tool runs; got "
        f"{again!r} after {llm.calls} model calls")
    llm = wb.fake_llm.FakeLLM(scenario)
    done = run_with_approval(llm.client(), "fake-model", scenario.question,
                             scenario.openai_tools(), impl, path, {"refund"}, decision="yes")
    assert (done.answer, done.status, done.steps) == (scenario.answer, "done", 4), (
        f"after 'yes' the run finishes: expected AgentResult({scenario.answer!r}, 'done', 4), got {done!r}")
    assert len(payments.refunds) == 1, f"one refund approved, {len(payments.refunds)} made"
    assert llm.calls == 2, (
        "the paused step's calls run again from the checkpoint without asking the model again: the resumed run "
        f"needs model calls 3 and 4 only; it made {llm.calls}")
    wb.checks.equal(json.loads(path.read_text(encoding="utf-8")).get("approvals"), {asked: "yes"},
                    "the checkpoint's approvals after 'yes'", hint="approvals[pending id] = decision")

    path = folder / "no.json"
    payments = wb.payments.Payments()  # a fresh payment service for the second run
    run_with_approval(wb.fake_llm.FakeLLM(scenario).client(), "fake-model", scenario.question,
                      scenario.openai_tools(), impl, path, {"refund"})
    run_with_approval(wb.fake_llm.FakeLLM(scenario).client(max_calls=6), "fake-model", scenario.question,
                      scenario.openai_tools(), impl, path, {"refund"}, decision="no", max_steps=4)
    assert payments.refunds == [], f"the customer said no: nothing may be refunded; made {payments.refunds}"
    declined = [m for m in json.loads(path.read_text(encoding="utf-8"))["messages"]
                if m.get("role") == "tool" and "error" in json.loads(m["content"])]
    assert len(declined) == 1 and "approve" in declined[0]["content"], (
        "the declined call's result is {'error': ...} saying the customer did not approve it; the tool results "
        f"with an error were {declined}")

    two = wb.scenarios.two_refunds()
    path = folder / "two.json"
    payments = wb.payments.Payments()
    run_with_approval(wb.fake_llm.FakeLLM(two).client(), "fake-model", two.question, two.openai_tools(), impl, path,
                      {"refund"})
    second = run_with_approval(wb.fake_llm.FakeLLM(two).client(max_calls=3), "fake-model", two.question,
                               two.openai_tools(), impl, path, {"refund"}, decision="yes")
    assert second.status == "PAUSED: approval needed" and [r["order_id"] for r in payments.refunds] == ["A-1001"], (
        "a decision is for the pending call only: after 'yes' to the first refund, the second refund of the same "
        f"reply pauses for its own decision; got {second!r}, refunded {[r['order_id'] for r in payments.refunds]}")
print("run_with_approval: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_with_approval_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: run_with_approval records the pending call in the checkpoint, stays paused without
a decision, does not ask the model again for the paused step, turns "no" into an error observation,
re-runs the paused step from its first call (two refunds in one reply: three runs, each refund made
once), lets other tools run without approval, returns a finished run without calling the model,
and stops at the step limit."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()


def world():
    payments, ran = wb.payments.Payments(), []

    def refund(order_id: str, amount: int, *, call_id: str) -> dict:
        """An idempotent refund: the business key, then a key from the call id."""
        ran.append((order_id, amount, call_id))
        done = [r for r in payments.refunds_for(order_id) if r["amount"] == amount]
        return done[0] if done else payments.refund(order_id, amount, idempotency_key=f"refund:{call_id}")

    return payments, ran, {**wb.shop.Shop().tools(), "refund": refund}


def go(scenario, impl, path, decision=None, max_steps=8):
    llm = wb.fake_llm.FakeLLM(scenario)  # every run is a new process with a new client
    with wb.checks.no_raise("run_with_approval", hint="a 400 means the provider refused the messages: a resumed "
                            "step must answer the saved assistant turn's tool calls before the model is called again"):
        result = run_with_approval(llm.client(), "fake-model", scenario.question, scenario.openai_tools(), impl,
                                   path, {"refund"}, decision=decision, max_steps=max_steps)
    assert wb.checks.kind(result) == "AgentResult", f"run_with_approval must return an AgentResult, got {result!r}"
    return llm, result, json.loads(path.read_text(encoding="utf-8"))


PAUSED = "PAUSED: approval needed"
scenario = wb.scenarios.refund_then_check()
with notebook_folder() as folder:
    path = folder / "run.json"
    payments, ran, impl = world()
    llm, result, saved = go(scenario, impl, path)
    assert (result.answer, result.status, result.steps) == (None, PAUSED, 2) and llm.calls == 2, f"the run pauses before the refund, after 2 model calls; got {result!r} after {llm.calls} calls"
    assert ran == [], "the refund tool must not run before the human decides"
    assert saved.get("status") == "paused", f"the checkpoint's status is 'paused'; got {saved.get('status')!r}"
    last = saved["messages"][-1]
    assert last.get("role") == "assistant" and last.get("tool_calls"), (
        "the paused checkpoint ends with the assistant turn that asked for the refund (no results yet)")
    pending = saved.get("pending") or {}
    assert pending == {"id": last["tool_calls"][0]["id"], "tool": "refund",
                       "input": {"order_id": "A-1001", "amount": 2450}}, (
        f"pending must be {{'id': <the call's id>, 'tool': 'refund', 'input': <parsed arguments>}}; got {pending!r}")
    assert saved.get("approvals") == {}, f"no decision yet: approvals must be {{}}; got {saved.get('approvals')!r}"

    # No decision yet: still paused, nothing happens.
    llm, result, saved = go(scenario, impl, path)
    assert result.status == PAUSED and llm.calls == 0 and ran == [], (
        f"without a decision the run stays paused: no model call, no tool; got {result!r} after {llm.calls} calls")

    # "yes": the saved call runs, without asking the model again for it.
    llm, result, saved = go(scenario, impl, path, decision="yes")
    assert (result.answer, result.status, result.steps) == (scenario.answer, "done", 4), (
        f"after 'yes' expected AgentResult({scenario.answer!r}, 'done', 4), got {result!r}")
    assert llm.calls == 2, (f"the resumed run runs the saved refund call, then needs model calls 3 and 4 only; it made "
                            f"{llm.calls} (do not ask the model again for the paused step)")
    assert len(payments.refunds) == 1 and ran[0][2] == pending["id"], (
        "the approved call, with its own id, is the one that runs")
    assert saved.get("approvals") == {pending["id"]: "yes"} and saved.get("status") == "done", "after 'yes' the checkpoint records the approval under the call's id, and the status 'done'"

    # A finished run is over.
    llm, result, saved = go(scenario, impl, path, decision="yes")
    assert llm.calls == 0 and result.status == "done" and len(payments.refunds) == 1, "a finished run is over: no model call and no second refund"

# "no": an error observation, no refund, an honest answer.
with notebook_folder() as folder:
    path = folder / "run.json"
    payments, ran, impl = world()
    go(scenario, impl, path)
    llm, result, saved = go(scenario, impl, path, decision="no")
    assert ran == [] and payments.refunds == [], "a declined refund must not run"
    assert (result.status, result.answer) == ("done", "Order A-1001 was not refunded; order A-1002 (Green tea, 200 g) "
                                                      "is processing."), (
        f"the declined call's result is an error observation, so the model says it did not refund; got {result!r}")
    declined = [m for m in saved["messages"] if m.get("role") == "tool" and "error" in json.loads(m["content"])]
    assert len(declined) == 1 and "approve" in declined[0]["content"], (
        "the declined call's result is {'error': ...} saying the customer did not approve it")

# Two refunds in one reply: pause, pause, done; the step re-runs from its first call.
two = wb.scenarios.two_refunds()
with notebook_folder() as folder:
    path = folder / "run.json"
    payments, ran, impl = world()
    llm, first, saved1 = go(two, impl, path)
    llm, second, saved2 = go(two, impl, path, decision="yes")
    assert (first.status, second.status) == (PAUSED, PAUSED), (
        f"each refund needs its own approval: expected two pauses, got {first.status!r}, {second.status!r}")
    calls = saved1["messages"][-1]["tool_calls"]
    assert saved1["pending"]["id"] == calls[0]["id"] and saved2["pending"]["id"] == calls[1]["id"], (
        "pause first for the reply's first refund, then for its second")
    assert [r["order_id"] for r in payments.refunds] == ["A-1001"], "after the first 'yes' only A-1001 is refunded"
    assert saved2["messages"][-1].get("tool_calls"), "the second pause saves no results for the half-done step"
    llm, done, saved3 = go(two, impl, path, decision="yes")
    assert (done.answer, done.status, done.steps) == (two.answer, "done", 2), (
        f"expected AgentResult({two.answer!r}, 'done', 2), got {done!r}")
    assert [(r["order_id"], r["amount"]) for r in payments.refunds] == [("A-1001", 2450), ("A-1002", 1290)], (
        f"each refund made once: {[(r['order_id'], r['amount']) for r in payments.refunds]}")
    assert llm.calls == 1 and saved3.get("approvals") == {calls[0]["id"]: "yes", calls[1]["id"]: "yes"}, "after the second 'yes' the step finishes, one model call answers, and both approvals are recorded"
    results = [m for m in saved3["messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in results] == [c["id"] for c in calls], (
        "the finished step has exactly one result per call, in order")

# Tools that do not need approval never pause; the step limit still holds.
with notebook_folder() as folder:
    path = folder / "run.json"
    payments, ran, impl = world()
    llm, result, saved = go(wb.scenarios.two_orders(), impl, path)
    assert result.status == "done" and llm.calls == 2, f"get_order needs no approval: expected 'done', got {result!r}"
with notebook_folder() as folder:
    path = folder / "run.json"
    llm, result, saved = go(wb.scenarios.never_finishes(), {"search_kb": lambda query: {"hits": []}}, path,
                            max_steps=3)
    assert (result.status, result.steps, llm.calls) == ("STOPPED: step limit", 3, 3), (
        f"the step limit still applies: expected 'STOPPED: step limit' after 3 calls, got {result!r}")
### END HIDDEN TESTS

# %% [markdown]
# ### Why the paused step must be idempotent
#
# `two_refunds` asks for two refunds in one reply. Approve both, once with a naive refund tool (a
# fresh key per call, as in chapter 08's "loop at work") and once with chapter 08's tool:

# %%
import uuid


def naive_refund_tool(payments):
    def refund(order_id: str, amount: int) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        return payments.refund(order_id, amount, idempotency_key=str(uuid.uuid4()))
    return refund


two = scenarios.two_refunds()
for label, tool in [("naive tool", naive_refund_tool), ("chapter 08's tool", make_refund_tool)]:
    payments = Payments()
    path = WORK / f"approval-{label.split()[0]}.json"
    path.unlink(missing_ok=True)  # a new run each time the cell runs
    impl = {"refund": tool(payments)}
    for decision in (None, "yes", "yes"):
        result = run_with_approval(FakeLLM(two).client(), "fake-model", two.question, two.openai_tools(),
                                   impl, path, {"refund"}, decision=decision)
        pending = (load_checkpoint(path).get("pending") or {}).get("input")
        print(f"{label:18} decision={decision!s:5} -> {result.status:24} pending: {pending}")
    print(f"{'':18} refunds made: {[(r['order_id'], r['amount']) for r in payments.refunds]}\n")

# %% [markdown]
# The naive tool refunded A-1001 twice: the step re-ran after the second approval, and nothing
# told the payment service that the second request was the first one again. Chapter 08's tool
# recognised the refund (business key) and did not pay again.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch, except those marked "not graded".
#
# - **No summary on a limit stop.** The summary is written only after a final answer; the runs
#   that hit the step limit — the ones you most need to read — end without one.
# - **Writing the log at the end.** Lines kept in memory and written when the run returns vanish
#   with a crash. Append each line when its step is done.
# - **Timing the whole step** (or nothing) as `ms`: the field is the model call's duration.
# - **A preview that is the whole result**, or results paired with calls by position instead of
#   by `tool_call_id`.
# - **A final answer logged as a thought.** The answer goes in the summary; a thought is what the
#   model said *beside a tool call*.
# - **Saving in place.** `open(path, "w")` empties the checkpoint before the new one is written;
#   a crash in between destroys both. Write a temporary file in the same folder, then
#   `os.replace`.
# - **Leaving temporary files behind**, or putting them in the system's temporary folder (often
#   another file system, where `os.replace` raises `OSError` EXDEV instead of renaming).
# - **Resuming from scratch**, or from a checkpoint saved before the tool results (it ends with an
#   unanswered assistant turn: the provider answers 400, or the tools run again).
# - **Running a finished run again** because its checkpoint was ignored.
# - **Acting before asking.** The approval check goes before the tool runs, never after.
# - **Asking the model again after a pause.** The human approved a specific call; run the saved
#   one.
# - **Forgetting that the paused step runs again.** Everything it did before the pause happens
#   twice: only idempotent actions survive that.
#   (Not graded: it is a property of the tools the loop is given, not of the loop.)

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("09_trajectories_and_checkpoints")

# %% [markdown]
# ## Live cell (optional)
#
# Your logged loop against a real model, with the system prompt that asks for a thought before
# each call. Compare the `thought` column with the fake's. It runs when `LLM_PROVIDER` names a
# live provider (see chapter 00) and is never graded.

# %%
from workbook import scenarios, trace
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.shop import Shop

if live_enabled():
    try:
        live_client, live_model = make_client()
        live_path = WORK / "live.jsonl"
        live_path.unlink(missing_ok=True)  # a new log each time the cell runs
        question = "Where are my orders A-1001 and A-1002?"
        prompt = "You are Northwind support. Before each tool call, say in one short sentence why you make it."
        live = run_logged(live_client, live_model, question, scenarios.two_orders().openai_tools(),
                          Shop("C-001").tools(), live_path, max_steps=5, system=prompt)
        print(live)
        print(trace.table(trace.read_jsonl(live_path)).text())
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **10 · Real providers**: the same loop against Ollama, DeepSeek and OpenAI — base URLs, keys and
# model names in one place, DeepSeek's thinking mode, Ollama's small context — rehearsed offline
# on the fake's dialects before you spend a token.
