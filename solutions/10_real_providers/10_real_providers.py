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
# # 10 · Real providers
#
# Every loop so far talked to the workbook's fake provider. This chapter points the same loop at
# real ones: **Ollama** on your own machine, **DeepSeek** in the cloud, and **OpenAI**. All three
# speak Chat Completions, so most of your code does not change — only the client does. But each
# provider bends the format in its own way, and a loop written against one of them breaks on the
# next: DeepSeek wants its reasoning back, Ollama quietly drops the start of a conversation that
# outgrows its context (often the user's own question), `tool_choice` means three different
# things, and strict schemas have rules of their own, different for each provider. At the end, Anthropic's Messages API sits beside Chat
# Completions: you convert a whole transcript from one format to the other, then write the same
# loop on the Messages API itself.
#
# You rehearse all of it offline: the fake provider has a DeepSeek dialect and an Ollama dialect
# that copy the real rules and error texts, and it can serve real HTTP on `127.0.0.1`, so the code
# path you test is the one a live provider uses.
#
# **Learning goals.** After this chapter you can
# - switch providers with one setting, and say where base URLs, keys and model names belong;
# - keep DeepSeek's `reasoning_content` in the history, and recognise the 400 when it is lost;
# - choose `tool_choice` per provider (and know why forcing a tool fails in thinking mode);
# - make a tool definition fit a provider's strict mode, and know that each provider has its own rules;
# - notice Ollama silently dropping the oldest messages (often the user's question), and prevent it;
# - write one `run_agent` that works on every provider;
# - convert a transcript between Anthropic Messages and Chat Completions: `tool_use` /
#   `tool_result`, `is_error`, `stop_reason`;
# - write the loop on Anthropic's Messages API: `system=` apart, the whole `content` kept, every
#   `tool_use` answered in one user message, `is_error`, a stop status for `max_tokens`.
#
# **Time:** about 110 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (tool calls, ids, the assistant turn, the 400s),
# 05 · Errors are observations, 06 · Limits and stopping. What you need is restated below as given
# code.

# %% [markdown]
# ## Given code from chapters 02–03
#
# The result object of every loop in this workbook, and `call_tool`: a tool's result, or an
# `{"error": ...}` observation for an unknown tool or any exception. It never raises.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_03", "locked": true, "schema_version": 3, "solution": false}
import copy
import json
from dataclasses import dataclass

from workbook import scenarios
from workbook.fake_llm import FakeLLM, prompt_tokens
from workbook.probes import after_changing  # a result changed in place, then a second call (Exercise 2)
from workbook.shop import SCHEMAS, Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


# %% [markdown]
# ## Part 1 · One loop, four providers
#
# Ollama, DeepSeek and OpenAI all accept `client.chat.completions.create(...)` from the `openai`
# package. What differs is where the client connects, which key it sends and which model it asks
# for. The workbook keeps those three things in **one place**, `workbook.providers`, and picks the
# provider from one setting, `LLM_PROVIDER`:

# %%
from workbook.providers import PROVIDERS, describe, make_client

print(f"{'LLM_PROVIDER':14}{'base_url':32}{'model':16}key from")
for p in PROVIDERS.values():
    print(f"{p.name:14}{p.base_url or '(SDK default)':32}{p.model:16}{p.key_var or '(none)'}")
print()
print("now:", describe())

# %% [markdown]
# - **ollama** runs on your machine. Its OpenAI-compatible endpoint is `/v1` on port 11434.
#   Ollama ignores the API key; it is the `openai` SDK that refuses to start without one, so
#   `make_client` passes the placeholder `"ollama"`. Nothing leaves your computer, so it is the
#   only choice for private data. The course's default model, `qwen3:4b`, fits in 8 GB of memory.
#   Pick models whose page on ollama.com carries the **tools** tag (qwen3 does): a model without
#   it answers any request that sends `tools` with 400 "registry.ollama.ai/library/<model> does
#   not support tools". qwen3 also thinks by default (Ollama turns thinking on for models that
#   can), which makes each answer slower. Local tokens are free, but time is not: the first
#   request also waits for the model to load, so give a local client a looser timeout, e.g.
#   `make_client(timeout=300)`.
#
#   Setting it up, as Ollama's own docs describe it (docs.ollama.com; sources in `docs/SOURCES.md`):
#   1. **Install.** On Linux, `curl -fsSL https://ollama.com/install.sh | sh`; the script also
#      installs a `systemd` service that runs the server. On macOS and Windows, the app from
#      ollama.com/download. `ollama -v` shows the version once the server runs.
#   2. **Pull the model** once: `ollama pull qwen3:4b`. A request for a model that was never
#      pulled gets 404 `model "qwen3:4b" not found, try pulling it first`; `ollama list` shows
#      what is on the machine.
#   3. **Give it more context** than the default 4096 tokens (Part 5 shows why). Started by hand:
#      `OLLAMA_CONTEXT_LENGTH=16384 ollama serve`. Run by the installer's service, the setting goes
#      into the service: `sudo systemctl edit ollama.service`, a line
#      `Environment="OLLAMA_CONTEXT_LENGTH=16384"` under `[Service]`, then
#      `sudo systemctl daemon-reload` and `sudo systemctl restart ollama`. The macOS and Windows
#      apps have a context-length slider in their settings. `ollama ps` shows the `CONTEXT` a
#      loaded model got. The OpenAI-compatible `/v1` cannot set it per request.
#   4. **Switch thinking off** when you want speed more than reasoning: through `/v1`, send
#      `reasoning_effort="none"` (Ollama accepts `"high"`, `"medium"`, `"low"` and `"none"`); in
#      Ollama's own `/api/chat`, `"think": false`; on the command line,
#      `ollama run qwen3:4b --think=false`.
# - **deepseek** is a cloud provider with an OpenAI-compatible API at `https://api.deepseek.com`.
#   It is cheap and strong at tool use, and it thinks out loud (Part 2). Its servers are in China:
#   send it only public data — in this workbook, the shop's public knowledge-base pages.
# - **openai**: the SDK's default URL, a key in `OPENAI_API_KEY`.
#
# Keys never go into a notebook or a repository. Put them in a `.env` file at the root of the
# workbook (git ignores it) or in the environment:
#
# ```
# # .env
# LLM_PROVIDER=deepseek
# DEEPSEEK_API_KEY=sk-...
# # LLM_MODEL=deepseek-v4-pro      optional: another model of the same provider
# # LLM_BASE_URL=http://...        optional: another server that speaks the same API
# ```
#
# `make_client()` reads these settings and returns `(client, model)`. Your loop receives both and
# never looks at `LLM_PROVIDER` itself: switching providers is a change of settings, not of code.
#
# ### The real HTTP path, offline
#
# A live client talks HTTP to a URL. The fake can do that too: `llm.serve()` starts a server on
# `127.0.0.1` and gives you its URL. Point the `openai` provider settings at it, and
# `make_client` builds exactly the client it would build for a real provider — real sockets, real
# headers, a real `Authorization: Bearer` key.

# %%
llm = FakeLLM(scenarios.taxi_spending())
with llm.serve() as base_url:
    settings = {"LLM_PROVIDER": "openai", "LLM_BASE_URL": base_url, "OPENAI_API_KEY": "sk-not-a-real-key"}
    client, model = make_client(env=settings, dotenv={})
    print("client:", client.base_url, "model:", model)
    response = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "How much did I spend on taxis in September?"}],
        tools=[SCHEMAS["txn_sum"]])
    print("reply: ", response.choices[0].message.tool_calls[0].function)

# %% [markdown]
# ## Part 2 · DeepSeek's thinking mode
#
# DeepSeek's models think before they answer, and the API returns that thinking in an extra field,
# `reasoning_content`, beside `content`. Thinking mode is on by default. The fake's `"deepseek"`
# dialect does the same:

# %%
scenario = scenarios.deepseek_thinking()
llm = FakeLLM(scenario, dialect="deepseek")
client = llm.client()
messages = [{"role": "user", "content": scenario.question}]
response = client.chat.completions.create(model="deepseek-flash", messages=messages,
                                          tools=scenario.openai_tools())
message = response.choices[0].message
print("reasoning_content:", message.reasoning_content)
print("tool_calls:       ", [(c.function.name, c.function.arguments) for c in message.tool_calls])
print("usage:            ", response.usage)

# %% [markdown]
# The `openai` package does not know this field, but it keeps it: unknown fields of a reply live
# in `message.model_extra` and can be read as attributes. Reply objects from other providers
# simply do not have it, so read it with a default: `getattr(message, "reasoning_content", None)`.
#
# Here is the rule that breaks loops written for OpenAI: **when a turn used tools, its
# `reasoning_content` must be sent back in every later request.** A loop that rebuilds the
# assistant turn by hand, the way many tutorials do, loses the field — and the second step fails.
# Run the cell and read the error (it is meant to fail):

# %% tags=["raises-exception"]
call = message.tool_calls[0]
by_hand = {"role": "assistant", "content": message.content,
           "tool_calls": [c.model_dump() for c in message.tool_calls]}  # reasoning_content is lost
result = call_tool(Shop().tools(), call.function.name, json.loads(call.function.arguments))
messages += [by_hand, {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}]
client.chat.completions.create(model="deepseek-flash", messages=messages, tools=scenario.openai_tools())

# %% [markdown]
# The first step worked and the second did not, which makes this bug easy to miss in a quick
# test. Two ways out: keep `reasoning_content` in the assistant turn, or switch thinking off
# (`extra_body={"thinking": {"type": "disabled"}}`) when your loop cannot keep it. DeepSeek has
# changed this rule over time; the fake teaches the strict version, which is always safe.
#
# `message.model_dump(exclude_none=True)` (chapter 03) keeps the field, because it copies
# everything the provider sent. But sooner or later you write the turn yourself: to save a
# history as JSON (chapter 09), to move it to another provider, or to drop fields you do not want
# to send back. That is the moment to decide, field by field, what goes back.

# %% [markdown]
# ## Exercise 1 — `assistant_turn` (3 points)
#
# Write `assistant_turn(message)`. `message` is the assistant message from the SDK
# (`response.choices[0].message`) of any provider. Return a **plain dict** for the history with
# exactly these keys:
#
# - `"role"`: `"assistant"`;
# - `"content"`: `message.content` as it is (a string, or `None` when the reply only calls tools);
# - `"tool_calls"` — **only when the message has tool calls**: a list with one plain dict per call,
#   `{"id": ..., "type": "function", "function": {"name": ..., "arguments": ...}}`, in order, the
#   arguments exactly the string the provider sent;
# - `"reasoning_content"` — **only when the provider sent a non-empty one**.
#
# Nothing else: no `refusal`, `annotations`, `audio` or `None`-valued extras, and no SDK objects
# (use `dict`s and `list`s all the way down).

# %% nbgrader={"grade": false, "grade_id": "assistant_turn", "locked": false, "schema_version": 3, "solution": true}
def assistant_turn(message):
    """The assistant message as a plain dict for the history, with DeepSeek's reasoning kept."""
    ### BEGIN SOLUTION
    turn = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        turn["tool_calls"] = [{"id": c.id, "type": "function",
                               "function": {"name": c.function.name, "arguments": c.function.arguments}}
                              for c in message.tool_calls]
    reasoning = getattr(message, "reasoning_content", None)
    if reasoning:
        turn["reasoning_content"] = reasoning
    return turn
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "assistant_turn_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: assistant_turn turns a DeepSeek reply with a tool call into a plain dict with
exactly role, content, tool_calls (plain dicts, arguments as sent) and reasoning_content, and an
OpenAI final answer into exactly role and content (no tool_calls, no reasoning_content)."""
from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.deepseek_thinking()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
reply = llm.client().chat.completions.create(
    model="deepseek-flash", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message
turn = assistant_turn(reply)
assert type(turn) is dict, f"assistant_turn must return a plain dict, got {type(turn).__name__}"
assert turn.get("role") == "assistant", f"the turn's role is 'assistant'; got {turn.get('role')!r}"
assert type(turn.get("tool_calls")) is list and len(turn["tool_calls"]) == 1, (
    f"keep the reply's tool call, as a list; got {turn.get('tool_calls')!r}")
assert turn.get("reasoning_content") == "I need the taxi total for September 2026.", (
    "keep DeepSeek's reasoning_content (getattr(message, 'reasoning_content', None)); "
    f"got {turn.get('reasoning_content')!r}")
call = reply.tool_calls[0]
wb.checks.equal(turn, {"role": "assistant", "content": reply.content,
                       "tool_calls": [{"id": call.id, "type": "function",
                                       "function": {"name": call.function.name, "arguments": call.function.arguments}}],
                       "reasoning_content": "I need the taxi total for September 2026."},
                "assistant_turn(<the DeepSeek reply>)",
                "exactly these keys (no refusal, annotations...), plain dicts and lists all the way down")
final = wb.scenarios.long_chat_small_context()
reply = wb.fake_llm.FakeLLM(final).client().chat.completions.create(
    model="gpt-fake", messages=[{"role": "user", "content": "Where is my order A-1001?"}]).choices[0].message
wb.checks.equal(assistant_turn(reply), {"role": "assistant", "content": reply.content},
                "assistant_turn(<an OpenAI final answer>)",
                "tool_calls only when the message has tool calls, reasoning_content only when the provider sent one")
print("assistant_turn: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "assistant_turn_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: assistant_turn gives exactly role/content/tool_calls/reasoning_content as plain
data for OpenAI and DeepSeek replies, with and without tool calls, keeps every parallel call in
order, and a DeepSeek loop built on it passes the second step."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def reply_of(scenario, dialect, messages=None):
    llm = wb.fake_llm.FakeLLM(scenario, dialect=dialect)
    messages = messages or [{"role": "user", "content": scenario.question}]
    response = llm.client().chat.completions.create(model="m", messages=messages,
                                                    tools=scenario.openai_tools())
    return llm, response.choices[0].message, response.model_dump()["choices"][0]["message"]


def turn_of(message):
    with wb.checks.no_raise("assistant_turn", hint='read tool_calls and reasoning_content with getattr: not every message has them'):
        turn = assistant_turn(message)
    assert type(turn) is dict, f"return a plain dict, got {type(turn).__name__}"
    return turn


def wire_calls(raw):
    return [{"id": c["id"], "type": "function",
             "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}
            for c in raw["tool_calls"]]


# OpenAI dialect, two parallel calls: exactly role, content None, the calls as plain dicts.
llm, msg, raw = reply_of(wb.scenarios.two_orders(), "openai")
turn = turn_of(msg)
assert set(turn) == {"role", "content", "tool_calls"}, (
    f"an OpenAI tool-call reply gives exactly role, content and tool_calls; got keys {sorted(turn)}")
assert turn["content"] is None, f"keep content as it is (None here); got {turn['content']!r}"
assert type(turn["tool_calls"]) is list and all(type(c) is dict and type(c.get("function")) is dict
                                               for c in turn["tool_calls"]), (
    "tool_calls must be a list of plain dicts (not SDK objects), with 'function' a dict too")
wb.checks.equal(turn["tool_calls"], wire_calls(raw), "the tool_calls",
                "one {'id', 'type': 'function', 'function': {'name', 'arguments'}} per call, in order")

# OpenAI dialect, a final answer: no tool_calls key, no reasoning.
llm, msg, raw = reply_of(wb.scenarios.long_chat_small_context(), "openai")
wb.checks.equal(turn_of(msg), {"role": "assistant", "content": raw["content"]}, "the turn of a final answer",
                "leave out tool_calls when there are none, and every field the protocol does not need")

# DeepSeek dialect: the reasoning is kept, for a tool call and for a final answer.
llm, msg, raw = reply_of(wb.scenarios.two_orders(), "deepseek")
wb.checks.equal(turn_of(msg), {"role": "assistant", "content": None, "tool_calls": wire_calls(raw),
                               "reasoning_content": raw["reasoning_content"]}, "a DeepSeek tool-call turn")
llm, msg, raw = reply_of(wb.scenarios.long_chat_small_context(), "deepseek")
wb.checks.equal(turn_of(msg), {"role": "assistant", "content": raw["content"],
                               "reasoning_content": raw["reasoning_content"]}, "a DeepSeek final turn")

# A whole DeepSeek conversation built on assistant_turn gets past the second step.
scenario = wb.scenarios.deepseek_thinking()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
client = llm.client(max_retries=0)
messages = [{"role": "user", "content": scenario.question}]
shop = wb.shop.Shop("C-001")
for _ in range(3):
    try:
        msg = client.chat.completions.create(model="deepseek-flash", messages=messages,
                                             tools=scenario.openai_tools()).choices[0].message
    except Exception as e:
        raise AssertionError(f"DeepSeek refused a history built with assistant_turn: {e}") from None
    messages.append(turn_of(msg))
    for call in msg.tool_calls or []:
        result = shop.txn_sum(**json.loads(call.function.arguments))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
assert msg.content == scenario.answer, f"the conversation should end with the answer; got {msg.content!r}"
json.dumps(messages)  # plain data all the way down
### END HIDDEN TESTS

# %% [markdown]
# ## Part 3 · `tool_choice` is not the same everywhere
#
# `tool_choice` tells the model whether it may, must or must not call a tool. OpenAI defines four
# values; the others support less:
#
# | `tool_choice` | OpenAI | DeepSeek, thinking on | DeepSeek, thinking off | Ollama `/v1` |
# |---|---|---|---|---|
# | `"auto"` (the default) | the model decides | ✓ | ✓ | the only behaviour |
# | `"none"` | no tool calls | ✓ | ✓ | not supported |
# | `"required"` | at least one call | **400** | ✓ | not supported |
# | `{"type": "function", "function": {"name": N}}` | must call N | **400** | ✓ | not supported |
#
# So "force the model to call a tool" is a request you can make to OpenAI; to DeepSeek only with
# thinking switched off for that request; and to Ollama not at all — there your loop has to cope
# with a model that answers in text, or writes the call as text (chapter 05). DeepSeek's refusal:

# %% tags=["raises-exception"]
scenario = scenarios.two_orders()
client = FakeLLM(scenario, dialect="deepseek").client(max_retries=0)
client.chat.completions.create(model="deepseek-flash", messages=[{"role": "user", "content": scenario.question}],
                               tools=scenario.openai_tools(), tool_choice="required")

# %% [markdown]
# Options the SDK does not know by name, like DeepSeek's `thinking` switch, go in `extra_body`:
# the SDK merges that dict into the JSON body. The fake records the body as it arrived:

# %%
llm = FakeLLM(scenario, dialect="deepseek")
llm.client().chat.completions.create(
    model="deepseek-flash", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools(), tool_choice="required", extra_body={"thinking": {"type": "disabled"}})
print({k: v for k, v in llm.requests[0].items() if k in ("tool_choice", "thinking")})

# %% [markdown]
# ## Exercise 2 — `request_options` (3 points)
#
# Write `request_options(provider, force_tool=False, thinking=True)`. It returns a **new dict** of
# the extra keyword arguments to pass to `client.chat.completions.create(...)` for that provider:
#
# | `provider` | `force_tool=False` | `force_tool=True` |
# |---|---|---|
# | `"openai"` or `"fake"` | `{}` | `{"tool_choice": "required"}` |
# | `"deepseek"` | `{"extra_body": {"thinking": {"type": T}}}`, where T is `"enabled"` if `thinking` else `"disabled"` | `{"tool_choice": "required", "extra_body": {"thinking": {"type": "disabled"}}}` (forcing a tool needs thinking off) |
# | `"ollama"` | `{}` | `{}` (Ollama cannot force a tool call) |
#
# `thinking` matters only for DeepSeek. Any other provider name raises `ValueError` with a
# message that lists the known ones.
#
# Why a **new** dict each call: a caller may add to what it got (`options["tools"] = ...`), and a
# dict your function hands out again would carry that change into every later request. Only your
# own process holds both results, so no grader outside it can see this: it is not graded. The cell
# after the tests checks it for you with `after_changing` (a result changed in place, then a second
# call).

# %% nbgrader={"grade": false, "grade_id": "request_options", "locked": false, "schema_version": 3, "solution": true}
def request_options(provider, force_tool=False, thinking=True):
    """Extra keyword arguments for chat.completions.create, per provider."""
    ### BEGIN SOLUTION
    if provider in ("openai", "fake"):
        return {"tool_choice": "required"} if force_tool else {}
    if provider == "deepseek":
        on = thinking and not force_tool  # forcing a tool is refused in thinking mode
        options = {"extra_body": {"thinking": {"type": "enabled" if on else "disabled"}}}
        if force_tool:
            options["tool_choice"] = "required"
        return options
    if provider == "ollama":
        return {}  # no tool_choice on Ollama's OpenAI-compatible API
    raise ValueError(f"unknown provider {provider!r}; known: openai, fake, deepseek, ollama")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "request_options_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: request_options forces a tool on OpenAI and the fake with tool_choice="required"
and adds nothing otherwise; DeepSeek's thinking follows `thinking`, and its options for a forced
tool are accepted by the DeepSeek fake; Ollama gets no tool_choice; an unknown provider raises
ValueError listing the known ones."""
from workbook.checks import fresh

wb = fresh()
got = request_options("openai", force_tool=True)
wb.checks.equal(got, {"tool_choice": "required"}, 'request_options("openai", force_tool=True)')
wb.checks.equal(request_options("fake", force_tool=True), {"tool_choice": "required"},
                'request_options("fake", force_tool=True)', "the fake takes the same options as OpenAI")
wb.checks.equal(request_options("openai"), {}, 'request_options("openai")', "no forced tool, no extra options")
wb.checks.equal(request_options("deepseek"), {"extra_body": {"thinking": {"type": "enabled"}}},
                'request_options("deepseek")', "thinking is on by default")
wb.checks.equal(request_options("deepseek", thinking=False), {"extra_body": {"thinking": {"type": "disabled"}}},
                'request_options("deepseek", thinking=False)', "T is 'disabled' when thinking is False")
options = request_options("deepseek", force_tool=True)
assert type(options) is dict, f"return a dict of keyword arguments, got {type(options).__name__}"
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
try:
    llm.client(max_retries=0).chat.completions.create(
        model="deepseek-flash", messages=[{"role": "user", "content": scenario.question}],
        tools=scenario.openai_tools(), **options)
except Exception as e:
    raise AssertionError(f"DeepSeek refused request_options('deepseek', force_tool=True) = {options!r}: {e}") from None
assert llm.requests[0].get("tool_choice") == "required", "forcing a tool on DeepSeek still sends tool_choice='required'"
wb.checks.equal(request_options("ollama", force_tool=True), {}, 'request_options("ollama", force_tool=True)',
                "Ollama cannot force a tool call: send no tool_choice")
with wb.checks.raises(ValueError, match="ollama", what='request_options("anthropic")'):
    request_options("anthropic")
print("request_options: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "request_options_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: every provider and flag combination gives exactly the table's options; DeepSeek
accepts all of them and thinking is off whenever a tool is forced; Ollama never gets tool_choice;
an unknown provider raises ValueError."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


def options_for(*args, **kwargs):
    with wb.checks.no_raise(f"request_options{args}", hint='only an unknown provider raises ValueError'):
        got = request_options(*args, **kwargs)
    assert type(got) is dict, f"request_options{args} must return a dict, got {type(got).__name__}"
    return got


on, off = {"extra_body": {"thinking": {"type": "enabled"}}}, {"extra_body": {"thinking": {"type": "disabled"}}}
table = {
    ("openai", False, True): {}, ("openai", True, True): {"tool_choice": "required"},
    ("fake", False, True): {}, ("fake", True, False): {"tool_choice": "required"},
    ("openai", False, False): {},
    ("deepseek", False, True): on, ("deepseek", False, False): off,
    ("deepseek", True, True): {"tool_choice": "required", **off},
    ("deepseek", True, False): {"tool_choice": "required", **off},
    ("ollama", False, True): {}, ("ollama", True, True): {}, ("ollama", True, False): {},
}
for (provider, force, thinking), want in table.items():
    got = options_for(provider, force_tool=force, thinking=thinking)
    wb.checks.equal(got, want, f"request_options({provider!r}, force_tool={force}, thinking={thinking})")
wb.checks.equal(options_for("deepseek"), on, "request_options('deepseek') (thinking is on by default)")

scenario = wb.scenarios.two_orders()
for force in (False, True):
    for thinking in (False, True):
        llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
        options = options_for("deepseek", force_tool=force, thinking=thinking)
        try:
            llm.client(max_retries=0).chat.completions.create(
                model="deepseek-flash", messages=[{"role": "user", "content": scenario.question}],
                tools=scenario.openai_tools(), **options)
        except Exception as e:
            raise AssertionError(f"DeepSeek refused {options!r}: {e}") from None

for bad in ("anthropic", "OpenAI", "", None):
    with wb.checks.raises(ValueError, match="deepseek", what=f"request_options({bad!r})"):
        request_options(bad)
### END HIDDEN TESTS

# %%
# Not graded (only this process holds both results): a caller changes what it got, then asks again.
try:
    again = after_changing(request_options, {"tool_choice": "auto"}, "deepseek", force_tool=True)
except NotImplementedError:
    print("Write request_options first.")
else:
    print("A new dict every time." if again.get("tool_choice") == "required" else
          f"A shared dict: the caller's change came back in the next call: {again!r}")

# %% [markdown]
# ## Part 4 · Strict schemas
#
# A schema asks the model for arguments of a certain shape; it does not make it send them.
# **Strict mode** does: the provider constrains the model's output to the schema, so the arguments
# always parse and always match. OpenAI has it (`"strict": true` in the function definition), and
# DeepSeek has it in beta (the same flag, through the `https://api.deepseek.com/beta` base URL).
# The price is a stricter schema language. Both providers ask for the same shape:
#
# - `"strict": true` next to `name` and `parameters`;
# - every object has `"additionalProperties": false`;
# - **every** property is listed in `required` — an optional field becomes a required one that may
#   be `null`: `{"type": ["integer", "null"]}`.
#
# Which *keywords* a strict schema may use is where they differ, so check the provider's own list
# (`docs/SOURCES.md` has both, with the date they were checked):
#
# | keyword | OpenAI strict | DeepSeek strict (beta) |
# |---|---|---|
# | `pattern`, `format` on strings | supported | supported (`format`: email, hostname, ipv4, ipv6, uuid) |
# | `minimum`, `maximum`, `multipleOf` on numbers | supported | supported |
# | `minItems`, `maxItems` on arrays | supported | **not supported** |
# | `minLength`, `maxLength` on strings | not in its supported list | **not supported** |
# | `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas` | **not supported** | — |
#
# A tool definition written for OpenAI's strict mode can therefore be refused by DeepSeek's, and
# the other way round. The provider checks the schema when the request arrives and refuses one
# that does not fit. This small checker lists what one provider would refuse:

# %%
# Keywords each provider's strict mode does not take (docs/SOURCES.md, checked 2026-11-30).
NOT_IN_STRICT = {
    "openai": ("minLength", "maxLength", "allOf", "not", "if", "then", "else",
               "dependentRequired", "dependentSchemas"),
    "deepseek": ("minLength", "maxLength", "minItems", "maxItems"),
}


def strict_problems(tool, provider="openai"):
    """What keeps a tool definition out of `provider`'s strict mode; [] when it fits."""
    fn = tool["function"]
    problems = [] if fn.get("strict") is True else ["'strict': true is missing"]

    def walk(schema, where):
        problems.extend(f"{where}: '{key}' is not allowed in {provider}'s strict mode"
                        for key in NOT_IN_STRICT[provider] if key in schema)
        if schema.get("type") == "object":
            if schema.get("additionalProperties") is not False:
                problems.append(f"{where}: needs 'additionalProperties': false")
            props = schema.get("properties", {})
            loose = sorted(set(props) - set(schema.get("required", [])))
            if loose:
                problems.append(f"{where}: not in 'required': {', '.join(loose)}")
            for name, sub in props.items():
                walk(sub, f"{where}.{name}")

    walk(fn.get("parameters", {}), fn["name"])
    return problems


search = {"type": "function", "function": {
    "name": "rag_search", "description": "Search the shop's knowledge base.",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string", "minLength": 2},
        "k": {"type": "integer", "description": "how many results, 1-8 (default 4)"},
        "topics": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["query"]}}}
print(strict_problems(search))

strict_search = copy.deepcopy(search)
fn = strict_search["function"]
fn["strict"] = True
params = fn["parameters"]
params["additionalProperties"] = False
params["required"] = ["query", "k", "topics"]
del params["properties"]["query"]["minLength"]
params["properties"]["k"]["type"] = ["integer", "null"]  # optional: required, but may be null
params["properties"]["topics"]["type"] = ["array", "null"]
print("openai:  ", strict_problems(strict_search, "openai"))
print("deepseek:", strict_problems(strict_search, "deepseek"))

# %% [markdown]
# The same definition fits OpenAI's strict mode and not DeepSeek's: `maxItems` is one of the
# keywords DeepSeek's beta refuses. Drop it (and check the length in the tool) and it fits both.
#
# Strict mode cuts argument errors (wrong names, wrong types, broken JSON) down to almost none,
# which matters most for small models. It does not check *values*: a strict schema still lets a
# model ask for `k = 500`, so the tool keeps its own checks (chapter 07).

# %% [markdown]
# ## Part 5 · Ollama forgets the start of the conversation
#
# A local model has a context window, and Ollama's default is small: 4096 tokens, unless the
# machine has 24 GiB of GPU memory or more. When a chat request is longer, Ollama does not refuse
# it. It **silently drops whole messages from the front**, oldest first, until the rest fits — but
# it always keeps every `system` message and the latest message. So what vanishes is the oldest
# *history*: in a chat, what the user said first; in an agent loop, the user's question and the
# first tool results. The model answers from what is left, and nothing tells you.
#
# You may read that Ollama cuts the system prompt first. The belief is widespread (an early draft of
# this workbook repeated it), and it is wrong for the chat API: the code that builds the prompt,
# `chatPrompt` in Ollama's `server/prompt.go`, keeps the system messages on purpose. When a
# tutorial and the source disagree, the source wins; `docs/SOURCES.md` lists the lines.
#
# The fake's `"ollama"` dialect does the same. Northwind's support prompt says "always sign your
# answer". A customer names their order in the first message, asks about delivery to eighty
# cities, then comes back to the order:

# %%
scenario = scenarios.long_chat_small_context()
system = {"role": "system", "content": scenario.system}
opening = [{"role": "user", "content": "Hi! I have a question about my order A-1001."},
           {"role": "assistant", "content": "Of course. What would you like to know?"}]
history = scenarios.chat_history(80)
question = {"role": "user", "content": "Thanks. And my order: has it shipped yet?"}

for window in (4096, 16_384):
    llm = FakeLLM(scenario, dialect="ollama", context_window=window)
    sent = [system, *opening, *history, question]
    response = llm.client().chat.completions.create(model="qwen3:4b", messages=sent)
    seen = llm.seen[0]
    print(f"window {window:>6}: sent {len(sent)} messages ({prompt_tokens(sent, None)} tokens), "
          f"the model read {len(seen)} ({response.usage.prompt_tokens} tokens)")
    print(f"               system prompt kept: {seen[0] == system}, latest kept: {seen[-1] == question}, "
          f"first message kept: {opening[0] in seen}")
    print(f"               answer: {response.choices[0].message.content}")

# %% [markdown]
# `llm.seen` is what the model actually read. With a 4096-token window the system prompt is still
# there (the answer is signed) and so is the latest message, but the customer's first message is
# gone, and with it the order number. The fake shows you what happened; a real Ollama hardly does.
# Your code gets no error, and the server mentions the cut only in a debug line ("truncating input
# messages which exceed context length"), which `ollama serve` prints only with `OLLAMA_DEBUG=1`.
# Only when even the system messages and the latest message do not fit does a too-long prompt
# reach the model runner, which keeps its first few tokens, drops the middle and logs the warning
# "truncating input prompt" (or, with context shift switched off, answers 400 "the prompt is
# longer than the context length …").
#
# What to do:
# - give the model more context: `OLLAMA_CONTEXT_LENGTH=16384` for the server (Part 1, step 3, also
#   for the service the installer sets up), or `num_ctx` in a Modelfile, then check the `CONTEXT`
#   column of `ollama ps`. The course default is `qwen3:4b` with 16k. Larger windows cost memory, so do not just set 128k on a
#   laptop;
# - keep tool results short (chapter 06's truncation), and decide yourself what leaves the history
#   before the server decides for you: keep the system prompt, the user's question and the latest
#   steps, and shorten or drop the middle;
# - estimate your prompt's size before sending it (about 4 characters per token for English;
#   `prompt_tokens` above is the fake's rule) and act before it reaches the window.
#
# An agent fills 4096 tokens in two or three steps: a couple of knowledge-base searches are
# enough, and the next step may no longer see the question it is working on. The capstone
# (chapter 11) runs its "small local" model with a 16k window for that reason.

# %% [markdown]
# ## Part 6 · One loop for every provider
#
# Put Parts 2–5 together and the loop from chapter 03 needs only a few changes to run anywhere:
#
# - an optional **system prompt**, as the first message;
# - the assistant turn written as plain data **with `reasoning_content`** when there is one;
# - the provider's **options** passed through to every request (`request_options(...)`);
# - arguments treated as what they are on every OpenAI-compatible API: a JSON **string**.
#   `json.loads` it, and check that you got an object (a dict): a model can send `[]` or `"A-1001"`.
#   (Ollama's *native* API and Anthropic's send an object instead; through `/v1`, Ollama sends a
#   string like everyone else.)

# %% [markdown]
# ## Exercise 3 — `run_agent` for any provider (4 points)
#
# Write `run_agent(client, model, question, tools, impl, system=None, max_steps=8, **options)`:
#
# - `messages` starts with `{"role": "system", "content": system}` when `system` is given, then the
#   user's `question`;
# - each step calls `client.chat.completions.create(model=model, messages=messages, tools=tools,
#   **options)`;
# - append the assistant turn as a plain dict, exactly as in Exercise 1 (keep `reasoning_content`);
# - for each tool call, in order: parse `function.arguments` with `json.loads`. Not valid JSON →
#   the result is `{"error": "..."}` saying the arguments are not valid JSON; valid JSON but not an
#   object → `{"error": "..."}` saying the arguments must be a JSON object; otherwise
#   `call_tool(impl, name, args)`. Append `{"role": "tool", "tool_call_id": call.id, "content":
#   json.dumps(result, ensure_ascii=False, default=str)}`;
# - no tool calls: `finish_reason == "stop"` → `AgentResult(content, "done", step)`; any other
#   reason → `AgentResult(None, f"STOPPED: {finish_reason}", step)`;
# - after `max_steps` model calls: `AgentResult(None, "STOPPED: step limit", max_steps)`.
#
# Write the assistant turn inside the loop (you may copy your Exercise 1 code): each exercise is
# graded on its own.

# %% nbgrader={"grade": false, "grade_id": "run_agent", "locked": false, "schema_version": 3, "solution": true}
def run_agent(client, model, question, tools, impl, system=None, max_steps=8, **options):
    """The chapter 03 loop, provider-neutral: system prompt, reasoning kept, options passed through."""
    ### BEGIN SOLUTION
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": question})
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools, **options)
        choice = response.choices[0]
        message = choice.message
        turn = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            turn["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.function.name, "arguments": c.function.arguments}}
                                  for c in message.tool_calls]
        if getattr(message, "reasoning_content", None):
            turn["reasoning_content"] = message.reasoning_content
        messages.append(turn)
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
                if isinstance(args, dict):
                    result = call_tool(impl, call.function.name, args)
                else:
                    result = {"error": f"arguments must be a JSON object with named fields, got {args!r:.60}"}
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent answers the two-month taxi question on the DeepSeek fake (thinking
mode) in three model calls, starting with the question when there is no system prompt, and with
the system prompt first and the options in every request when there are; arguments that are not
JSON, or JSON but not an object, give an error observation that says so; a reply cut off by the
token limit and the step limit end with their stop statuses."""

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.deepseek_thinking()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
shop = wb.shop.Shop("C-001")
with wb.checks.no_raise("run_agent on the DeepSeek fake", hint="a 400 about reasoning_content: keep it in the "
                        "assistant turn"):
    result = run_agent(llm.client(max_retries=0), "deepseek-flash", scenario.question,
                       scenario.openai_tools(), shop.tools(), max_steps=5)
assert wb.checks.kind(result) == "AgentResult", (
    f"run_agent must return an AgentResult, got {type(result).__name__}: {result!r}")
assert shop.log, ("the tool never ran: function.arguments is a JSON string; json.loads it before "
                  f"calling the tool. Got {result!r}")
assert (result.answer, result.status, result.steps) == (scenario.answer, "done", 3), (
    f"expected AgentResult({scenario.answer!r}, 'done', 3), got {result!r}")
assert llm.requests[0]["messages"] == [{"role": "user", "content": scenario.question}], (
    f"without a system prompt the conversation starts with the question; sent {llm.requests[0]['messages'][:1]!r}")

S = wb.scenarios
array = S.scripted(S.calls(S.Call("get_order", '["A-1001"]')), "Sorry, I could not look it up.", tools=("get_order",))
llm = wb.fake_llm.FakeLLM(array)
with wb.checks.no_raise("run_agent with a system prompt, options and array arguments",
                        hint="arguments that are not a JSON object are an error observation, never a crash"):
    result = run_agent(llm.client(max_calls=3), "fake-model", "Where is my order A-1001?", array.openai_tools(),
                       wb.shop.Shop("C-001").tools(), system="You are Northwind support.", temperature=0.2)
first = llm.requests[0]
assert first["messages"][0] == {"role": "system", "content": "You are Northwind support."}, (
    f"the system prompt comes first, before the question; the first message was {first['messages'][0]!r}")
assert all(r.get("temperature") == 0.2 for r in llm.requests), (
    "pass **options on to every chat.completions.create call (temperature=0.2 was given)")
sent = [m for m in llm.requests[-1]["messages"] if m.get("role") == "tool"]
assert sent and "object" in str(sent[0].get("content")).lower(), (
    "arguments that are valid JSON but not an object (here a list) give an error observation saying they must "
    f"be a JSON object; the model got {sent!r}")


def run_simply(scenario, impl, **kwargs):
    """run_agent on the scenario's own question, at most 4 model calls."""
    fake = wb.fake_llm.FakeLLM(scenario)
    with wb.checks.no_raise(f"run_agent on {scenario.name}", hint="every failure is an observation or a stop status"):
        got = run_agent(fake.client(max_calls=4), "fake-model", scenario.question, scenario.openai_tools(), impl,
                        **kwargs)
    return fake, got


broken = S.broken_json_then_fix()
llm, result = run_simply(broken, wb.shop.Shop("C-001").tools())
assert (result.answer, result.status) == (broken.answer, "done"), (
    f"arguments that are not valid JSON give an error observation and the model fixes its call; got {result!r}")
cut = S.scripted(S.final("Your taxi spend", finish_reason="length"), tools=("txn_sum",), question="Taxi?")
llm, result = run_simply(cut, {})
assert (result.answer, result.status, result.steps) == (None, "STOPPED: length", 1), (
    f"finish_reason 'length' is not an answer: AgentResult(None, 'STOPPED: length', 1); got {result!r}")
llm, result = run_simply(S.never_finishes(), {"search_kb": lambda query: {"hits": []}}, max_steps=2)
assert (result.answer, result.status, result.steps, llm.calls) == (None, "STOPPED: step limit", 2, 2), (
    f"after max_steps=2 model calls: AgentResult(None, 'STOPPED: step limit', 2); got {result!r} after {llm.calls}")
print("run_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_agent works over real HTTP on the DeepSeek dialect, sends the system prompt
first and the options with every request, keeps reasoning_content, parses string arguments, turns
broken or non-object arguments into observations, answers parallel calls, stops at max_steps and
reports a non-"stop" finish_reason."""
### BEGIN HIDDEN TESTS
import json
import types

import openai

from workbook.checks import fresh

wb = fresh()


def run(client, scenario, impl, cap=12, **kwargs):
    with wb.checks.no_raise("run_agent", hint="a 400 about reasoning_content: keep it in the assistant turn"):
        capped = wb.checks.CappedClient(client, cap, "does the loop stop at max_steps?")  # any face, HTTP too
        r = run_agent(capped, "m-1", scenario.question, scenario.openai_tools(), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return r


# Real HTTP, DeepSeek dialect, a system prompt and options.
scenario = wb.scenarios.deepseek_thinking()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
shop = wb.shop.Shop("C-001")
with llm.serve() as base_url:
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    r = run(client, scenario, shop.tools(), system="You are Northwind support.",
            extra_body={"thinking": {"type": "enabled"}}, temperature=0)
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 3), f"expected the answer in 3 steps; got {r!r}"
assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"}),
                    ("txn_sum", {"category": "taxi", "month": "2026-08"})], (
    f"run each tool with its parsed arguments; the shop saw {shop.log}")
first, last = llm.requests[0], llm.requests[-1]
assert first["messages"][:2] == [{"role": "system", "content": "You are Northwind support."},
                                 {"role": "user", "content": scenario.question}], (
    f"start with the system prompt, then the question; sent {first['messages'][:2]!r}")
for body in llm.requests:
    assert body.get("model") == "m-1" and body.get("tools") == scenario.openai_tools(), "send model and tools every time"
    assert body.get("thinking") == {"type": "enabled"} and body.get("temperature") == 0, (
        "pass **options through to every create call")
turns = [m for m in last["messages"] if m.get("role") == "assistant"]
assert len(turns) == 2 and all(m.get("reasoning_content") for m in turns), (
    "every earlier assistant turn goes back with its reasoning_content")
assert all(type(m) is dict for m in last["messages"]), "messages must be plain dicts"
assert [m.get("role") for m in last["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool"], "the last request: system, user, then each assistant turn followed by its tool message"
wb.checks.is_type(json.loads(last["messages"][3]["content"]), dict, "the first tool result, parsed")

# No system prompt: the conversation starts with the question. Parallel calls on DeepSeek.
scenario = wb.scenarios.two_orders()
llm = wb.fake_llm.FakeLLM(scenario, dialect="deepseek")
r = run(llm.client(max_retries=0), scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), f"answer every parallel call; got {r!r}"
assert llm.requests[0]["messages"] == [{"role": "user", "content": scenario.question}], (
    "without a system prompt the first request holds only the question")

# Ollama dialect: the system prompt goes first and the model follows it.
scenario = wb.scenarios.long_chat_small_context()
llm = wb.fake_llm.FakeLLM(scenario, dialect="ollama")
r = run(llm.client(max_retries=0), scenario, {}, system=scenario.system)
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 1), f"expected the signed answer; got {r!r}"

# Broken JSON, and JSON that is not an object: error observations, then recovery.
scenario = wb.scenarios.broken_json_then_fix()
r = run(wb.fake_llm.FakeLLM(scenario).client(), scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 3), f"broken JSON is an observation; got {r!r}"

S = wb.scenarios


def array_args(conv):
    if not conv.results:
        return S.Reply(calls=(S.Call("get_order", '["A-1001"]'),))
    if len(conv.results) == 1:
        error = conv.last_error() or ""
        return S.call("get_order", order_id="A-1001") if "object" in error.lower() else S.final("gave up")
    return S.final(f"done: {conv.last_result}")


scenario = S.Scenario("array_args", "Sends a JSON array as arguments.", array_args, ("get_order",), None,
                      "Where is my order A-1001?")
llm = wb.fake_llm.FakeLLM(scenario)
r = run(llm.client(), scenario, wb.shop.Shop("C-001").tools())
assert r.status == "done" and r.steps == 3 and "shipped" in (r.answer or ""), (
    f"arguments that are not a JSON object must give an error saying so; got {r!r}")

# The step limit and a cut-off reply.
for max_steps in (2, 8):
    scenario = S.never_finishes()
    llm = wb.fake_llm.FakeLLM(scenario)
    kwargs = {} if max_steps == 8 else {"max_steps": max_steps}
    r = run(llm.client(), scenario, {"search_kb": lambda query: {"hits": []}}, cap=max_steps + 3, **kwargs)
    assert (r.answer, r.status, r.steps, llm.calls) == (None, "STOPPED: step limit", max_steps, max_steps), (
        f"with max_steps={max_steps}: AgentResult(None, 'STOPPED: step limit', {max_steps}) after "
        f"{max_steps} calls; got {r!r} after {llm.calls} calls")
cut = S.scripted(S.final("Your taxi spend", finish_reason="length"), tools=("txn_sum",), question="Taxi?")
r = run(wb.fake_llm.FakeLLM(cut, dialect="deepseek").client(), cut, {})
assert (r.answer, r.status, r.steps) == (None, "STOPPED: length", 1), f"'length' is not an answer; got {r!r}"
### END HIDDEN TESTS

# %% [markdown]
# ### Your loop on three dialects
#
# The same function, unchanged, against the fake's three dialects — the DeepSeek one over real
# HTTP, as a live provider would be reached.

# %%
import openai

shop = Shop("C-001")
runs = [("openai", scenarios.two_orders(), None),
        ("deepseek", scenarios.deepseek_thinking(), None),
        ("ollama", scenarios.long_chat_small_context(), scenarios.long_chat_small_context().system)]
for dialect, scenario, system in runs:
    llm = FakeLLM(scenario, dialect=dialect)
    with llm.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="sk-not-a-real-key")
        result = run_agent(client, "fake-model", scenario.question, scenario.openai_tools(), shop.tools(),
                           system=system, max_steps=5, **request_options(dialect))
    print(f"{dialect:9} {result.status:6} steps={result.steps}  {result.answer}")

# %% [markdown]
# ## Part 7 · Anthropic Messages, side by side
#
# Anthropic's Messages API has the same loop with different names, and a few real differences in
# where things go. You met its tool definitions in chapter 03; here is the rest.
#
# | | Anthropic Messages | Chat Completions (OpenAI, DeepSeek, Ollama) |
# |---|---|---|
# | system prompt | the `system=` parameter, not a message | first message, role `system` |
# | "run my tools" | `stop_reason == "tool_use"` | `finish_reason == "tool_calls"` |
# | a tool call | a content block `{"type": "tool_use", "id": "toolu_…", "name", "input"}` | `tool_calls[i]`: `{"id": "call_…", "type": "function", "function": {"name", "arguments"}}` |
# | arguments | `input`: an **object** | `arguments`: a JSON **string** |
# | text before the call | a `text` block in the same `content` list | `content` beside `tool_calls` |
# | a tool result | a block `{"type": "tool_result", "tool_use_id", "content"}` in the next **user** message | a message `{"role": "tool", "tool_call_id", "content"}` |
# | several results | all blocks in **one** user message | one `tool` message per call |
# | results and text together | `tool_result` blocks **first** in the user message, text after them (else 400: "Did not find 1 `tool_result` block(s) at the beginning of this message…") | the `tool` messages right after the assistant turn, then a `user` message |
# | a failed tool | `"is_error": true` on the result block | no flag: the content says it, `{"error": "…"}` |
# | normal end | `stop_reason == "end_turn"` | `finish_reason == "stop"` |
# | cut off | `"max_tokens"` | `"length"` |
# | refused | `"refusal"` | `"content_filter"` |
# | a stop sequence | `"stop_sequence"` | `"stop"` |
# | a result missing | 400: "`tool_use` ids were found without `tool_result` blocks immediately after…" | 400: "An assistant message with 'tool_calls' must be followed by tool messages…" |
#
# The same failed look-up, in both formats. In Anthropic's, the error is a flag the model reads:

# %%
ANTHROPIC_SYSTEM = "You are Northwind support."
ANTHROPIC_MESSAGES = [
    {"role": "user", "content": "How much did I spend on taxis in September 2026?"},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Let me look that up."},
        {"type": "tool_use", "id": "toolu_01", "name": "txn_sum",
         "input": {"category": "taxi", "month": "September 2026"}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True,
         "content": "ValueError: 'month' must look like YYYY-MM, e.g. 2026-09; got 'September 2026'"}]},
]
for m in ANTHROPIC_MESSAGES:
    print(m)

# %% [markdown]
# In Chat Completions the same three turns are a user message, an assistant message with
# `content` and `tool_calls`, and a `tool` message whose content is the error observation of
# chapter 05, `{"error": "ValueError: 'month' must look like YYYY-MM…"}` — there is no flag, so the
# content carries it. The two map one-to-one: `is_error: true` with a text is `{"error": text}`.

# %% [markdown]
# ## Exercise 4 — `anthropic_to_openai` (4 points)
#
# Write `anthropic_to_openai(system, messages)`: it converts an Anthropic Messages transcript
# (`system` is a string or `None`; `messages` as above) into a **new list** of Chat Completions
# messages that a provider accepts:
#
# 1. A non-empty `system` becomes the first message, `{"role": "system", "content": system}`.
# 2. A message whose `content` is a string is copied as `{"role": ..., "content": ...}`.
# 3. An **assistant** message with blocks becomes one message: `content` is its `text` blocks'
#    texts joined with `"\n"` (`None` if it has none), and, if it has `tool_use` blocks,
#    `"tool_calls"`: one `{"id": block id, "type": "function", "function": {"name": ...,
#    "arguments": json.dumps(input)}}` per block, in order.
# 4. A **user** message with blocks becomes, in order: one `tool` message per `tool_result` block,
#    `{"role": "tool", "tool_call_id": tool_use_id, "content": text}`, then — if it also has
#    `text` blocks — one user message with their texts joined with `"\n"`. A result's `content`
#    is a string or a list of `text` blocks (join their texts with `"\n"`). When the block has
#    `"is_error": true`, the content is the error observation `json.dumps({"error": text})` —
#    unless `text` already is one (a JSON object with an `"error"` key, as your
#    `run_messages_agent` below sends): then it is kept as it is, never wrapped twice.
# 5. Other block types (for example `thinking`) are left out. Do not change the input.

# %% nbgrader={"grade": false, "grade_id": "anthropic_to_openai", "locked": false, "schema_version": 3, "solution": true}
def anthropic_to_openai(system, messages):
    """An Anthropic Messages transcript -> Chat Completions messages."""
    ### BEGIN SOLUTION
    def texts(blocks):
        return [b["text"] for b in blocks if b.get("type") == "text"]

    def is_error_observation(text):
        try:
            data = json.loads(text)
        except ValueError:
            return False
        return isinstance(data, dict) and "error" in data

    out = [{"role": "system", "content": system}] if system else []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            out.append({"role": m["role"], "content": content})
        elif m["role"] == "assistant":
            turn = {"role": "assistant", "content": "\n".join(texts(content)) or None}
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b["input"], ensure_ascii=False)}}
                     for b in content if b.get("type") == "tool_use"]
            if calls:
                turn["tool_calls"] = calls
            out.append(turn)
        else:
            for b in content:
                if b.get("type") == "tool_result":
                    body = b.get("content", "")
                    text = body if isinstance(body, str) else "\n".join(texts(body))
                    if b.get("is_error") and not is_error_observation(text):
                        text = json.dumps({"error": text}, ensure_ascii=False)
                    out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": text})
            if texts(content):
                out.append({"role": "user", "content": "\n".join(texts(content))})
    return out
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "anthropic_to_openai_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: anthropic_to_openai converts a successful taxi look-up into system, user,
assistant (with tool_calls) and tool messages that the fake provider accepts and answers; a
tool_result with is_error becomes the error observation {"error": text}, one that already is one is
kept (not wrapped twice); a user message with results and text gives the tool messages first, then
the user's text; an assistant turn's text blocks are joined and its thinking block left out, a
result given as text blocks is joined."""
from workbook.checks import fresh

wb = fresh()
transcript = [
    {"role": "user", "content": "How much did I spend on taxis in September?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "txn_sum",
                                       "input": {"category": "taxi", "month": "2026-09"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                  "content": '{"category": "taxi", "month": "2026-09", "count": 2, "total_kzt": 5000}'}]},
]
got = anthropic_to_openai("You are Northwind support.", transcript)
assert type(got) is list, f"return a list of messages, got {type(got).__name__}"
roles = [m.get("role") for m in got if type(m) is dict]
assert roles == ["system", "user", "assistant", "tool"], f"expected roles system, user, assistant, tool; got {roles}"
scenario = wb.scenarios.taxi_spending()
llm = wb.fake_llm.FakeLLM(scenario)
try:
    reply = llm.client(max_retries=0).chat.completions.create(model="m", messages=got, tools=scenario.openai_tools())
except Exception as e:
    raise AssertionError(f"the provider refused the converted transcript: {e}") from None
assert reply.choices[0].message.content == scenario.answer, (
    f"the model should read the result and answer {scenario.answer!r}; got {reply.choices[0].message.content!r}")
failed = [transcript[0], {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01", "name": "txn_sum", "input": {"category": "taxi", "month": "September"}},
    {"type": "tool_use", "id": "toolu_02", "name": "refund", "input": {"order_id": "A-1001"}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True, "content": "month must look like YYYY-MM"},
        {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": True,
         "content": '{"error": "unknown tool \'refund\'"}'},
        {"type": "text", "text": "Also, is my card blocked?"}]}]
got = anthropic_to_openai(None, failed)
wb.checks.equal([(m.get("role"), m.get("tool_call_id")) for m in got[2:]],
                [("tool", "toolu_01"), ("tool", "toolu_02"), ("user", None)],
                "the messages from a user turn with two failed results and a text",
                "one tool message per tool_result first, in order, then the user's text")
error = wb.checks.error_text(got[2]["content"], "the content of the failed result toolu_01")
assert error == "month must look like YYYY-MM", (
    f'is_error: true becomes json.dumps({{"error": text}}) with the result\'s text; the error says {error!r}')
error = wb.checks.error_text(got[3]["content"], "the content of the failed result toolu_02")
assert error == "unknown tool 'refund'", (
    f'a result that already is {{"error": ...}} is kept as it is, not wrapped twice; the error says {error!r}')
wb.checks.equal(got[4], {"role": "user", "content": "Also, is my card blocked?"}, "the user's text after the results")

blocks = [{"role": "assistant", "content": [
    {"type": "thinking", "thinking": "One look-up.", "signature": "abc"}, {"type": "text", "text": "Checking."},
    {"type": "text", "text": "One moment."},
    {"type": "tool_use", "id": "toolu_03", "name": "get_order", "input": {"order_id": "A-1001"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_03", "content": [
        {"type": "text", "text": '{"order_id": "A-1001",'}, {"type": "text", "text": ' "status": "shipped"}'}]}]}]
got = anthropic_to_openai(None, blocks)
wb.checks.equal([{k: v for k, v in m.items() if k != "tool_calls"} if type(m) is dict else m for m in got],
                [{"role": "assistant", "content": "Checking.\nOne moment."},
                 {"role": "tool", "tool_call_id": "toolu_03", "content": '{"order_id": "A-1001",\n "status": "shipped"}'}],
                "the messages of a turn with thinking and two text blocks, and a result given as text blocks",
                "text blocks joined with '\\n', thinking left out, a result's text blocks joined with '\\n'")
print("anthropic_to_openai: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "anthropic_to_openai_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: anthropic_to_openai gives exactly the Chat Completions messages for text and
tool_use blocks, several results in one user message, is_error, result content as blocks, mixed
result and text, skipped thinking blocks and a missing system prompt; arguments are JSON strings;
the model recovers from a converted error."""
### BEGIN HIDDEN TESTS
import json

from workbook.checks import fresh

wb = fresh()


def convert(system, messages):
    with wb.checks.no_raise("anthropic_to_openai", hint='a block may lack a key (a result without is_error, content as a list of blocks): use .get'):
        got = anthropic_to_openai(system, messages)
    assert type(got) is list, f"return a list, got {type(got).__name__}"
    return got


orders = [
    {"role": "user", "content": "Where are my orders A-1001 and A-1002?"},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Two look-ups.", "signature": "abc"},
        {"type": "text", "text": "Checking both orders."},
        {"type": "text", "text": "One moment."},
        {"type": "tool_use", "id": "toolu_a", "name": "get_order", "input": {"order_id": "A-1001"}},
        {"type": "tool_use", "id": "toolu_b", "name": "get_order", "input": {"order_id": "A-1002"}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a",
         "content": [{"type": "text", "text": '{"order_id": "A-1001", "item": "Svet desk lamp",'},
                     {"type": "text", "text": ' "status": "shipped"}'}]},
        {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": False,
         "content": '{"order_id": "A-1002", "item": "Green tea, 200 g", "status": "processing"}'},
        {"type": "text", "text": "Also, is the lamp dimmable?"}]},
    {"role": "assistant", "content": "Both found."},
]
want = [
    {"role": "user", "content": "Where are my orders A-1001 and A-1002?"},
    {"role": "assistant", "content": "Checking both orders.\nOne moment.", "tool_calls": [
        {"id": "toolu_a", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "A-1001"}'}},
        {"id": "toolu_b", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "A-1002"}'}}]},
    {"role": "tool", "tool_call_id": "toolu_a",
     "content": '{"order_id": "A-1001", "item": "Svet desk lamp",\n "status": "shipped"}'},
    {"role": "tool", "tool_call_id": "toolu_b",
     "content": '{"order_id": "A-1002", "item": "Green tea, 200 g", "status": "processing"}'},
    {"role": "user", "content": "Also, is the lamp dimmable?"},
    {"role": "assistant", "content": "Both found."},
]
got = convert(None, orders)
assert all(type(m) is dict for m in got), "every message must be a dict"
for m in got:
    for c in m.get("tool_calls") or []:
        args = c.get("function", {}).get("arguments") if type(c) is dict else None
        assert type(args) is str, (
            f"Anthropic's input is an object; Chat Completions arguments must be a JSON string (json.dumps); got {args!r}")
wb.checks.equal([m.get("role") for m in got], [m["role"] for m in want], "the roles, in order",
                "no system message without a system prompt; one tool message per tool_result, then the user's text")
for i, (g, w) in enumerate(zip(got, want)):
    if "tool_calls" in w:
        g = {**g, "tool_calls": [{**c, "function": {**c["function"], "arguments": json.dumps(json.loads(c["function"]["arguments"]))}}
                                 for c in g.get("tool_calls") or []]}
    wb.checks.equal(g, w, f"message {i}")

# A tool_use with no text: content None. is_error: the error observation {"error": text}.
got = convert("You are Northwind support.", [
    {"role": "user", "content": "How much did I spend on taxis in September 2026?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "txn_sum",
                                       "input": {"category": "taxi", "month": "September 2026"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True,
                                  "content": "ValueError: 'month' must look like YYYY-MM"}]}])
wb.checks.equal(got[0], {"role": "system", "content": "You are Northwind support."}, "the first message")
assert got[2].get("content") is None, f"an assistant turn without text has content None; got {got[2].get('content')!r}"
wb.checks.equal({k: v for k, v in got[3].items() if k != "content"}, {"role": "tool", "tool_call_id": "toolu_01"},
                "a failed result's tool message")
wb.checks.error_text(got[3].get("content"), "a failed result's content")
wb.checks.equal(json.loads(got[3]["content"]), {"error": "ValueError: 'month' must look like YYYY-MM"},
                "a failed result's content, parsed", 'is_error becomes json.dumps({"error": text}): Chat Completions has no flag')
# A failed result whose text is JSON but no error observation is wrapped; a failed result given as
# text blocks is joined, then wrapped.
other = convert(None, [
    {"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "get_order",
                                       "input": {"order_id": "A-1001"}} for i in (1, 2)]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": '{"status": "timeout"}'},
        {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True,
         "content": [{"type": "text", "text": "Zeitüberschreitung:"}, {"type": "text", "text": "try again"}]}]}])
wb.checks.equal(wb.checks.error_text(other[1].get("content"), "a failed result holding other JSON"),
                '{"status": "timeout"}', "the error of a failed result holding other JSON",
                'only an {"error": ...} object is kept; any other failed text becomes {"error": text}')
wb.checks.equal(wb.checks.error_text(other[2].get("content"), "a failed result given as text blocks"),
                "Zeitüberschreitung:\ntry again", "the error of a failed result given as text blocks",
                'the texts joined with "\\n", then {"error": text}')
scenario = wb.scenarios.vague_vs_specific_error()
reply = wb.fake_llm.FakeLLM(scenario).client(max_retries=0).chat.completions.create(
    model="m", messages=got, tools=scenario.openai_tools()).choices[0].message
assert reply.tool_calls and json.loads(reply.tool_calls[0].function.arguments).get("month") == "2026-09", (
    "after the converted error the model should retry with month 2026-09; it did not read the result as an error")

# Plain string content passes through, for both roles; an empty system prompt adds nothing.
got = convert("", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}])
wb.checks.equal(got, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}],
                "a plain-text chat")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the transcript it handed anthropic_to_openai, so only it can
# see whether that changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(anthropic_to_openai, "Be brief.", [
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "get_order", "input": {"order_id": "A-1"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "is_error": True,
                                  "content": [{"type": "text", "text": "no such order"}]}]}]))

# %% [markdown]
# The failed look-up from Part 7, converted and sent to a provider that speaks Chat Completions.
# The model reads the error observation and fixes its call:

# %%
converted = anthropic_to_openai(ANTHROPIC_SYSTEM, ANTHROPIC_MESSAGES)
for m in converted:
    print(m)
scenario = scenarios.vague_vs_specific_error()
reply = FakeLLM(scenario).client().chat.completions.create(model="fake-model", messages=converted,
                                                            tools=scenario.openai_tools())
print("next call:", reply.choices[0].message.tool_calls[0].function)

# %% [markdown]
# The other direction works the same way, reversed: `json.loads` the arguments into `input`,
# gather consecutive `tool` messages into one user message of `tool_result` blocks, and turn a
# `{"error": text}` content back into `is_error: true` with `text`. The stop reasons map as in the
# table above.

# %% [markdown]
# ## Part 8 · The loop on the Messages API
#
# Converting transcripts is one way to work with Claude. The other is to write the loop against the
# Messages API itself, with the `anthropic` package. The fake speaks that API too:
# `llm.anthropic_client()` returns a real `anthropic.Anthropic` whose requests go to the same
# scenario, and `llm.serve()` answers `POST /v1/messages` over real HTTP. It enforces Anthropic's
# rules with Anthropic's own 400 texts.
#
# Here is the same first step — the two-orders question — sent through three APIs, measured on the
# fake: what the request carries, how the reply says "run my tools", what one tool call looks
# like, and what usage comes back.

# %%
from workbook.fake_llm import anthropic_tools

scenario = scenarios.two_orders()
question = [{"role": "user", "content": scenario.question}]
chat_llm, deepseek_llm, claude_llm = FakeLLM(scenario), FakeLLM(scenario, dialect="deepseek"), FakeLLM(scenario)
chat = chat_llm.client().chat.completions.create(model="fake-model", messages=question,
                                                  tools=scenario.openai_tools())
deepseek = deepseek_llm.client().chat.completions.create(model="fake-model", messages=question,
                                                          tools=scenario.openai_tools())
claude = claude_llm.anthropic_client().messages.create(
    model="fake-model", max_tokens=1024, system="You are Northwind support.", messages=question,
    tools=anthropic_tools(scenario.openai_tools()))
measured = [
    ("Chat Completions (openai)", chat_llm.requests[0], f"finish_reason={chat.choices[0].finish_reason!r}",
     chat.choices[0].message.tool_calls[0].model_dump(), chat.usage.model_dump(exclude_none=True)),
    ("Chat Completions (deepseek)", deepseek_llm.requests[0],
     f"finish_reason={deepseek.choices[0].finish_reason!r} + reasoning_content",
     deepseek.choices[0].message.tool_calls[0].model_dump(), deepseek.usage.model_dump(exclude_none=True)),
    ("Messages (anthropic)", claude_llm.requests[0], f"stop_reason={claude.stop_reason!r}",
     claude.content[0].model_dump(exclude_none=True), claude.usage.model_dump(exclude_none=True)),
]
for api, request, stop, call, usage in measured:
    print(api)
    print("  request keys:", sorted(request))
    print("  reply says:  ", stop)
    print("  a tool call: ", call)
    print("  usage:       ", usage)

# %% [markdown]
# Read the rows against the table of Part 7: the Messages request carries `max_tokens` (required:
# the SDK refuses the call without it) and `system` beside `messages`; the tool call is a
# `tool_use` block whose `input` is already an object; usage says `input_tokens` and
# `output_tokens`. The loop itself is the one you know, with four differences that each have a
# rule behind them:
#
# 1. **`system=` apart.** A message with role `system` gets 400 'messages: Unexpected role
#    "system". The Messages API accepts a top-level `system` parameter, not "system" as an input
#    message role.'
# 2. **The whole `content` goes back.** The assistant turn is the reply's whole `content` list —
#    its `text` blocks (the model's reasons) and every `tool_use` block. Drop a `tool_use` block and
#    its result gets 400 "unexpected `tool_use_id` found in `tool_result` blocks"; drop the text
#    and the model loses what it said it would do.
# 3. **One user message answers every `tool_use`,** its `tool_result` blocks first. A result per
#    message gets 400 "`tool_use` ids were found without `tool_result` blocks immediately after";
#    text before the results gets 400 "Did not find 1 `tool_result` block(s) at the beginning of
#    this message". A failed tool gets `"is_error": true` on its block: the flag is how the model
#    knows it is an error, whatever the words say.
# 4. **Stop on `stop_reason`.** `"tool_use"`: run the tools and go on. `"end_turn"`: the answer is
#    the text. Anything else (`"max_tokens"`, `"stop_sequence"`, `"refusal"`) is not an answer: a
#    reply cut off at `max_tokens` may hold half a sentence, or half a tool call.

# %% [markdown]
# ## Exercise 5 — `run_messages_agent` (4 points)
#
# Write `run_messages_agent(client, model, question, tools, impl, system=None, max_steps=8,
# max_tokens=1024)`, the loop on an `anthropic.Anthropic` client (`tools` are in Anthropic's shape,
# `{"name", "description", "input_schema"}`):
#
# - `messages` starts with the user's `question`; a given `system` goes to every call as
#   `system=system` (no `system` argument when it is `None`), never as a message;
# - each step calls `client.messages.create(model=model, max_tokens=max_tokens,
#   messages=messages, tools=tools)` (plus `system=`);
# - append the assistant turn `{"role": "assistant", "content": ...}` with the reply's **whole**
#   `content`, every block in order (the SDK's blocks, or plain dicts from
#   `block.model_dump(exclude_none=True)`);
# - `stop_reason == "tool_use"`: for each `tool_use` block, in order, `result = call_tool(impl,
#   block.name, block.input)` and a block `{"type": "tool_result", "tool_use_id": block.id,
#   "content": json.dumps(result, ensure_ascii=False, default=str)}`, with `"is_error": True` when
#   the result is a dict with an `"error"` key; then **one** user message whose `content` is those
#   blocks;
# - `stop_reason == "end_turn"` → `AgentResult(text, "done", step)`, `text` the reply's `text`
#   blocks joined with `"\n"`; any other stop reason → `AgentResult(None, f"STOPPED:
#   {stop_reason}", step)`;
# - after `max_steps` model calls: `AgentResult(None, "STOPPED: step limit", max_steps)`.

# %% nbgrader={"grade": false, "grade_id": "run_messages_agent", "locked": false, "schema_version": 3, "solution": true}
def run_messages_agent(client, model, question, tools, impl, system=None, max_steps=8, max_tokens=1024):
    """The loop on Anthropic's Messages API: system apart, whole content kept, results in one message."""
    ### BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    extra = {"system": system} if system else {}
    for step in range(1, max_steps + 1):
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages,
                                       tools=tools, **extra)
        messages.append({"role": "assistant",
                         "content": [block.model_dump(exclude_none=True) for block in reply.content]})
        if reply.stop_reason == "end_turn":
            text = "\n".join(block.text for block in reply.content if block.type == "text")
            return AgentResult(text, "done", step)
        if reply.stop_reason != "tool_use":
            return AgentResult(None, f"STOPPED: {reply.stop_reason}", step)
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            result = call_tool(impl, block.name, block.input)
            item = {"type": "tool_result", "tool_use_id": block.id,
                    "content": json.dumps(result, ensure_ascii=False, default=str)}
            if isinstance(result, dict) and "error" in result:
                item["is_error"] = True
            results.append(item)
        messages.append({"role": "user", "content": results})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_messages_agent_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_messages_agent answers two parallel look-ups through the real anthropic SDK
with system= apart and both results in one user message (and no system= without a prompt); keeps
the text the model wrote before a call; marks a failed tool with is_error; reports max_tokens and
the step limit as stop statuses."""

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios


def run_claude(scenario, impl, **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario)
    with wb.checks.no_raise("run_messages_agent on the fake Messages API",
                            hint="a 400 names the rule: system apart, the whole content, one user message of results"):
        r = run_messages_agent(llm.anthropic_client(max_calls=6, max_retries=0), "claude-fake", scenario.question,
                               wb.fake_llm.anthropic_tools(scenario.openai_tools()), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_messages_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return r, llm


scenario = S.two_orders()
r, llm = run_claude(scenario, wb.shop.Shop("C-001").tools(), system="You are Northwind support.")
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), f"expected the answer in 2 calls; got {r!r}"
assert llm.requests[0].get("system") == "You are Northwind support.", "pass the system prompt as system=..."
assert llm.requests[0].get("max_tokens") == 1024, "send max_tokens=max_tokens (1024 by default)"
sent = llm.requests[1]["messages"]
assert [m["role"] for m in sent] == ["user", "assistant", "user"], (
    f"both tool results go in ONE user message after the assistant turn; the roles were {[m['role'] for m in sent]}")

scenario = S.refund_then_check()
shop = wb.shop.Shop("C-001")
impl = {**shop.tools(), "refund": lambda order_id, amount: {"order_id": order_id, "refunded": amount}}
r, llm = run_claude(scenario, impl)
assert (r.answer, r.status) == (scenario.answer, "done"), (
    f"stop only when stop_reason is 'end_turn' (this model writes text before each call); got {r!r}")
kinds = [b.get("type") for b in llm.requests[1]["messages"][1]["content"]]
assert kinds == ["text", "tool_use"], (
    f"append the reply's whole content, text blocks too; the assistant turn sent back had blocks {kinds}")
assert "system" not in llm.requests[0], (
    f"without a system prompt send no system= at all; the request had system={llm.requests[0].get('system')!r}")


def lookup(order_id):
    raise KeyError(f"no order {order_id}")


scenario = S.missing_order()
r, llm = run_claude(scenario, {"get_order": lookup})
block = llm.requests[1]["messages"][2]["content"][0]
assert block.get("is_error") is True, f"a failed tool's tool_result carries is_error: True; sent {block!r}"
assert (r.answer, r.status) == (scenario.answer, "done"), f"expected the honest answer; got {r!r}"

cut = S.scripted(S.final("Your taxi spend is", finish_reason="length"), tools=("txn_sum",), question="Taxi?")
r, llm = run_claude(cut, {})
assert (r.answer, r.status, r.steps) == (None, "STOPPED: max_tokens", 1), (
    f"a reply cut off at max_tokens is not an answer: AgentResult(None, 'STOPPED: max_tokens', 1); got {r!r}")
r, llm = run_claude(S.never_finishes(), {"search_kb": lambda query: {"hits": []}}, max_steps=2)
assert (r.answer, r.status, r.steps, llm.calls) == (None, "STOPPED: step limit", 2, 2), (
    f"after max_steps=2 model calls: AgentResult(None, 'STOPPED: step limit', 2); got {r!r} after {llm.calls} calls")
print("run_messages_agent: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_messages_agent_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: run_messages_agent over real HTTP with the anthropic SDK; the exact requests (no
system message, no system= without a prompt, tools and max_tokens every time, the whole content
back); results in order; an unknown tool and a vague error as is_error; a stop sequence and the
step limit as stop statuses; text before a call kept in the turn sent back."""
### BEGIN HIDDEN TESTS
import json
from types import SimpleNamespace

import anthropic

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios


def run_on(client, scenario, impl, **kwargs):
    with wb.checks.no_raise("run_messages_agent", hint="a 400 names the Messages API rule that was broken"):
        r = run_messages_agent(client, "claude-fake", scenario.question,
                               wb.fake_llm.anthropic_tools(scenario.openai_tools()), impl, **kwargs)
    assert wb.checks.kind(r) == "AgentResult", (
        f"run_messages_agent must return an AgentResult, got {type(r).__name__}: {r!r}")
    return r


# Real HTTP, the real SDK, a system prompt and max_tokens.
scenario = S.two_orders()
llm = wb.fake_llm.FakeLLM(scenario)
shop = wb.shop.Shop("C-001")
with llm.serve() as base_url:
    client = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="sk-ant-test", max_retries=0)
    r = run_on(client, scenario, shop.tools(), system="You are Northwind support.", max_tokens=300)
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), f"expected the answer over HTTP; got {r!r}"
assert shop.log == [("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"})], (
    f"run each tool_use in order with its input; the shop saw {shop.log}")
for body in llm.requests:
    assert body.get("system") == "You are Northwind support." and body.get("max_tokens") == 300, (
        "send system= and max_tokens=max_tokens with every request")
    assert body.get("tools") == wb.fake_llm.anthropic_tools(scenario.openai_tools()), "send tools every time"
    assert all(m.get("role") in ("user", "assistant") for m in body["messages"]), "no system message in messages"
first_reply = llm.handle(llm.requests[0], "messages").body["content"]
sent = llm.requests[1]["messages"]
wb.checks.equal([{k: b.get(k) for k in ("type", "id", "name", "input")} for b in sent[1]["content"]],
                [{k: b.get(k) for k in ("type", "id", "name", "input")} for b in first_reply],
                "the assistant turn sent back", "the reply's whole content, every block in order")
wb.checks.equal([b.get("tool_use_id") for b in sent[2]["content"]], [b["id"] for b in first_reply],
                "the tool_use_ids of the results", "one result per tool_use, in order, in one user message")
assert [b.get("type") for b in sent[2]["content"]] == ["tool_result", "tool_result"], "only tool_result blocks"
assert all(not b.get("is_error") for b in sent[2]["content"]), "is_error only for failures"
wb.checks.is_type(json.loads(sent[2]["content"][0]["content"]), dict, "a result's content, parsed (json.dumps)")

# No system prompt: no system argument at all.
scenario = S.taxi_spending()
llm = wb.fake_llm.FakeLLM(scenario)
r = run_on(llm.anthropic_client(max_calls=4), scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == (scenario.answer, "done", 2), f"got {r!r}"
assert "system" not in llm.requests[0] and llm.requests[0]["messages"] == [
    {"role": "user", "content": scenario.question}], "without a system prompt send no system= and only the question"

# Failures are is_error: an unknown tool, then a vague and a specific error.
scenario = S.unknown_tool_then_recover()
llm = wb.fake_llm.FakeLLM(scenario)
r = run_on(llm.anthropic_client(max_calls=6), scenario, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status) == (scenario.answer, "done"), f"an unknown tool is an observation; got {r!r}"
failed = llm.requests[1]["messages"][2]["content"][0]
assert failed.get("is_error") is True and "get_order" in failed.get("content", ""), (
    f"the unknown tool's result lists the tools and carries is_error; sent {failed!r}")


def bad_month(category, month):
    raise ValueError("invalid input")  # vague: no 'error' in the words, only the flag says so


scenario = S.vague_vs_specific_error()
llm = wb.fake_llm.FakeLLM(scenario)
r = run_on(llm.anthropic_client(max_calls=6), scenario, {"txn_sum": bad_month})
assert llm.requests[1]["messages"][2]["content"][0].get("is_error") is True, "a raised exception is an is_error result"

# A one-step answer, text before a call, a stop sequence, and the step limit.
one = S.scripted(S.final("Order A-1001 is shipped."), question="Where is A-1001?")
r = run_on(wb.fake_llm.FakeLLM(one).anthropic_client(max_calls=2), one, {})
assert (r.answer, r.status, r.steps) == ("Order A-1001 is shipped.", "done", 1), f"got {r!r}"
react = S.scripted("Thought: I know it.\nObservation: made up", question="Where is A-1001?")
claude = wb.fake_llm.FakeLLM(react).anthropic_client(max_calls=2)  # every request stops at Observation:
stopping = SimpleNamespace(messages=SimpleNamespace(
    create=lambda **kw: claude.messages.create(stop_sequences=["Observation:"], **kw)))
r = run_on(stopping, react, {})
assert (r.answer, r.status, r.steps) == (None, "STOPPED: stop_sequence", 1), (
    f"a reply that ended at a stop sequence is not end_turn: AgentResult(None, 'STOPPED: stop_sequence', 1); got {r!r}")
said = S.scripted(S.Reply(calls=(S.Call("get_order", {"order_id": "A-1001"}),), text="Let me check."),
                  "Shipped.", tools=("get_order",), question="Where is A-1001?")
llm = wb.fake_llm.FakeLLM(said)
r = run_on(llm.anthropic_client(max_calls=3), said, wb.shop.Shop("C-001").tools())
assert (r.answer, r.status, r.steps) == ("Shipped.", "done", 2), f"got {r!r}"
assert [b.get("type") for b in llm.requests[1]["messages"][1]["content"]] == ["text", "tool_use"], (
    "the assistant turn keeps its text block before the tool_use")
for max_steps in (2, 8):
    scenario = S.never_finishes()
    llm = wb.fake_llm.FakeLLM(scenario)
    kwargs = {} if max_steps == 8 else {"max_steps": max_steps}
    r = run_on(llm.anthropic_client(max_calls=max_steps + 2), scenario, {"search_kb": lambda query: {"hits": []}},
               **kwargs)
    assert (r.answer, r.status, r.steps, llm.calls) == (None, "STOPPED: step limit", max_steps, max_steps), (
        f"with max_steps={max_steps}: AgentResult(None, 'STOPPED: step limit', {max_steps}); got {r!r} "
        f"after {llm.calls} calls")
### END HIDDEN TESTS

# %% [markdown]
# Your loop, unchanged, over real HTTP — the code path a live Claude model is reached by
# (`LLM_PROVIDER=anthropic` makes the same client with `make_client(api="messages")`):

# %%
import anthropic

scenario = scenarios.two_orders()
llm = FakeLLM(scenario)
with llm.serve() as base_url:
    claude = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="sk-ant-not-a-real-key")
    print(run_messages_agent(claude, "claude-fake", scenario.question, anthropic_tools(scenario.openai_tools()),
                             Shop("C-001").tools(), system="You are Northwind support."))
for body in llm.requests:
    print([(m["role"], [b["type"] for b in m["content"]] if isinstance(m["content"], list) else "text")
           for m in body["messages"]])

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch, except those marked "not graded".
#
# - **Rebuilding the assistant turn without `reasoning_content`.** The first DeepSeek step works,
#   the second gets 400 "The `reasoning_content` in the thinking mode must be passed back to the
#   API."
# - **Sending SDK objects or every field back.** `c` instead of a dict in `tool_calls`, or
#   `message.model_dump()` with its `refusal: None`, `annotations: None`, `audio: None`: plain data
#   is what you can save, compare and send to any provider.
# - **`tool_choice="required"` on DeepSeek in thinking mode.** 400 "Thinking mode does not support
#   this tool_choice". Switch thinking off for that request, or do not force.
# - **`tool_choice` sent to Ollama.** Its OpenAI-compatible API does not support it; your loop
#   must handle a model that answers in text instead.
# - **Assuming the arguments are a dict.** `fn(**call.function.arguments)` works on Anthropic's
#   `input`, never on Chat Completions' string — on any of its providers.
# - **Trusting that parsed arguments are an object.** `json.loads("[1]")` is valid JSON; `fn(**[1])`
#   is a crash.
# - **A small context and no check.** Ollama drops the oldest messages (often the user's question)
#   without an error; compare your prompt's size with the window before sending, and give the
#   server a bigger window. (Not graded here: chapter 16 grades the check.)
# - **Anthropic → OpenAI: dropping `is_error`, an `"ERROR: …"` prefix, or one message for all
#   results.** Without `{"error": …}` the model reads a failure as data, and a prefix is a second
#   shape for one concept that code cannot tell from a result starting with that word; wrap a text
#   that already is `{"error": …}` again and the error is JSON inside JSON. Chat Completions needs
#   one `tool` message per call, right after the assistant turn.
# - **Messages API: `system` as a message, or a part of the reply dropped.** The system prompt is
#   `system=`; the assistant turn is the reply's whole `content`, text blocks and every `tool_use`.
# - **Messages API: one user message per result, or text before the results.** Every `tool_use`
#   of a turn is answered in the next user message, `tool_result` blocks first; Anthropic's 400
#   names the rule.
# - **Messages API: no `is_error`, or `max_tokens` taken for an answer.** The flag tells the model
#   a result is a failure; a reply cut off at `max_tokens` (or at a stop sequence) is a stop
#   status, not an answer.
# - **Model names and URLs scattered through the code.** They change (DeepSeek switched its old
#   model names off in 2026). Keep them in one place and read keys from `.env`.
#   (Not graded: where settings live is not an exercise.)

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("10_real_providers")

# %% [markdown]
# ## Live cell (optional)
#
# Your `run_agent` on the provider you configured, with the options that provider needs — or,
# with `LLM_PROVIDER=anthropic`, your `run_messages_agent` on Claude. It runs
# only when `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded. A real
# model words its answer its own way, and a small local one may need more steps.

# %%
from workbook.fake_llm import anthropic_tools
from workbook.providers import SKIP_HINT, ProviderError, current, describe, live_enabled, live_failure, make_client

if live_enabled():
    try:
        provider = current().name
        print(describe())
        scenario = scenarios.deepseek_thinking()
        system = "You are Northwind support. Use the tools; be brief."
        if provider == "anthropic":  # Claude: your Messages API loop (Exercise 5)
            live_client, live_model = make_client(api="messages")
            live = run_messages_agent(live_client, live_model, scenario.question,
                                      anthropic_tools(scenario.openai_tools()), Shop("C-001").tools(),
                                      system=system, max_steps=6)
        else:
            live_client, live_model = make_client()
            live = run_agent(live_client, live_model, scenario.question, scenario.openai_tools(),
                             Shop("C-001").tools(), system=system, max_steps=6, **request_options(provider))
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
# **11 · Capstone: the knowledge-base agent.** Everything at once: four tools with least
# privilege (a knowledge-base search, `read_file`, `write_note`, `calculate`), a loop that keeps
# DeepSeek's reasoning and catches a small model's text calls, a trajectory log, and an
# evaluation that runs two tasks on a "cloud-like" and a "small-local-like" model and puts the
# difference in one table.
