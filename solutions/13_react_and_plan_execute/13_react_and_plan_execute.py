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
# # 13 · ReAct as text, and plan-and-execute
#
# Every loop so far leaned on **native tool calling**: the provider hands back `tool_calls` with
# ids and JSON arguments. Many models cannot do that. A small local model on Ollama answers a
# request that carries `tools` with an HTTP 400, "… does not support tools". Such a model can still
# use tools if you agree on a **text protocol** — *ReAct* (reason + act): it writes `Thought`,
# `Action` and `Action Input` lines, your code runs the tool and writes the `Observation`. The
# protocol is older than native tool calling, and it fails in ways native calls cannot: the model
# may write the observation **itself**, or write text your parser did not expect.
#
# The second half of the chapter changes who steers. In **plan-and-execute**, one call writes a
# plan (a short JSON list of steps), your code checks it, runs each step with the chapter-06 loop,
# replans a bounded number of times when a step fails, and a last call writes the answer.
#
# **Learning goals.** After this chapter you can
# - explain why a model without native tool calling needs a text protocol, and recognise Ollama's
#   400 "does not support tools";
# - write a ReAct parser that turns any text — malformed, or with extra text — into an action, a
#   final answer or an **error observation**, never an exception;
# - keep the model's invented observations out of the history — with `stop=["Observation:"]` on a
#   model that takes it, or by cutting the reply at `Observation:`, which works on every model —
#   and show what goes wrong without either;
# - ask for the plan in a JSON schema (structured outputs) and still validate it with pydantic (1 to
#   7 non-empty steps) before running any of it;
# - write plan-and-execute with a **replan limit** and a final synthesis;
# - compare the native loop, ReAct and plan-and-execute on model calls and tokens.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 06 · Limits and stopping (`run_agent` with limits) and 05 · Errors are
# observations. What you need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 02–06
#
# `AgentResult`, `call_tool` (a tool's result, or `{"error": ...}`; it never raises),
# `tool_message`, and chapter 06's `run_agent` with all its limits (steps, tokens, timeout, loops,
# result size). Plan-and-execute runs each step with it.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_06", "locked": true, "schema_version": 3, "solution": false}
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, ValidationError, field_validator

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 06_limits tool_message


def run_agent(client, model, question, tools, impl, max_steps=8, max_tokens=60_000,
              timeout_s=120.0, max_result_chars=4_000, clock=time.monotonic):
    """The loop with limits: answer, stop status, and the model calls made."""
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


# %% [markdown]
# ## Part 1 · A model that cannot call tools
#
# Ask a model without tool support for tools and the request fails before the model reads a word.
# The fake plays Ollama here (`dialect="ollama"`) with a text-only model, `react_taxi`:

# %%
import openai

scenario = scenarios.react_taxi()
llm = FakeLLM(scenario, dialect="ollama")
try:
    llm.client(max_retries=0).chat.completions.create(
        model="gemma3:1b", messages=[{"role": "user", "content": scenario.question}],
        tools=scenario.openai_tools())
except openai.BadRequestError as e:
    print("HTTP", e.status_code, "-", e.body["message"] if isinstance(e.body, dict) else e.body)

# %% [markdown]
# A 400 is not retried (chapter 08): the request itself is wrong. So the tools go into the
# **prompt** instead, with a format the model promises to follow:
#
# ```text
# Thought: what I think about next
# Action: get_order
# Action Input: {"order_id": "A-1001"}
# Observation: {"order_id": "A-1001", "status": "shipped"}     <- written by YOUR code
# Thought: I now know the final answer
# Final Answer: Order A-1001 is shipped.
# ```
#
# `react_prompt(tools)` below writes that system prompt from the same tool definitions the native
# loop sends. It is given: the work is in reading what comes back.
#
# This line format is **LangChain's** ReAct prompt (`create_react_agent`, whose instructions end
# "Thought: I now know the final answer / Final Answer: …"), the one most ReAct agents in the wild
# use. The ReAct paper (Yao et al., 2022, arXiv:2210.03629) numbered its lines and wrote actions as
# calls — `Thought 1: …`, `Action 1: Search[Colorado orogeny]`, `Observation 1: …`, `Finish[…]` —
# and stopped generation at the observation too. The idea is the same; only the syntax differs.

# %% nbgrader={"grade": false, "grade_id": "given_react_prompt", "locked": true, "schema_version": 3, "solution": false}
def react_prompt(tools):
    """The ReAct system prompt: the tools (from OpenAI tool definitions) and the text format."""
    lines = []
    for t in tools:
        f = t["function"]
        arguments = json.dumps(f.get("parameters", {}).get("properties", {}), ensure_ascii=False)
        lines.append(f"- {f['name']}: {f.get('description', '')} Arguments: {arguments}")
    names = ", ".join(t["function"]["name"] for t in tools)
    return ("Answer the user's question. You can use these tools:\n" + "\n".join(lines) + "\n\n"
            "Use exactly this format:\n"
            "Thought: what you think about next\n"
            f"Action: the tool to use, one of [{names}]\n"
            "Action Input: the arguments, as one JSON object\n"
            "Observation: the tool's result (the system writes it; never write it yourself)\n"
            "... (Thought, Action, Action Input and Observation can repeat)\n"
            "Thought: I now know the final answer\n"
            "Final Answer: the answer to the user's question")


print(react_prompt(scenarios.react_taxi().openai_tools()))

# %% [markdown]
# Here is what the text-only model writes back, asked once with that prompt and nothing else:

# %%
scenario = scenarios.react_taxi()
messages = [{"role": "system", "content": react_prompt(scenario.openai_tools())},
            {"role": "user", "content": scenario.question}]
response = FakeLLM(scenario).client().chat.completions.create(model="fake-model", messages=messages)
print(response.choices[0].message.content)

# %% [markdown]
# Read it to the end. The model wrote its action — and then kept going: it **invented** the
# observation (3 rides, 7400 KZT; the real data says 2 rides, 5000 KZT) and a final answer built on
# it. Text-only models are prone to exactly this: after `Action Input:` a likely next text is
# `Observation:`, and the model has no tool to wait for. Part 3 stops it. First, the parser.
#
# ## Part 2 · Reading ReAct text
#
# The model's text is untrusted input. It may follow the format; it may add a sentence after the
# JSON ("I will wait for the result."), forget the JSON, send a list instead of an object, write
# neither an action nor an answer, or come back empty. None of these may crash the loop: each
# becomes an **error observation** and the model gets another try, as with broken tool arguments
# in chapter 05. Only its form differs. Chapter 05's error observation is the JSON
# `{"error": "..."}`, the content of a tool message; a ReAct observation is plain text in a user
# message, so a reply the parser cannot read comes back as a line starting `ERROR: ` that says
# what to write instead. A tool that fails still gives `call_tool`'s `{"error": ...}`, sent as the
# observation's JSON like any other result.
#
# Two details decide whether the parser is robust:
#
# - **Which marker comes first.** The text above contains an `Action` *and* a `Final Answer`. The
#   model decided on the action first; the answer after it rests on an observation it made up. So
#   whichever of `Action:` and `Final Answer:` comes **first** in the text wins.
# - **Where the JSON ends.** `json.loads` on everything after `Action Input:` fails as soon as any
#   text follows the object. `json.JSONDecoder().raw_decode(s)` reads one JSON value from the start
#   of `s` and returns it with the index where it ended, ignoring the rest:

# %%
value, end = json.JSONDecoder().raw_decode('{"order_id": "A-1001"}\nI will wait for the result.')
print(value, end)
try:
    json.loads('{"order_id": "A-1001"}\nI will wait for the result.')
except json.JSONDecodeError as e:
    print("json.loads:", e)

# %% [markdown]
# ## Exercise 1 — `parse_react` (4 points)
#
# Write `parse_react(text)`. It returns a **tuple**, one of:
#
# - `("action", name, arguments)` — `name` is the rest of the `Action:` line, stripped;
#   `arguments` is the JSON **object** (a `dict`) that starts after `Action Input:` (skip
#   whitespace, then `raw_decode`; any text after the object is ignored);
# - `("final", answer)` — `answer` is everything after `Final Answer:`, stripped;
# - `("error", message)` — `message` starts with `"ERROR: "` and says what to write instead.
#
# Rules:
#
# 1. Whichever of `Action:` and `Final Answer:` appears **first** decides.
# 2. An error when: `text` is not a string or is blank; neither marker is present; the `Action:`
#    line has no name; no `Action Input:` follows the `Action:`; the input is not JSON; the JSON is
#    not an object.
# 3. It never raises.
#
# ```python
# parse_react('Thought: x\nAction: get_order\nAction Input: {"order_id": "A-1001"}\nI will wait.')
#     -> ("action", "get_order", {"order_id": "A-1001"})
# parse_react("Thought: done\nFinal Answer: It is shipped.")  -> ("final", "It is shipped.")
# parse_react("I should look that up.")  -> ("error", "ERROR: ...")
# ```
#
# (`"Action Input:"` does not contain `"Action:"` — there is a space and a word in between — so
# searching for `Action:` does not find it.)

# %% nbgrader={"grade": false, "grade_id": "parse_react", "locked": false, "schema_version": 3, "solution": true}
FORMAT_HINT = ("write 'Action: <tool>' and 'Action Input: <one JSON object>', "
               "or 'Final Answer: <answer>'")


def parse_react(text):
    """ReAct text -> ("action", name, arguments) | ("final", answer) | ("error", message)."""
    ### BEGIN SOLUTION
    if not isinstance(text, str) or not text.strip():
        return ("error", f"ERROR: the reply was empty; {FORMAT_HINT}")
    action = re.search(r"Action:[ \t]*(.*)", text)
    answer = text.find("Final Answer:")
    if action is None and answer < 0:
        return ("error", f"ERROR: no 'Action:' and no 'Final Answer:' found; {FORMAT_HINT}")
    if action is None or 0 <= answer < action.start():
        return ("final", text[answer + len("Final Answer:"):].strip())
    name = action.group(1).strip()
    if not name:
        return ("error", f"ERROR: the 'Action:' line has no tool name; {FORMAT_HINT}")
    given = re.search(r"Action Input:", text[action.end():])
    if given is None:
        return ("error", f"ERROR: 'Action: {name}' needs an 'Action Input:' with a JSON object")
    rest = text[action.end() + given.end():].lstrip()
    try:
        arguments, _ = json.JSONDecoder().raw_decode(rest)
    except ValueError:
        return ("error", f"ERROR: the Action Input of {name} is not JSON; write one JSON object, "
                'such as {"order_id": "A-1001"}')
    if not isinstance(arguments, dict):
        return ("error", f"ERROR: the Action Input of {name} must be a JSON object, "
                f"not {type(arguments).__name__}")
    return ("action", name, arguments)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "parse_react_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: parse_react reads an action (also with text after the JSON, and when the model
went on to invent an observation and an answer), a final answer, and turns text without a marker,
an Action Input that is not JSON and one that is not an object, a blank reply, None, an Action
without a name and one without an Action Input into ("error", "ERROR: ...") instead of raising."""
from workbook.checks import fresh

wb = fresh()


def parse(text):
    with wb.checks.no_raise(f"parse_react({text[:40]!r}...)", hint="malformed text is an error observation"):
        got = parse_react(text)
    assert type(got) is tuple, f"parse_react must return a tuple, got {type(got).__name__}: {got!r}"
    return got


ACTION = 'Thought: I need the order.\nAction: get_order\nAction Input: {"order_id": "A-1001"}'
wb.checks.equal(parse(ACTION), ("action", "get_order", {"order_id": "A-1001"}), "parse_react(an action)")
wb.checks.equal(parse(ACTION + "\nI will wait for the result."), ("action", "get_order", {"order_id": "A-1001"}),
                "parse_react(an action with a sentence after the JSON)",
                hint="read one JSON value with json.JSONDecoder().raw_decode and ignore the rest")
invented = ACTION + '\nObservation: {"status": "delivered"}\nThought: done\nFinal Answer: It was delivered.'
wb.checks.equal(parse(invented), ("action", "get_order", {"order_id": "A-1001"}),
                "parse_react(an action followed by an invented observation and answer)",
                hint="the marker that comes first wins: the answer after an action rests on a made-up observation")
wb.checks.equal(parse("Thought: I know it.\nFinal Answer: Order A-1001 is shipped."),
                ("final", "Order A-1001 is shipped."), "parse_react(a final answer)")
for text, what in [("I should look up the order first.", "text with neither marker"),
                   ("Action: get_order\nAction Input: order_id=A-1001", "an Action Input that is not JSON"),
                   ('Action: get_order\nAction Input: ["A-1001"]', "an Action Input that is a list, not an object"),
                   ("   \n ", "a blank reply"), ("Thought: hmm\nAction:\nAction Input: {}", "an Action line without a tool name"),
                   ("Thought: x\nAction: get_order", "an Action without an Action Input")]:
    got = parse(text)
    assert len(got) == 2 and got[0] == "error" and type(got[1]) is str and got[1].startswith("ERROR: "), (
        f"{what} must give ('error', 'ERROR: ...'); got {got!r}")
with wb.checks.no_raise("parse_react(None)", hint="a reply with no content is an error observation"):
    got = parse_react(None)
assert type(got) is tuple and len(got) == 2 and got[0] == "error" and str(got[1]).startswith("ERROR: "), (
    f"parse_react(None) (a reply with no content) must give ('error', 'ERROR: ...'); got {got!r}")
print("parse_react: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "parse_react_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: parse_react on empty and non-text replies, a missing name or Action Input, JSON
with braces inside strings, nested and non-ASCII arguments, whitespace and newlines before the
JSON, a final answer before an action, multi-line answers, and plain return types."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


def parse(text):
    with wb.checks.no_raise(f"parse_react({str(text)[:40]!r})", hint="malformed text is an error observation"):
        got = parse_react(text)
    assert type(got) is tuple, f"parse_react must return a tuple, got {type(got).__name__}: {got!r}"
    return got


def is_error(text, what):
    got = parse(text)
    assert len(got) == 2 and got[0] == "error" and type(got[1]) is str and got[1].startswith("ERROR: "), (
        f"{what} must give ('error', 'ERROR: ...'); got {got!r}")
    assert len(got[1]) > len("ERROR: ") + 10, f"the error must say what to write instead; got {got[1]!r}"


is_error("", "an empty reply")
is_error("   \n ", "a blank reply")
is_error(None, "None (a reply with no content)")
is_error("Thought: hmm\nAction:\nAction Input: {}", "an Action line without a tool name")
is_error("Thought: x\nAction: get_order", "an Action without an Action Input")
is_error("Action: get_order\nAction Input: ", "an empty Action Input")
is_error('Action: get_order\nAction Input: "A-1001"', "a JSON string instead of an object")
is_error("Action: get_order\nAction Input: 42", "a number instead of an object")
is_error("Thought: I am not sure what to do.", "a thought alone")

wb.checks.equal(parse('Action: search_kb\nAction Input: {"query": "a } b"} and {"more": 1}\nObservation: x'),
                ("action", "search_kb", {"query": "a } b"}), "parse_react(braces inside a JSON string, then more text)")
wb.checks.equal(parse('Thought: t\nAction:   txn_sum  \nAction Input:\n  {"filter": {"category": "taxi", "months": ["2026-08", "2026-09"]}}'),
                ("action", "txn_sum", {"filter": {"category": "taxi", "months": ["2026-08", "2026-09"]}}),
                "parse_react(nested arguments on the next line, a name with spaces around it)")
wb.checks.equal(parse('Action: get_weather\nAction Input: {"city": "Алматы"}'),
                ("action", "get_weather", {"city": "Алматы"}), "parse_react(non-ASCII arguments)")
wb.checks.equal(parse("Action: card_block\nAction Input: {}"), ("action", "card_block", {}), "parse_react(no arguments)")
wb.checks.equal(parse("Thought: known.\nFinal Answer: Line one.\nLine two.\n"), ("final", "Line one.\nLine two."),
                "parse_react(a multi-line final answer)")
got = parse('Final Answer: It is shipped.\nAction: get_order\nAction Input: {"order_id": "A-1"}')
assert got[0] == "final" and type(got[1]) is str and got[1].startswith("It is shipped."), (
    f"a final answer that comes before an action wins (the first marker decides); got {got!r}")
wb.checks.equal(parse('Thought: t\nAction: txn_sum\nAction Input: {"category": "taxi", "month": "2026-09"}\n'
                      'Observation: {"total_kzt": 7400}\nFinal Answer: 7400 KZT.'),
                ("action", "txn_sum", {"category": "taxi", "month": "2026-09"}),
                "parse_react(an action, then an invented observation and answer): the first marker decides")
wb.checks.equal(parse("Final Answer:"), ("final", ""), "parse_react('Final Answer:' with nothing after it)")
got = parse('Action: get_order\nAction Input: {"order_id": "A-1001"}')
assert type(got[1]) is str and type(got[2]) is dict, f"name must be a str and arguments a dict; got {got!r}"
### END HIDDEN TESTS


# %% [markdown]
# ## Part 3 · The text loop, and the stop sequence
#
# The ReAct loop is chapter 03's loop with text in place of `tool_calls`:
#
# 1. `messages` start with the system prompt `react_prompt(tools)` and the question;
# 2. call the model **without** `tools` (the model has none);
# 3. keep the assistant's text as its turn, **cut before any `Observation:` it wrote**:
#    `{"role": "assistant", "content": text}`;
# 4. parse it: a final answer ends the run; an action runs through `call_tool`; an error is
#    already the observation;
# 5. send the observation back as a **user** message `"Observation: <text>"` (there is no tool
#    call id to answer), and go on.
#
# Two ways keep an invented observation out of the history:
#
# - **A stop sequence.** `stop` is a list of strings (OpenAI allows up to 4). The provider ends the
#   reply just *before* the first of them it would write, does not return the stop string, and
#   sets `finish_reason` to `"stop"`. With `stop=["Observation:"]` the model cannot write an
#   observation at all, and you pay for no tokens after it. But **reasoning models refuse the
#   parameter**: `gpt-5`, `gpt-5-mini`, `gpt-5-nano`, `gpt-5.1`, `gpt-5.2`, `gpt-5.4` with
#   `gpt-5.4-mini` (the course's default OpenAI model) and the o-series answer HTTP 400
#   `Unsupported parameter: 'stop' is not supported with this model.` (OpenAI's Responses API has
#   no `stop` at all.)
# - **Cutting the text yourself**: keep only what comes before the first `Observation:` in the
#   reply, *before* you append it to `messages`. That works on every provider and model; the
#   model may still write the invention (and you pay for those tokens), but it never enters the
#   history. This is the portable fix, and the one this chapter's solution uses.

# %%
for stop in (None, ["Observation:"]):
    options = {"stop": stop} if stop else {}
    choice = FakeLLM(scenario).client().chat.completions.create(
        model="fake-model", messages=messages, **options).choices[0]
    print(f"stop={stop}  finish_reason={choice.finish_reason!r}\n{choice.message.content}\n" + "-" * 60)

# The same request with stop, to a model that refuses the parameter (the fake plays it by name):
try:
    FakeLLM(scenario).client(max_retries=0).chat.completions.create(
        model="gpt-5-mini", messages=messages, stop=["Observation:"])
except openai.BadRequestError as e:
    print("gpt-5-mini with stop: HTTP", e.status_code, "-", e.body["message"], f"(param {e.body['param']!r})")
# The portable fix: no stop, and the text cut before the first "Observation:".
text = FakeLLM(scenario).client().chat.completions.create(model="gpt-5-mini", messages=messages).choices[0].message.content
print("gpt-5-mini, cut by hand:\n" + text.split("Observation:", 1)[0])

# %% [markdown]
# Without `stop` and without the cut, a loop that keeps the assistant's text whole (as chapter 03
# taught) puts the invented observation into the history. Your parser reads only the action, so
# the tool runs and the real observation follows — but the model now sees **two** observations
# for one action, its own first. This fake believes the first one (a plausible tendency of real
# models, not a rule you can count on): the run ends with 7400 KZT. With `stop` the invention
# never exists; with the cut it never reaches the history.

# %% [markdown]
# ## Exercise 2 — `run_react` (5 points)
#
# Write `run_react(client, model, question, tools, impl, max_steps=8)`, the ReAct loop above:
#
# - `messages` start as `[{"role": "system", "content": react_prompt(tools)}, {"role": "user",
#   "content": question}]`;
# - each step calls `client.chat.completions.create(model=model, messages=messages)` — no `tools`
#   argument;
# - the reply's text (`content`, or `""` when it is `None`), **cut before its first
#   `"Observation:"`** (everything from there on is the model's invention), is appended as
#   `{"role": "assistant", "content": text}`. (You may also send `stop=["Observation:"]`; the
#   tests accept a loop that does, on a model that takes it. The cut is what makes the loop work
#   on `gpt-5-mini`, which refuses `stop`.);
# - a final answer returns `AgentResult(answer, "done", step)`;
# - an action's observation is `json.dumps(call_tool(impl, name, arguments), ensure_ascii=False,
#   default=str)`; an error's observation is its message; either is appended as
#   `{"role": "user", "content": "Observation: " + observation}`;
# - after `max_steps` model calls without an answer: `AgentResult(None, "STOPPED: step limit",
#   max_steps)`. Nothing raises.
#
# You may call your `parse_react`. (The solution writes its own short parser, so that this exercise
# is graded on its own.)

# %% nbgrader={"grade": false, "grade_id": "run_react", "locked": false, "schema_version": 3, "solution": true}
def run_react(client, model, question, tools, impl, max_steps=8):
    """The ReAct text loop: answer, stop status, and the model calls made."""
    ### BEGIN SOLUTION
    def parse(text):  # parse_react, written short: ("action", name, args) | ("final", a) | ("error", m)
        action = re.search(r"Action:[ \t]*(.*)", text)
        answer = text.find("Final Answer:")
        if action is not None and (answer < 0 or action.start() < answer):
            given = re.search(r"Action Input:\s*", text[action.end():])
            try:
                args = json.JSONDecoder().raw_decode(text[action.end() + given.end():])[0]
            except (AttributeError, ValueError):
                args = None
            if action.group(1).strip() and isinstance(args, dict):
                return ("action", action.group(1).strip(), args)
            return ("error", "ERROR: write 'Action: <tool>' and 'Action Input: <one JSON object>'")
        if answer >= 0:
            return ("final", text[answer + len("Final Answer:"):].strip())
        return ("error", "ERROR: write 'Action: <tool>' and 'Action Input: <one JSON object>', "
                "or 'Final Answer: <answer>'")

    messages = [{"role": "system", "content": react_prompt(tools)},
                {"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages)
        text = (response.choices[0].message.content or "").split("Observation:", 1)[0]  # never its own
        messages.append({"role": "assistant", "content": text})
        parsed = parse(text)
        if parsed[0] == "final":
            return AgentResult(parsed[1], "done", step)
        if parsed[0] == "action":
            observation = json.dumps(call_tool(impl, parsed[1], parsed[2]), ensure_ascii=False,
                                     default=str)
        else:
            observation = parsed[1]
        messages.append({"role": "user", "content": f"Observation: {observation}"})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_react_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_react answers the taxi question from a text-only model on Ollama in two
calls, sending no tools, with no assistant turn holding an Observation (the invented one is cut
off, by stop or by hand); it works on gpt-5-mini, which refuses `stop`; the observation goes back
as a user message; a malformed action comes back as an error observation and the model fixes it;
a model that never answers stops after max_steps."""
import json

from workbook.checks import fresh

wb = fresh()
# The test's own copies of the given code it expects: a notebook that rebinds these names changes nothing here.
#@include 13_react_and_plan_execute react_prompt
S = wb.scenarios


def run(scenario, impl, dialect="ollama", model="fake-model", **options):
    llm = wb.fake_llm.FakeLLM(scenario, dialect=dialect)
    with wb.checks.no_raise(f"run_react on {model}", hint="send no tools to a text-only model; errors are "
                            "observations; a model that refuses `stop` needs the cut at 'Observation:'"):
        r = run_react(llm.client(max_calls=8, max_retries=0), model, scenario.question,
                      scenario.openai_tools(), impl, **options)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_react must return an AgentResult, got {type(r).__name__}: {r!r}")
    return llm, r


taxi = S.react_taxi()
llm, r = run(taxi, wb.shop.Shop("C-001").tools())
first = llm.requests[0]
assert "tools" not in first, "a text-only model gets no `tools` (Ollama answers 400): the tools are in the prompt"
wb.checks.equal((r.answer, r.status, r.steps), (taxi.answer, "done", 2), "(answer, status, steps) for react_taxi",
                hint="7400 KZT means the model's invented observation was accepted: cut the text at 'Observation:'")
sent = llm.requests[1]["messages"]
assert sent[0] == {"role": "system", "content": react_prompt(taxi.openai_tools())} and sent[1]["role"] == "user", (
    "messages start with the system prompt react_prompt(tools) and the question")
assert sent[2]["role"] == "assistant" and "Observation:" not in sent[2]["content"], (
    f"the assistant turn is the model's text, cut before 'Observation:'; got {sent[2]!r}")
assert sent[3]["role"] == "user" and sent[3]["content"].startswith('Observation: {"category": "taxi"'), (
    f"the tool's result goes back as a user message 'Observation: <JSON>'; got {sent[3]!r}")
llm, r = run(taxi, wb.shop.Shop("C-001").tools(), dialect="openai", model="gpt-5-mini")
wb.checks.equal((r.answer, r.status, r.steps), (taxi.answer, "done", 2), "(answer, status, steps) on gpt-5-mini",
                hint="gpt-5-mini refuses `stop`: cut the reply before 'Observation:' yourself")
assert not any("Observation:" in m["content"] for m in llm.requests[-1]["messages"] if m["role"] == "assistant"), (
    "no assistant turn may hold an Observation: cut the reply before 'Observation:' before appending it")

sloppy = S.react_order(sloppy=True)
llm, r = run(sloppy, wb.shop.Shop("C-001").tools(), dialect="openai")
wb.checks.equal((r.answer, r.status, r.steps), (sloppy.answer, "done", 3), "(answer, status, steps) for a sloppy model")
obs = llm.requests[1]["messages"][-1]
assert obs["role"] == "user" and obs["content"].startswith("Observation: ERROR: "), (
    f"an Action Input that is not JSON comes back as 'Observation: ERROR: ...'; got {obs!r}")

stuck = S.scripted(S.final('Thought: again\nAction: search_kb\nAction Input: {"query": "delivery"}'),
                   question="How long is delivery?")
llm, r = run(stuck, {"search_kb": lambda query: {"hits": []}}, max_steps=3)
wb.checks.equal((r.answer, r.status, r.steps, llm.calls), (None, "STOPPED: step limit", 3, 3),
                "(answer, status, steps, model calls) with max_steps=3")
print("run_react: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_react_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: run_react does the two-part errand one action per turn; unknown tools, failing
tools, empty replies and replies without a marker become observations; the exact messages sent;
max_steps defaults to 8; the whole run holds no invented observation."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios


def run(scenario, impl, cap=10, **options):
    llm = wb.fake_llm.FakeLLM(scenario, dialect="ollama")
    with wb.checks.no_raise("run_react", hint="errors are observations"):
        r = run_react(llm.client(max_calls=cap, max_retries=0), "fake-model", scenario.question,
                      scenario.openai_tools(), impl, **options)
    assert wb.checks.kind(r) == "AgentResult", f"got {wb.checks.kind(r) or type(r).__name__}"
    return llm, r


errand = S.react_errand()
shop = wb.shop.Shop("C-001")
llm, r = run(errand, shop.tools())
wb.checks.equal((r.answer, r.status, r.steps), (errand.answer, "done", 3), "(answer, status, steps) for react_errand")
assert [name for name, _ in shop.log] == ["get_order", "txn_sum"], f"one action per turn; the shop saw {shop.log}"
assert all("tools" not in req and req.get("stop") in (None, ["Observation:"]) for req in llm.requests), (
    "every request sends no tools (and stop, if any, is ['Observation:'])")
final_messages = llm.requests[-1]["messages"]
wb.checks.equal([m["role"] for m in final_messages], ["system", "user", "assistant", "user", "assistant", "user"],
                "the roles of the last request")
order = json.dumps(wb.shop.Shop("C-001").get_order("A-1001"), ensure_ascii=False)
wb.checks.equal(final_messages[3], {"role": "user", "content": f"Observation: {order}"},
                "the observation of get_order (json.dumps of the result)")
assert not any("Observation:" in (m.get("content") or "") for m in final_messages if m["role"] == "assistant"), (
    "no assistant turn may hold an observation")

unknown = S.scripted(S.final('Action: refund\nAction Input: {"order_id": "A-1001"}'), "Final Answer: I cannot refund.",
                     question="Refund A-1001")
llm, r = run(unknown, wb.shop.Shop("C-001").tools())
wb.checks.equal((r.answer, r.status, r.steps), ("I cannot refund.", "done", 2), "an unknown tool, then an answer")
obs = llm.requests[1]["messages"][-1]["content"]
assert obs.startswith("Observation: ") and "unknown tool" in obs, f"an unknown tool is an error observation; got {obs!r}"


def broken(order_id):
    raise RuntimeError("the order service is down")


failing = S.scripted(S.final('Action: get_order\nAction Input: {"order_id": "A-1001"}'), "Final Answer: Sorry.")
llm, r = run(failing, {"get_order": broken})
wb.checks.equal((r.answer, r.status), ("Sorry.", "done"), "a failing tool, then an answer")
obs = llm.requests[1]["messages"][-1]["content"]
assert "the order service is down" in obs, f"a failing tool's error is the observation; got {obs!r}"

for reply, what in [(S.Reply(text=None), "an empty reply"), (S.final("Let me think about it."), "a reply without a marker")]:
    odd = S.scripted(reply, "Final Answer: done")
    llm, r = run(odd, {})
    wb.checks.equal((r.answer, r.status, r.steps), ("done", "done", 2), f"{what}, then an answer")
    sent = llm.requests[1]["messages"]
    assert sent[2]["role"] == "assistant" and type(sent[2]["content"]) is str, f"{what}: keep the text ('' for None)"
    assert sent[3]["role"] == "user" and sent[3]["content"].startswith("Observation: ERROR: "), (
        f"{what} comes back as 'Observation: ERROR: ...'; got {sent[3]!r}")

forever = S.scripted(S.final('Action: search_kb\nAction Input: {"query": "x"}'))
llm, r = run(forever, {"search_kb": lambda query: {"hits": []}})
wb.checks.equal((r.answer, r.status, r.steps, llm.calls), (None, "STOPPED: step limit", 8, 8), "max_steps defaults to 8")
### END HIDDEN TESTS


# %% [markdown]
# ## The loop at work, on every kind of model
#
# Your `run_react` on the two-part errand, three ways: on a model that takes `stop`; through a
# client that drops `stop` from every request (what a provider that ignores it would do); and on
# `gpt-5-mini`, which refuses `stop` with a 400. A loop that relies on `stop` alone gets the
# second row wrong and the third one refused; a loop that cuts the text gets all three right.

# %%
class DropsStop:
    """A client that removes `stop` from every request (for this demo only)."""

    def __init__(self, client):
        self.client = client
        self.chat = self  # so that dropper.chat.completions.create(...) works
        self.completions = self

    def create(self, **kwargs):
        kwargs.pop("stop", None)
        return self.client.chat.completions.create(**kwargs)


scenario = scenarios.react_errand()
for name, wrap, dialect, model in [("stop allowed", lambda c: c, "ollama", "fake-model"),
                                   ("stop dropped", DropsStop, "ollama", "fake-model"),
                                   ("gpt-5-mini", lambda c: c, "openai", "gpt-5-mini")]:
    shop = Shop("C-001")
    try:
        result = run_react(wrap(FakeLLM(scenario, dialect=dialect).client(max_retries=0)), model,
                           scenario.question, scenario.openai_tools(), shop.tools())
    except openai.BadRequestError as e:
        print(f"{name:13} HTTP 400: {e.body['message']}")
        continue
    print(f"{name:13} {result.status} after {result.steps} calls, tools run: {[n for n, _ in shop.log]}\n"
          f"{'':13} {result.answer}")

# %% [markdown]
# A loop that kept the text whole would show the same calls, the same tools and status `done` in
# the second row — with a wrong answer (delivered, 3 rides, 7400 KZT). Nothing in the status or
# the call count shows it; only keeping the invention out of the history prevents it, and the cut
# does that on every model.

# %% [markdown]
# ## Part 4 · Plan first, then execute
#
# In every loop so far the model decides the next step after each observation. Plan-and-execute
# splits that: a **planner** call writes the whole plan up front, your code runs the steps one by
# one — each with the chapter-06 loop, so each step has its own limits — and a **synthesis** call
# writes the answer from the step results.
#
# ```text
#   task ──► planner ──► {"steps": [s1, s2]} ──► validate ──► run_agent(s1) ──► run_agent(s2) ──► synthesis ──► answer
#                ▲                                   │ invalid          │ failed
#                └────────── replan (at most N) ◄────┴──────────────────┘
# ```
#
# Why bother? A plan is something code can **check** before anything runs (how many steps, which
# ones), each executor sees a small, focused conversation instead of the whole history, and a
# person can read the plan. The price: more model calls, and a plan written before any
# observation may be wrong. When a step fails, the planner gets another try with what is already
# done — but only a few tries: a planner that keeps writing the same bad plan would otherwise
# replan forever.
#
# The planner's reply should be `{"steps": [...]}`. Today's providers can **constrain** it: with
# `response_format={"type": "json_schema", "json_schema": {..., "strict": True}}` (OpenAI's
# structured outputs; Ollama's `format` takes a JSON schema too) the model can only write JSON of
# that shape, so prose, a fence or a missing key cannot come back from a model that honours it.
# `PLAN_FORMAT` below is that schema for a plan, and the planner call sends it.
#
# Constrained is not checked, though. The schema fixes the shape, not the limits your code needs
# (how many steps, none blank — keep the schema simple, so every provider accepts it); a model may
# refuse (OpenAI then sends `refusal` and no content); many models and servers ignore the schema
# (the fake here plays such a planner, so your checks are what the tests exercise); and a reply
# cut by the token limit is half a JSON. So the reply is still untrusted text, like the ReAct
# text: it may come wrapped in a Markdown fence (```` ```json ````), hold twenty steps, an empty
# step, or be prose. **pydantic** turns "what a plan is" into a class and checks any JSON against
# it:

# %%
class Order(BaseModel):
    order_id: str = Field(min_length=1)
    items: list[str] = Field(min_length=1, max_length=3)


print(Order.model_validate_json('{"order_id": "A-1001", "items": ["lamp"]}'))
for bad in ('{"order_id": "A-1001", "items": []}', '{"order_id": "A-1001", "items": "lamp"}', "not json"):
    try:
        Order.model_validate_json(bad)
    except ValidationError as e:  # a subclass of ValueError
        print(f"{bad!r:45} -> {e.errors()[0]['msg']}")

# %% [markdown]
# A `field_validator` adds a check of your own; raising `ValueError` inside it becomes part of the
# `ValidationError`:
#
# ```python
# @field_validator("items")
# @classmethod
# def no_blank_items(cls, items):
#     if any(not item.strip() for item in items):
#         raise ValueError("an item is blank")
#     return [item.strip() for item in items]
# ```
#
# ## Exercise 3 — `Plan` and `read_plan` (3 points)
#
# Write the pydantic model `Plan` with one field, `steps: list[str]`, holding **1 to 7** steps,
# each stripped of surrounding whitespace and none blank. Then write `read_plan(text)`: it strips
# `text`, removes a Markdown fence around it if there is one (a first line starting with
# ```` ``` ```` — such as ```` ```json ```` — and a last line ```` ``` ````), and returns
# `Plan.model_validate_json(...)` of the rest. Anything else raises `ValueError` (pydantic's
# `ValidationError` already is one); a `text` that is not a string too.
#
# ```python
# read_plan('{"steps": ["Look up order A-1001"]}')  ->  Plan(steps=['Look up order A-1001'])
# read_plan('{"steps": []}')                        ->  ValueError (ValidationError)
# ```

# %% nbgrader={"grade": false, "grade_id": "read_plan", "locked": false, "schema_version": 3, "solution": true}
class Plan(BaseModel):
    """A plan: 1 to 7 steps, each a short non-blank instruction."""

    ### BEGIN SOLUTION
    steps: list[str] = Field(min_length=1, max_length=7)

    @field_validator("steps")
    @classmethod
    def steps_not_blank(cls, steps):
        if any(not step.strip() for step in steps):
            raise ValueError("a step is blank: every step must say what to do")
        return [step.strip() for step in steps]
    ### END SOLUTION


def read_plan(text):
    """The planner's reply (JSON, maybe in a ``` fence) as a validated Plan; ValueError otherwise."""
    ### BEGIN SOLUTION
    if not isinstance(text, str):
        raise ValueError(f"a plan must be JSON text, got {type(text).__name__}")
    lines = text.strip().splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return Plan.model_validate_json("\n".join(lines))
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "read_plan_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: read_plan returns a Plan for plain and fenced JSON, its steps stripped; it raises
ValueError for a plan of 9 steps, an empty list, a blank step, steps that are not a list, prose,
and None."""
from workbook.checks import fresh

wb = fresh()
PLANS = wb.scenarios.react.PLANS
STEPS = ["Look up order A-1001", "Find my taxi spending in September 2026"]

for name in ("good", "fenced"):
    with wb.checks.no_raise(f"read_plan(the {name} plan)", hint="a plan of 1 to 7 steps, in a ``` fence or not, is valid"):
        plan = read_plan(PLANS[name])
    assert wb.checks.kind(plan) == "Plan", (
        f"read_plan must return a Plan (a pydantic model), got {wb.checks.kind(plan) or type(plan).__name__}")
    wb.checks.equal(plan.steps, STEPS, f"read_plan(the {name} plan).steps",
                    hint="strip a ```json fence before validating" if name == "fenced" else "")
with wb.checks.no_raise("read_plan('{\"steps\": [\"  Look up order A-1001 \"]}')", hint="a step with spaces around it is valid"):
    plan = read_plan('{"steps": ["  Look up order A-1001 "]}')
wb.checks.equal(plan.steps, ["Look up order A-1001"], "the steps of a plan whose step has spaces around it",
                hint="strip each step of surrounding whitespace (in a field_validator)")
for text, what in [(PLANS["too_long"], "a plan of 9 steps (at most 7)"), ('{"steps": []}', "a plan with no steps"),
                   (PLANS["empty_step"], "a plan with a blank step"), ('{"steps": "Look up A-1001"}', "steps as a string"),
                   (PLANS["not_json"], "prose instead of JSON"), (None, "None, not text")]:
    with wb.checks.raises(ValueError, what=f"read_plan({what})"):
        read_plan(text)
print("read_plan: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "read_plan_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: Plan itself validates (1 and 7 steps pass, 0 and 8 do not, steps are stripped);
read_plan takes a fence without a language, surrounding whitespace, extra keys; refuses non-text,
a list at the top level, steps that are not strings and an unclosed fence."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


def ok(text, steps, what):
    with wb.checks.no_raise(f"read_plan({what})", hint='a plan of 1 to 7 steps, in a ``` fence or not, is valid'):
        plan = read_plan(text)
    assert wb.checks.kind(plan) == "Plan", f"{what}: expected a Plan, got {wb.checks.kind(plan) or type(plan).__name__}"
    wb.checks.equal(plan.steps, steps, f"read_plan({what}).steps")


def bad(text, what):
    with wb.checks.raises(ValueError, what=f"read_plan({what})"):
        read_plan(text)


ok('{"steps": ["a"]}', ["a"], "one step")
ok('{"steps": ["1", "2", "3", "4", "5", "6", "7"]}', ["1", "2", "3", "4", "5", "6", "7"], "seven steps")
ok('\n  ```\n{"steps": ["  Look up order A-1001  "]}\n```\n', ["Look up order A-1001"], "a bare fence, padded step")
ok('{"steps": ["a", "b"], "note": "easy"}', ["a", "b"], "an extra key")
bad('{"steps": ["1", "2", "3", "4", "5", "6", "7", "8"]}', "eight steps")
bad('["a", "b"]', "a list at the top level")
bad('{"steps": [1, 2]}', "steps that are numbers")
bad('{"steps": ["a", "\\t"]}', "a step of whitespace")
bad('```json\n{"steps": ["a"]}', "a fence that is never closed")
bad(None, "None")
bad(42, "a number")
bad("", "an empty reply")
with wb.checks.no_raise("Plan(steps=['  a  '])", hint='a step with spaces around it is valid: strip it in a field_validator'):
    plan = Plan(steps=["  a  "])
wb.checks.equal(plan.steps, ["a"], "Plan(steps=['  a  ']).steps (stripped)")
for steps in ([], [f"s{i}" for i in range(8)], ["a", " "]):
    with wb.checks.raises(ValueError, what=f"Plan(steps={steps!r})"):
        Plan(steps=steps)
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · Running the plan
#
# The planner, executor and synthesis prompts are given. `planner_messages(task, done, problem)`
# asks for a plan; after a failure it adds what went wrong (`problem`) and the steps already done,
# so the new plan covers only what is left. `step_prompt(task, done, step)` is the question for the
# executor of one step, with the results known so far. `synthesis_messages(task, done)` asks for
# the answer from the step results. `PlanResult` is what a run returns.

# %% nbgrader={"grade": false, "grade_id": "given_plan_pieces", "locked": true, "schema_version": 3, "solution": false}
PLANNER_PROMPT = ("You are the planner. Split the user's task into at most 7 short steps, each one "
                  "thing a helper with tools can do on its own. Reply with JSON only: "
                  '{"steps": ["...", "..."]}')
SYNTHESIS_PROMPT = ("Write the answer to the user's task from the step results below. Use only "
                    "what the results say.")
# Structured outputs: the planner's reply constrained to {"steps": [<text>, ...]} (the limits on
# the steps are checked in code, by pydantic).
PLAN_FORMAT = {"type": "json_schema", "json_schema": {"name": "plan", "strict": True, "schema": {
    "type": "object", "properties": {"steps": {"type": "array", "items": {"type": "string"}}},
    "required": ["steps"], "additionalProperties": False}}}


@dataclass
class PlanResult:
    """How a plan-and-execute run ended."""

    answer: str | None  # the synthesis; None when the run was stopped
    status: str  # "done" or "STOPPED: replan limit"
    done: list = field(default_factory=list)  # (step, answer) of every finished step, in order
    replans: int = 0  # how many times the planner was asked again


def planner_messages(task, done=(), problem=None):
    """The planner's messages: the task; after a failure, what went wrong and what is done."""
    messages = [{"role": "system", "content": PLANNER_PROMPT}, {"role": "user", "content": task}]
    if problem is not None:
        finished = "\n".join(f"- {step}" for step, _ in done) or "- nothing yet"
        messages.append({"role": "user", "content": f"{problem}\nDone so far:\n{finished}\n"
                         "Plan only what is left."})
    return messages


def step_prompt(task, done, step):
    """The executor's question for one step: the task, the results so far, and the step."""
    known = "".join(f"\n- {s}: {answer}" for s, answer in done) or " nothing yet"
    return f"Task: {task}\nKnown so far:{known}\nStep: {step}"


def synthesis_messages(task, done):
    """The synthesis call's messages: the task and every step's result."""
    results = "\n".join(f"Step: {step}\nResult: {answer}" for step, answer in done)
    return [{"role": "system", "content": SYNTHESIS_PROMPT},
            {"role": "user", "content": f"Task: {task}\n\n{results}"}]


# %%
scenario = scenarios.plan_errand()
client = FakeLLM(scenario).client()
reply = client.chat.completions.create(model="fake-model", messages=planner_messages(scenario.question),
                                       response_format=PLAN_FORMAT)
print("planner:", reply.choices[0].message.content)
step = json.loads(reply.choices[0].message.content)["steps"][0]
print("executor question:\n" + step_prompt(scenario.question, [], step))
print(run_agent(client, "fake-model", step_prompt(scenario.question, [], step), scenario.openai_tools(),
                Shop().tools()))

# %% [markdown]
# ## Exercise 4 — `plan_and_execute` (5 points)
#
# Write `plan_and_execute(client, model, task, tools, impl, max_replans=2, max_steps=6)`:
#
# 1. Ask the planner: `client.chat.completions.create(model=model, messages=planner_messages(task,
#    done, problem), response_format=PLAN_FORMAT)` (no tools), and validate its text as in
#    `read_plan` (a ```` ``` ```` fence allowed; 1–7 non-blank steps). An invalid plan runs
#    **nothing**: `problem = f"Your plan was not valid: {error}"`.
# 2. Run each step of a valid plan with `run_agent(client, model, step_prompt(task, done, step),
#    tools, impl, max_steps=max_steps)`. A `"done"` step appends `(step, result.answer)` to
#    `done`; any other status ends this plan with `problem = f"Step {step!r} failed: {status}"`.
# 3. After an invalid or failed plan: if `max_replans` replans were already made, return
#    `PlanResult(None, "STOPPED: replan limit", done, replans)`; otherwise count one more replan
#    and go back to 1 — **keeping** `done`.
# 4. When every step of a plan is done: one synthesis call with `synthesis_messages(task, done)`
#    (no tools); return `PlanResult(its text, "done", done, replans)`.
#
# So the planner is called at most `max_replans + 1` times. You may use your `read_plan`.

# %% nbgrader={"grade": false, "grade_id": "plan_and_execute", "locked": false, "schema_version": 3, "solution": true}
def plan_and_execute(client, model, task, tools, impl, max_replans=2, max_steps=6):
    """Plan, run each step with run_agent, replan at most max_replans times, synthesize."""
    ### BEGIN SOLUTION
    class Steps(BaseModel):  # read_plan's checks, restated so this exercise is graded on its own
        steps: list[str] = Field(min_length=1, max_length=7)

    def valid(text):
        lines = (text or "").strip().splitlines()
        if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
            lines = lines[1:-1]
        steps = Steps.model_validate_json("\n".join(lines)).steps
        if any(not s.strip() for s in steps):
            raise ValueError("a step is blank")
        return [s.strip() for s in steps]

    done, replans, problem = [], 0, None
    while True:
        reply = client.chat.completions.create(model=model, messages=planner_messages(task, done, problem),
                                               response_format=PLAN_FORMAT)
        try:
            steps = valid(reply.choices[0].message.content)
        except ValueError as e:
            problem = f"Your plan was not valid: {e}"
        else:
            for step in steps:
                result = run_agent(client, model, step_prompt(task, done, step), tools, impl,
                                   max_steps=max_steps)
                if result.status != "done":
                    problem = f"Step {step!r} failed: {result.status}"
                    break
                done.append((step, result.answer))
            else:
                final = client.chat.completions.create(model=model,
                                                       messages=synthesis_messages(task, done))
                return PlanResult(final.choices[0].message.content, "done", done, replans)
        if replans >= max_replans:
            return PlanResult(None, "STOPPED: replan limit", done, replans)
        replans += 1
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "plan_and_execute_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: plan_and_execute asks the planner with response_format=PLAN_FORMAT, runs a good
plan in 6 calls and synthesizes; after a failed step it replans, keeping the finished step; a 9-step plan is refused before any tool runs; a
planner that keeps failing stops at the replan limit."""

from workbook.checks import fresh

wb = fresh()
# The test's own copies of the given code it expects: a notebook that rebinds these names changes nothing here.
#@include 13_react_and_plan_execute PLAN_FORMAT
R = wb.scenarios.react
ORDER, TAXI = (R.ORDER_STEP, wb.scenarios.answers.ORDER_ANSWER), (R.TAXI_STEP, wb.scenarios.answers.TAXI_ANSWER)


def run(first="good", replan="good", cap=20, **options):
    scenario = wb.scenarios.plan_errand(first, replan)
    llm, shop = wb.fake_llm.FakeLLM(scenario), wb.shop.Shop("C-001")
    with wb.checks.no_raise("plan_and_execute", hint="every stop is a status"):
        r = plan_and_execute(llm.client(max_calls=cap), "fake-model", scenario.question, scenario.openai_tools(),
                             shop.tools(), **options)
    assert wb.checks.kind(r) == "PlanResult", (
        f"plan_and_execute must return a PlanResult, got {type(r).__name__}: {r!r}")
    return llm, shop, r


llm, shop, r = run()
wb.checks.equal((r.answer, r.status, r.done, r.replans, llm.calls), (R.PLAN_ANSWER, "done", [ORDER, TAXI], 0, 6),
                "(answer, status, done, replans, model calls) for a good plan",
                hint="1 planner call, 2 calls per step, 1 synthesis call")
assert "tools" not in llm.requests[0] and "tools" not in llm.requests[-1], "the planner and synthesis calls get no tools"
wb.checks.equal(llm.requests[0].get("response_format"), PLAN_FORMAT, "the planner call's response_format",
                hint="constrain the planner with the plan's JSON schema: response_format=PLAN_FORMAT")

llm, shop, r = run("bad_step")
wb.checks.equal((r.answer, r.status, r.done, r.replans), (R.PLAN_ANSWER, "done", [ORDER, TAXI], 1),
                "(answer, status, done, replans) after a failed step",
                hint="keep `done` across replans: the new plan covers only what is left")
wb.checks.equal([args.get("order_id", "taxi") for _, args in shop.log], ["A-1001", "Z-9", "Z-9", "taxi"],
                "the tool calls: A-1001 once, Z-9 until run_agent stops the loop, then taxi")

llm, shop, r = run("too_long")
wb.checks.equal((r.status, r.replans, r.done), ("done", 1, [ORDER, TAXI]), "(status, replans, done) after a 9-step plan")
wb.checks.equal(len(shop.log), 2, "tool calls: none for the refused 9-step plan, 2 for the good one")
asked = llm.requests[1]["messages"][-1]["content"]
assert "not valid" in asked, f"the planner hears why its plan was refused ('Your plan was not valid: ...'); got {asked!r}"

llm, shop, r = run("always_bad", "always_bad", max_replans=2)
wb.checks.equal((r.answer, r.status, r.replans), (None, "STOPPED: replan limit", 2), "a planner that keeps failing")
planner_calls = sum(req["messages"][0]["content"].startswith("You are the planner") for req in llm.requests)
wb.checks.equal(planner_calls, 3, "planner calls with max_replans=2 (the first plan and two replans)")
print("plan_and_execute: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "plan_and_execute_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: plan_and_execute takes a fenced plan; refuses prose, blank steps and long plans
without running a tool; max_replans 0 and 1 exactly; the messages of each call; step questions
carry the results so far; max_steps reaches run_agent; the synthesis sees every result."""
### BEGIN HIDDEN TESTS

from workbook.checks import fresh

wb = fresh()
# The test's own copies of the given code it expects: a notebook that rebinds these names changes nothing here.
#@include 13_react_and_plan_execute PLANNER_PROMPT
#@include 13_react_and_plan_execute SYNTHESIS_PROMPT
#@include 13_react_and_plan_execute PLAN_FORMAT
#@include 13_react_and_plan_execute planner_messages
#@include 13_react_and_plan_execute step_prompt
#@include 13_react_and_plan_execute synthesis_messages
R = wb.scenarios.react
ORDER, TAXI = (R.ORDER_STEP, wb.scenarios.answers.ORDER_ANSWER), (R.TAXI_STEP, wb.scenarios.answers.TAXI_ANSWER)


def run(first="good", replan="good", cap=30, **options):
    scenario = wb.scenarios.plan_errand(first, replan)
    llm, shop = wb.fake_llm.FakeLLM(scenario), wb.shop.Shop("C-001")
    with wb.checks.no_raise("plan_and_execute", hint="every stop is a status"):
        r = plan_and_execute(llm.client(max_calls=cap), "fake-model", scenario.question, scenario.openai_tools(),
                             shop.tools(), **options)
    assert wb.checks.kind(r) == "PlanResult", f"got {wb.checks.kind(r) or type(r).__name__}"
    return llm, shop, r


llm, shop, r = run("fenced")
wb.checks.equal((r.answer, r.status, r.replans, llm.calls), (R.PLAN_ANSWER, "done", 0, 6), "a plan in a ```json fence")

for first in ("not_json", "empty_step", "too_long"):
    llm, shop, r = run(first)
    wb.checks.equal((r.answer, r.status, r.done, r.replans), (R.PLAN_ANSWER, "done", [ORDER, TAXI], 1),
                    f"the first plan is {first}, the replan good")
    wb.checks.equal(len(shop.log), 2, f"no tool may run for a {first} plan")
    wb.checks.equal(llm.requests[1]["messages"][:2], planner_messages(R.ERRAND_QUESTION),
                    "the replan request starts like planner_messages(task)")
    assert llm.requests[1]["messages"][-1]["content"].startswith("Your plan was not valid: "), (
        "problem = f'Your plan was not valid: {error}'")

llm, shop, r = run("bad_step")
planning = [i for i, req in enumerate(llm.requests) if req["messages"][0]["content"] == PLANNER_PROMPT]
wb.checks.equal(planning, [0, 6], "the planner requests: the first plan, and the replan after Z-9 failed (3 calls)")
replan = llm.requests[6]["messages"]
assert replan[-1]["content"].startswith("Step 'Look up order Z-9' failed: STOPPED: loop\nDone so far:\n- Look up order A-1001"), (
    f"after a failed step the planner hears problem = f'Step {{step!r}} failed: {{status}}' and the done steps; got {replan[-1]!r}")
step_two = llm.requests[7]["messages"][0]["content"]
wb.checks.equal(step_two, step_prompt(R.ERRAND_QUESTION, [ORDER], R.TAXI_STEP), "the executor question after a replan")
wb.checks.equal(llm.requests[-1]["messages"], synthesis_messages(R.ERRAND_QUESTION, [ORDER, TAXI]),
                "the synthesis request (synthesis_messages(task, done))")

for max_replans in (0, 1):
    llm, shop, r = run("always_bad", "always_bad", max_replans=max_replans)
    wb.checks.equal((r.answer, r.status, r.replans, r.done), (None, "STOPPED: replan limit", max_replans, []),
                    f"always failing with max_replans={max_replans}")
    planners = sum(req["messages"][0]["content"] == PLANNER_PROMPT for req in llm.requests)
    wb.checks.equal(planners, max_replans + 1, f"planner calls with max_replans={max_replans}")
    assert all(req.get("response_format") == PLAN_FORMAT for req in llm.requests
               if req["messages"][0]["content"] == PLANNER_PROMPT), "every planner call sends response_format=PLAN_FORMAT"
llm, shop, r = run("bad_step", "always_bad")
wb.checks.equal((r.status, r.replans, r.done), ("STOPPED: replan limit", 2, [ORDER]),
                "max_replans defaults to 2; the finished step stays in done")

llm, shop, r = run("bad_step", max_steps=2)
wb.checks.equal((r.status, r.replans), ("done", 1), "with max_steps=2 the bad step stops at the step limit, then a replan")
wb.checks.equal([a.get("order_id", "taxi") for _, a in shop.log], ["A-1001", "Z-9", "Z-9", "taxi"],
                "max_steps=2: Z-9 is tried twice")
replan = [req for req in llm.requests if req["messages"][0]["content"] == PLANNER_PROMPT][1]["messages"][-1]["content"]
assert replan.startswith("Step 'Look up order Z-9' failed: STOPPED: step limit"), (
    f"pass max_steps on to run_agent: with max_steps=2 the Z-9 step stops at its step limit; the planner heard {replan!r}")
### END HIDDEN TESTS


# %% [markdown]
# ## Part 6 · Native loop, ReAct, plan-and-execute: what each costs
#
# The same errand — "Where is my order A-1001, and how much did I spend on taxis in September?" —
# done four ways: the native loop (chapter 06's `run_agent`, with a model that asks for both
# look-ups in one reply), your ReAct loop (one action per turn), your plan-and-execute, and
# plan-and-execute when the first plan has a bad step. `Metered` wraps a client and adds up the
# model calls and the `usage` of every reply.

# %%
class Metered:
    """A client that counts model calls and adds up their usage."""

    def __init__(self, client):
        self.client, self.calls, self.prompt, self.completion = client, 0, 0, 0
        self.chat = self  # so that metered.chat.completions.create(...) works
        self.completions = self

    def create(self, **kwargs):
        response = self.client.chat.completions.create(**kwargs)
        self.calls += 1
        self.prompt += response.usage.prompt_tokens
        self.completion += response.usage.completion_tokens
        return response


def native(sc, client):
    return run_agent(client, "fake-model", sc.question, sc.openai_tools(), Shop().tools())


def react(sc, client):
    return run_react(client, "fake-model", sc.question, sc.openai_tools(), Shop().tools())


def planned(sc, client):
    return plan_and_execute(client, "fake-model", sc.question, sc.openai_tools(), Shop().tools())


ways = [("native loop", scenarios.native_errand(), native),
        ("ReAct as text", scenarios.react_errand(), react),
        ("plan-and-execute", scenarios.plan_errand(), planned),
        ("plan-and-execute, 1 replan", scenarios.plan_errand("bad_step"), planned)]
rows = []
for name, sc, run in ways:
    meter = Metered(FakeLLM(sc).client())
    result = run(sc, meter)
    answer = result.answer or ""
    correct = scenarios.react.ERRAND_ANSWER in answer
    rows.append((name, meter.calls, meter.prompt, meter.completion, meter.prompt + meter.completion,
                 result.status, correct))

print(f"{'way':28} {'calls':>5} {'prompt':>7} {'completion':>10} {'total':>6}  {'status':8} correct")
for name, calls, prompt, completion, total, status, correct in rows:
    print(f"{name:28} {calls:>5} {prompt:>7} {completion:>10} {total:>6}  {status:8} {correct}")

# %% [markdown]
# What the table shows (the fake's token rule is published, so these numbers are the same on every
# run; real models differ in size, not in shape):
#
# - The **native loop** is the cheapest here: the model asked for both look-ups in one reply, so
#   two calls did the whole errand.
# - **ReAct** needs one call per action plus one for the answer, and every call resends the system
#   prompt — which now carries the tool descriptions *and* the format — and the whole text history.
#   It costs more per step than the native loop, in exchange for working with models that have no
#   tool calling at all.
# - **Plan-and-execute** pays for the planner and the synthesis on top of each step's own small
#   loop, so it makes the most calls. Each executor's conversation is short, though: its prompts
#   stay small however long the task, where a single loop's prompt grows with every step
#   (chapter 06). The plan is also something your code checked before any tool ran.
# - **A replan** costs a planner call plus the steps that ran before the failure — and the failed
#   step's own calls. That is why the number of replans has a limit.
#
# Which to use: native tool calling whenever the model has it; ReAct when it does not (small local
# models, some fine-tunes); plan-and-execute when the task has several independent parts, when a
# person or a policy must see the plan before anything runs, or when one long conversation would
# outgrow the context window.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Keeping the invented observation.** With neither a stop sequence nor a cut, the model's own
#   `Observation:` stays in the history: the run ends with a confident answer built on made-up data
#   (7400 KZT instead of 5000). Cut the reply before `Observation:` before appending it (and send
#   `stop=["Observation:"]` as well where the model takes it).
# - **Relying on `stop` alone.** `gpt-5-mini`, `gpt-5` and the o-series refuse it with a 400; a
#   provider that ignores it lets the invention through. The cut works everywhere.
# - **Sending `tools` to a text-only model.** Ollama answers 400 "… does not support tools". The
#   tools belong in the prompt.
# - **`json.loads` on everything after `Action Input:`.** Any sentence after the JSON breaks it.
#   Read one value with `raw_decode`.
# - **Looking for `Final Answer:` first.** The answer after an action rests on an observation the
#   model invented. The first marker decides.
# - **A parser that raises.** Malformed text is the model's mistake, not your program's: send it
#   back as `Observation: ERROR: ...` and let the model try again.
# - **Accepting any list as a plan.** `json.loads(text)["steps"]` runs a 20-step plan, a blank
#   step, or crashes on prose. Validate with pydantic before anything runs.
# - **Replanning forever.** A planner that keeps writing the same bad step costs calls until
#   someone notices. Count replans and stop with `"STOPPED: replan limit"`.
# - **Forgetting what was done.** Clearing `done` on a replan redoes finished steps (and, for
#   actions such as refunds, does them twice).
# - **Skipping the synthesis.** Gluing the step results together is not an answer to the user's
#   question; one last call writes it.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("13_react_and_plan_execute")

# %% [markdown]
# ## Live cell (optional)
#
# Your `run_react` against a real model. Small local models on Ollama are where ReAct matters
# most: many of them refuse `tools`. With a larger model you will see the same format followed
# more or less well — watch for the first reply: does it stop before `Observation:`? It runs only
# when `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        scenario = scenarios.react_taxi()
        live = run_react(live_client, live_model, scenario.question, scenario.openai_tools(),
                         Shop("C-001").tools(), max_steps=4)
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
# **14 · One agent or a team**: plan-and-execute already hands steps to separate, short-lived
# loops. The next chapter gives them names, instructions and tools of their own — triage, refunds
# — and asks what must travel with a handoff (a brief and the customer's identity) and what must
# not (the whole transcript, and any customer id the model writes).
