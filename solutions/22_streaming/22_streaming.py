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
# # 22 · Streaming
#
# Every chat window prints the answer as it is written, and most agent frameworks stream. With
# `stream=True` the provider does not send one reply at the end: it sends **server-sent events**,
# one small piece at a time, over the same HTTP response. The first words arrive in a fraction of
# the time the whole reply takes, and a long reply never hits an HTTP timeout. The price: your
# code must put the pieces back together, and it must decide what to do when the stream breaks
# half way, after the provider already said "200 OK".
#
# **Learning goals.** After this chapter you can
# - accumulate a streamed Chat Completions reply into the message `create` returns: tool calls
#   keyed by `index`, arguments joined per call, the usage chunk with empty `choices`;
# - do the same for Anthropic's Messages events (block `index`, `partial_json`) and for the
#   Responses API's typed events (`output_text.delta`, argument deltas keyed by their item,
#   `response.completed`), saying at every moment what has arrived and which calls are whole;
# - show text as it comes, measure the time to the first token, and stop early on a budget,
#   closing the stream;
# - keep the loop safe when a stream fails mid-way: never run a tool call from a half-received
#   reply, retry the whole call only when nothing was acted on.
#
# **Time:** about 90 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop, the assistant turn, tool messages),
# 04 · Parallel tool calls (several calls in one reply), 06 · Limits and stopping (budgets, a
# clock passed in),
# 21 · The Responses API (items, `call_id`, flat tools).
# What you need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 03 and 06
#
# `AgentResult` and `call_tool` as in chapter 03; `assistant_turn(message)` builds the assistant
# message to send back from a reply's message (chapter 03 appended
# `message.model_dump(exclude_none=True)`; the stream helper's message carries extra fields, so
# the turn is built from the fields the wire needs). `Streamed` and `Watched` are what two of
# the exercises return.

# %% nbgrader={"grade": false, "grade_id": "given_code", "locked": true, "schema_version": 3, "solution": false}
import json
from dataclasses import dataclass

import openai

from workbook import scenarios
from workbook.fake_llm import FakeLLM, anthropic_tools
from workbook.shop import Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


def assistant_turn(message):
    """The assistant message to append, from a reply's message (streamed or not)."""
    turn = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        turn["tool_calls"] = [{"id": c.id, "type": "function",
                               "function": {"name": c.function.name, "arguments": c.function.arguments}}
                              for c in message.tool_calls]
    return turn


@dataclass
class Streamed:
    """What a streamed Chat Completions reply adds up to."""

    message: dict  # the message as create() returns it: message.model_dump(exclude_none=True)
    finish_reason: str | None
    usage: dict | None  # the usage chunk's usage.model_dump(); None when the stream had none


@dataclass
class Watched:
    """A streamed text reply as it was shown."""

    text: str  # the text shown
    status: str  # "done", "STOPPED: budget", or "STOPPED: <finish_reason>"
    first_token_s: float | None  # seconds from the request to the first piece of text
    total_s: float  # seconds from the request to the end (or to the early stop)


QUESTION = "How much did I spend on taxis in September 2026?"
TOOLS = scenarios.taxi_spending().openai_tools()

# %% [markdown]
# ## Part 1 · What a stream looks like
#
# Ask for `stream=True` and `create` returns an iterator of **chunks** instead of one reply. On
# the wire each chunk is one server-sent event: a line `data: {json}` and a blank line; the last
# event is `data: [DONE]`. The fake's stream below cuts the text every 4 characters (a real
# model sends a token or a few at a time):

# %%
llm = FakeLLM(scenarios.streamed(scenarios.scripted("Taxi in September: 2 rides."), fragment=4))
client = llm.client()
for chunk in client.chat.completions.create(model="fake-model", stream=True,
                                            messages=[{"role": "user", "content": QUESTION}]):
    choice = chunk.choices[0]
    print(repr(choice.delta.role), repr(choice.delta.content), choice.finish_reason)

# %% [markdown]
# Read it line by line:
#
# - every chunk has the same `id` and `created`; the first **delta** carries `role` (only the
#   first), then each delta a piece of `content`;
# - the finish comes on a chunk of its own, with an empty delta and `finish_reason`;
# - there is no usage at all, unless you ask for it with `stream_options={"include_usage": True}`:
#   then one more chunk comes last, with **`choices: []`** and the usage. Code that reads
#   `chunk.choices[0]` on every chunk crashes on it with `IndexError` (a bug real projects ship).
#
# A tool call is streamed in **fragments**. Its first fragment has `index`, `id`, `type` and
# `function.name`; the later ones only `index` and a piece of `function.arguments`:

# %%
llm = FakeLLM(scenarios.two_calls_streamed(fragment=6))
stream = llm.client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": QUESTION}], tools=TOOLS,
    stream=True, stream_options={"include_usage": True})
for chunk in stream:
    if not chunk.choices:
        print("usage chunk:", chunk.usage.model_dump(exclude_none=True))
        continue
    for tc in chunk.choices[0].delta.tool_calls or ():
        print(f"index={tc.index} id={tc.id} name={tc.function.name} arguments piece={tc.function.arguments!r}")

# %% [markdown]
# So the **`index`** is the key that ties fragments together: the `id` is only on the first
# fragment. The arguments are JSON only once every piece is joined — a piece like `"{\"cate"`
# is not JSON, so parse a call's arguments when its stream is complete, never a fragment.
#
# The dialects differ: DeepSeek streams its thinking first as `delta.reasoning_content`; Ollama
# sends each tool call whole, in one chunk. An accumulator keyed by `index` handles both.

# %% [markdown]
# ## Exercise 1 — `accumulate_chat` (4 points)
#
# Write `accumulate_chat(chunks)`: it takes the chunks of one streamed Chat Completions reply (any
# iterable, read once) and returns a `Streamed` whose
#
# - `message` is the dict `create` would have returned as
#   `response.choices[0].message.model_dump(exclude_none=True)`:
#   - `"role": "assistant"`;
#   - `"content"`: the content pieces joined — leave the key out when no chunk carried content
#     (a tool-call reply's content is `null`);
#   - `"tool_calls"` (only when there are calls): one
#     `{"id", "type": "function", "function": {"name", "arguments"}}` per call, **in `index`
#     order**, its `arguments` the call's pieces joined (a string, not parsed);
# - `finish_reason` is the finish reason of the reply;
# - `usage` is `chunk.usage.model_dump()` of the usage chunk (the one with `choices == []`), or
#   `None` when the stream has none.

# %% nbgrader={"grade": false, "grade_id": "accumulate_chat", "locked": false, "schema_version": 3, "solution": true}
def accumulate_chat(chunks):
    """A streamed Chat Completions reply put back together: Streamed(message, finish_reason, usage)."""
    ### BEGIN SOLUTION
    content, calls, finish, usage = None, {}, None, None
    for chunk in chunks:
        if chunk.usage is not None:
            usage = chunk.usage.model_dump()
        for choice in chunk.choices:  # none on the usage chunk
            delta = choice.delta
            if delta.content is not None:
                content = (content or "") + delta.content
            for tc in delta.tool_calls or ():
                call = calls.setdefault(tc.index, {"id": None, "type": "function",
                                                   "function": {"name": "", "arguments": ""}})
                if tc.id:
                    call["id"] = tc.id
                if tc.function is not None:
                    call["function"]["name"] += tc.function.name or ""
                    call["function"]["arguments"] += tc.function.arguments or ""
            if choice.finish_reason is not None:
                finish = choice.finish_reason
    message = {"role": "assistant"}
    if content is not None:
        message["content"] = content
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return Streamed(message, finish, usage)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "accumulate_chat_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: accumulate_chat rebuilds two parallel tool calls (keyed by index, arguments
joined per call) and the usage chunk's usage, the same message create returns, also when the two
calls' fragments are interleaved; a text reply's content is the pieces joined."""
from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
scenario = S.two_calls_streamed(fragment=5)
llm = wb.fake_llm.FakeLLM(scenario)
chunks = list(llm.client().chat.completions.create(
    model="fake-model", messages=question, tools=scenario.openai_tools(), stream=True,
    stream_options={"include_usage": True}))
whole = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=question, tools=scenario.openai_tools())
with wb.checks.no_raise("accumulate_chat(chunks)", hint="an IndexError: the usage chunk has choices == [] "
                        "(skip it); a KeyError or TypeError: key the fragments by index (only the first has the id)"):
    got = accumulate_chat(chunks)
assert wb.checks.kind(got) == "Streamed", f"return a Streamed, got {wb.checks.kind(got) or type(got).__name__}"
wb.checks.equal(got.message, whole.choices[0].message.model_dump(exclude_none=True),
                "the accumulated message", "key the fragments by index; only the first has the id")
wb.checks.equal(got.finish_reason, "tool_calls", "finish_reason")
wb.checks.equal(got.usage, whole.usage.model_dump(), "usage", "take it from the chunk with choices == []")

# the same fragments, the two calls' interleaved: only `index` says which call a fragment belongs to
at = [i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.tool_calls]
first = [chunks[i] for i in at if chunks[i].choices[0].delta.tool_calls[0].index == 0]
second = [chunks[i] for i in at if chunks[i].choices[0].delta.tool_calls[0].index == 1]
side_by_side = chunks[:at[0]] + [c for pair in zip(first, second, strict=True) for c in pair] + chunks[at[-1] + 1:]
with wb.checks.no_raise("accumulate_chat on two calls streamed side by side",
                        hint="add each fragment to the call its index names, not to the call started last"):
    got = accumulate_chat(side_by_side)
wb.checks.equal(got.message, whole.choices[0].message.model_dump(exclude_none=True),
                "the message of two calls whose fragments are interleaved",
                "add each fragment to the call its index names, not to the call started last")

text = S.streamed(S.scripted("Taxi in September 2026: 2 rides."), fragment=3)
chunks = list(wb.fake_llm.FakeLLM(text).client().chat.completions.create(
    model="fake-model", messages=question, stream=True))
with wb.checks.no_raise("accumulate_chat on a text reply",
                        hint="a text reply's deltas carry content and no tool_calls (None)"):
    got = accumulate_chat(chunks)
wb.checks.equal(got.message, {"role": "assistant", "content": "Taxi in September 2026: 2 rides."},
                "a text reply's message")
wb.checks.equal((got.finish_reason, got.usage), ("stop", None), "(finish_reason, usage) without include_usage")
print("accumulate_chat: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "accumulate_chat_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: every dialect (DeepSeek's reasoning chunks, Ollama's whole calls) and fragment
size gives what create gives; one-character fragments; non-ASCII arguments; three calls' fragments
interleaved, and two fragments in one chunk; a reply cut at its token limit keeps its half call
unparsed with finish_reason "length"."""
### BEGIN HIDDEN TESTS
import itertools

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
asks = S.scripted(S.calls(S.Call("txn_sum", {"category": "такси ✓", "month": "2026-09"}),
                          S.Call("get_order", {"order_id": "A-1001"}),
                          S.Call("txn_sum", {"category": "food", "month": "2026-08"})),
                  tools=("txn_sum", "get_order"))
for dialect, fragment in (("openai", 1), ("openai", None), ("deepseek", 4), ("ollama", 4)):
    scenario = S.streamed(asks, fragment=fragment)
    chunks = list(wb.fake_llm.FakeLLM(scenario, dialect).client().chat.completions.create(
        model="fake-model", messages=question, tools=scenario.openai_tools(), stream=True,
        stream_options={"include_usage": True}))
    whole = wb.fake_llm.FakeLLM(scenario, dialect).client().chat.completions.create(
        model="fake-model", messages=question, tools=scenario.openai_tools())
    with wb.checks.no_raise(f"accumulate_chat ({dialect}, fragment={fragment})",
                            hint="key every fragment by index: Ollama sends a call whole in one chunk, "
                            "DeepSeek sends reasoning_content first"):
        got = accumulate_chat(chunks)
    want = whole.choices[0].message.model_dump(exclude_none=True)
    want.pop("reasoning_content", None)
    got_message = dict(got.message)
    got_message.pop("reasoning_content", None)
    wb.checks.equal(got_message, want, f"the message ({dialect}, fragment={fragment})")
    wb.checks.equal(got.usage, whole.usage.model_dump(), f"usage ({dialect})")
    wb.checks.equal(got.finish_reason, "tool_calls", "finish_reason")

# three calls' fragments dealt in turn, then two fragments in one chunk: routed by index
scenario = S.streamed(asks, fragment=3)
kwargs = dict(model="fake-model", messages=question, tools=scenario.openai_tools())
chunks = list(wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(stream=True, **kwargs))
want = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(**kwargs).choices[0].message.model_dump(
    exclude_none=True)
at = [i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.tool_calls]
per_call = {}
for i in at:
    per_call.setdefault(chunks[i].choices[0].delta.tool_calls[0].index, []).append(chunks[i])
dealt = [c for row in itertools.zip_longest(*per_call.values()) for c in row if c is not None]
with wb.checks.no_raise("accumulate_chat on three calls streamed side by side",
                        hint="add each fragment to the call its index names, not to the call started last"):
    got = accumulate_chat(chunks[:at[0]] + dealt + chunks[at[-1] + 1:])
wb.checks.equal(got.message, want, "three calls whose fragments are interleaved",
                "add each fragment to the call its index names, not to the call started last")


def two_in_one(a, b):
    """One chunk whose delta carries the tool-call fragments of chunks a and b."""
    data = a.model_dump()
    data["choices"][0]["delta"]["tool_calls"] += b.model_dump()["choices"][0]["delta"]["tool_calls"]
    return type(a).model_validate(data)


paired = [two_in_one(*dealt[i:i + 2]) if i + 1 < len(dealt) else dealt[i] for i in range(0, len(dealt), 2)]
with wb.checks.no_raise("accumulate_chat on chunks that carry two fragments each",
                        hint="read every entry of delta.tool_calls, each by its index"):
    got = accumulate_chat(chunks[:at[0]] + paired + chunks[at[-1] + 1:])
wb.checks.equal(got.message, want, "chunks with two calls' fragments in one delta",
                "read every entry of delta.tool_calls, each by its index")

cut = S.stream_incomplete(after=4, fragment=4)
chunks = list(wb.fake_llm.FakeLLM(cut).client().chat.completions.create(
    model="fake-model", messages=question, tools=cut.openai_tools(), stream=True))
with wb.checks.no_raise("accumulate_chat on a reply cut at its token limit",
                        hint="keep the pieces as a string; never parse a fragment"):
    got = accumulate_chat(chunks)
wb.checks.equal(got.finish_reason, "length", "finish_reason of a cut reply")
call = got.message["tool_calls"][0]
wb.checks.equal(call["function"]["arguments"], '{"category": "ta', "the half call's arguments",
                "keep the pieces as a string; never parse a fragment")
wb.checks.equal((call["id"][:5], call["function"]["name"]), ("call_", "txn_sum"), "the half call's id and name")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · Anthropic's events
#
# Anthropic streams **named events**: each frame has an `event:` line and the JSON repeats its
# `type` (the anthropic SDK drops an event without the line). A reply is `message_start`, then for
# each content block `content_block_start` → `content_block_delta`s → `content_block_stop`, then
# `message_delta` (the `stop_reason` and the output tokens) and `message_stop`. A `ping` may come
# at any time. Every block event carries the block's **`index`** in the final `content`:

# %%
llm = FakeLLM(scenarios.streamed(scenarios.scripted(
    scenarios.Reply(text="Let me check.", calls=(scenarios.Call("txn_sum", {"category": "taxi", "month": "2026-09"}),)),
    tools=("txn_sum",)), fragment=8))
claude = llm.anthropic_client()
for event in claude.messages.create(model="claude-fake", max_tokens=500, stream=True,
                                    messages=[{"role": "user", "content": QUESTION}],
                                    tools=anthropic_tools(TOOLS)):
    detail = getattr(event, "delta", None) or getattr(event, "content_block", None) or ""
    print(event.type, getattr(event, "index", ""), detail if isinstance(detail, str) else detail.model_dump(exclude_none=True))

# %% [markdown]
# A `tool_use` block starts with `input: {}`; its input arrives as **`partial_json`** pieces of
# one JSON text (the first piece is empty). Join them per block and parse at
# `content_block_stop`. `message_delta.usage.output_tokens` is the total so far, not an
# increment: replace, never add.

# %% [markdown]
# ## Exercise 2 — `accumulate_messages` (3 points)
#
# Write `accumulate_messages(events)`: it takes the events of one streamed Messages reply (the
# SDK's event objects; pings and events you do not know are skipped) and returns a dict
#
# ```python
# {"content": [...], "stop_reason": str, "usage": {"input_tokens": int, "output_tokens": int}}
# ```
#
# - `content`: one dict per block in `index` order: `{"type": "text", "text": ...}` (the
#   `text_delta` pieces joined) or `{"type": "tool_use", "id", "name", "input"}` (the block's
#   `partial_json` pieces joined and parsed with `json.loads` at its `content_block_stop`; `{}`
#   when there were none);
# - route each delta by the event's `index` (blocks may be streamed side by side);
# - `stop_reason` from `message_delta`; `usage`: `input_tokens` from `message_start`'s message,
#   `output_tokens` from the last `message_delta` (a total: replace it, do not add).

# %% nbgrader={"grade": false, "grade_id": "accumulate_messages", "locked": false, "schema_version": 3, "solution": true}
def accumulate_messages(events):
    """A streamed Messages reply put back together: content blocks, stop_reason, usage."""
    ### BEGIN SOLUTION
    blocks, partial = {}, {}
    out = {"content": [], "stop_reason": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
    for event in events:
        if event.type == "message_start":
            out["usage"]["input_tokens"] = event.message.usage.input_tokens
        elif event.type == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                blocks[event.index] = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
                partial[event.index] = ""
            else:
                blocks[event.index] = {"type": "text", "text": block.text}
        elif event.type == "content_block_delta":
            if event.delta.type == "text_delta":
                blocks[event.index]["text"] += event.delta.text
            elif event.delta.type == "input_json_delta":
                partial[event.index] += event.delta.partial_json
        elif event.type == "content_block_stop":
            if event.index in partial:
                text = partial.pop(event.index)
                blocks[event.index]["input"] = json.loads(text) if text else {}
        elif event.type == "message_delta":
            out["stop_reason"] = event.delta.stop_reason
            out["usage"]["output_tokens"] = event.usage.output_tokens
    out["content"] = [blocks[i] for i in sorted(blocks)]
    return out
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "accumulate_messages_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: accumulate_messages rebuilds a text block and a tool_use block (partial_json
joined and parsed at the block's stop), the stop_reason and the usage of the reply create gives;
blocks streamed side by side are routed by their index; a block with no pieces has input {}; of
two message_delta events, the last one's output_tokens is the total."""
from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
reply = S.Reply(text="Checking both.", calls=(S.Call("txn_sum", {"category": "taxi", "month": "2026-09"}),
                                              S.Call("txn_sum", {"category": "food", "month": "2026-09"})))
scenario = S.streamed(S.scripted(reply, tools=("txn_sum",)), fragment=4)
kwargs = dict(model="claude-fake", max_tokens=500, messages=question,
              tools=wb.fake_llm.anthropic_tools(scenario.openai_tools()))
events = list(wb.fake_llm.FakeLLM(scenario).anthropic_client().messages.create(stream=True, **kwargs))
whole = wb.fake_llm.FakeLLM(scenario).anthropic_client().messages.create(**kwargs)
want = {"content": [{"type": "text", "text": "Checking both."}] + [
            {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input} for b in whole.content[1:]],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": whole.usage.input_tokens, "output_tokens": whole.usage.output_tokens}}
with wb.checks.no_raise("accumulate_messages(events)", hint="parse a block's JSON at its content_block_stop"):
    got = accumulate_messages(events)
wb.checks.equal(got, want, "the accumulated reply")

# the two tool blocks' deltas side by side: each delta goes to its block by index
tool_deltas = [e for e in events if e.type == "content_block_delta" and e.index > 0]
first, second = [e for e in tool_deltas if e.index == 1], [e for e in tool_deltas if e.index == 2]
mixed = [e for e in events if not (e.type == "content_block_delta" and e.index > 0)
         and not (e.type == "content_block_stop" and e.index > 0)]
at = next(i for i, e in enumerate(mixed) if e.type == "message_delta")
pairs = [e for pair in zip(first, second) for e in pair] + first[len(second):] + second[len(first):]
starts = [i for i, e in enumerate(mixed) if e.type == "content_block_start" and e.index > 0]
side_by_side = (mixed[:starts[0]] + [mixed[starts[0]], mixed[starts[1]]] + pairs
                + [e for e in events if e.type == "content_block_stop" and e.index > 0] + mixed[at:])
with wb.checks.no_raise("accumulate_messages on blocks streamed side by side",
                        hint="route each delta by event.index, not to the latest block"):
    got = accumulate_messages(side_by_side)
wb.checks.equal(got["content"], want["content"], "the blocks streamed side by side",
                "route each delta by event.index, not to the latest block")

no_input = [e for e in events if not (e.type == "content_block_delta" and e.index == 2)]  # no partial_json at all
with wb.checks.no_raise("accumulate_messages on a tool_use block with no input_json_delta",
                        hint="no pieces: the input is {} (json.loads('') fails)"):
    got = accumulate_messages(no_input)
wb.checks.equal(got["content"][2]["input"], {}, "the input of a block without partial_json pieces",
                "no pieces: the input is {} (json.loads('') fails)")

# two message_delta events (Anthropic sends one or more): each usage is the total so far
at = next(i for i, e in enumerate(events) if e.type == "message_delta")
usage = events[at].usage
earlier = events[at].model_copy(update={"usage": usage.model_copy(update={"output_tokens": usage.output_tokens // 2})})
with wb.checks.no_raise("accumulate_messages on a stream with two message_delta events",
                        hint="output_tokens in message_delta is the total so far: replace it, do not add"):
    got = accumulate_messages(events[:at] + [earlier] + events[at:])
wb.checks.equal(got["usage"], want["usage"], "the usage after two message_delta events",
                "output_tokens in message_delta is the total so far: replace it, do not add")
print("accumulate_messages: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "accumulate_messages_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: every fragment size, one-character pieces of non-ASCII input, a tool with no
input, a reply of text only, and three message_delta events."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
tool_reply = S.Reply(calls=(S.Call("txn_sum", {"category": "такси ✓ \"q\"", "month": "2026-09"}),
                            S.Call("get_order", {})))
for reply, fragment in ((tool_reply, 1), (tool_reply, None), (S.Reply(text="Only text: 5 000 ₸."), 3)):
    scenario = S.streamed(S.scripted(reply, tools=("txn_sum", "get_order")), fragment=fragment)
    kwargs = dict(model="claude-fake", max_tokens=500, messages=question,
                  tools=wb.fake_llm.anthropic_tools(scenario.openai_tools()))
    events = list(wb.fake_llm.FakeLLM(scenario).anthropic_client().messages.create(stream=True, **kwargs))
    whole = wb.fake_llm.FakeLLM(scenario).anthropic_client().messages.create(**kwargs)
    want = [{"type": "text", "text": b.text} if b.type == "text" else
            {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input} for b in whole.content]
    with wb.checks.no_raise(f"accumulate_messages (fragment={fragment})",
                            hint="join each block's partial_json and parse it at its content_block_stop; "
                            "no pieces: the input is {}"):
        got = accumulate_messages(events)
    wb.checks.equal(got["content"], want, f"the blocks (fragment={fragment})")
    wb.checks.equal(got["stop_reason"], whole.stop_reason, "stop_reason")
    wb.checks.equal(got["usage"], {"input_tokens": whole.usage.input_tokens,
                                   "output_tokens": whole.usage.output_tokens}, "usage")

# three message_delta events, each usage the total so far (the last reply: text only)
at = next(i for i, e in enumerate(events) if e.type == "message_delta")
usage = events[at].usage
totals = [events[at].model_copy(update={"usage": usage.model_copy(update={"output_tokens": n})})
          for n in (1, usage.output_tokens - 1)]
with wb.checks.no_raise("accumulate_messages with three message_delta events",
                        hint="each message_delta's output_tokens is the total so far"):
    got = accumulate_messages(events[:at] + totals + events[at:])
wb.checks.equal(got["usage"], {"input_tokens": whole.usage.input_tokens, "output_tokens": whole.usage.output_tokens},
                "the usage after three message_delta events", "each message_delta's output_tokens is the total so far")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 3 · The Responses API's events (chapter 21)
#
# The Responses API streams **typed events** too, each frame an `event:` line and a `data:` line
# whose JSON repeats the `type`, every event with a `sequence_number` counting from 0 and no
# `[DONE]` at the end. A reply is `response.created` and `response.in_progress` (the response,
# still empty), then for each output item, in order, `response.output_item.added` … `.done`, and
# last `response.completed` with the whole response and its usage (`response.incomplete` when it
# ran out of tokens). Inside an item:
#
# - a `message`: `content_part.added`, then `response.output_text.delta` pieces, then
#   `output_text.done` and `content_part.done`;
# - a `function_call`: the added item carries `call_id` and `name` and `arguments: ""`; then
#   `response.function_call_arguments.delta` pieces, which name the item (`item_id`,
#   `output_index`) but **not the `call_id`**; then `function_call_arguments.done`.
#
# A reasoning model's `reasoning` item comes first, added and done with nothing in between:

# %%
FLAT_TOOLS = [{"type": "function", **t["function"]} for t in TOOLS]  # Responses tools are flat (chapter 21)
llm = FakeLLM(scenarios.two_calls_streamed(fragment=6))
for event in llm.client().responses.create(model="gpt-5-mini", input=QUESTION, tools=FLAT_TOOLS, stream=True):
    item = getattr(event, "item", None)
    print(event.sequence_number, event.type, getattr(event, "output_index", ""),
          f"{item.type} {getattr(item, 'call_id', '')}" if item is not None else repr(getattr(event, "delta", ""))[:24])

# %% [markdown]
# So the **`output_index`** (or the `item_id`) is the key that ties the pieces of one call
# together, as `index` did for Chat Completions chunks. An item is finished at its
# `output_item.done`, whose `status` says whether it is whole: a reply that hit its token limit
# ends with `response.incomplete`, and in the fake the call it was writing is done with `status:
# "incomplete"` and half its arguments. That last part is the fake's own shape: the SDK's types
# allow `"incomplete"` on a call, but we found no capture of a real stream cut inside a call
# (docs/SOURCES.md). Either way `response.completed` is the only end after which every call can be
# run.

# %% [markdown]
# ## Exercise 3 — `accumulate_responses` (3 points)
#
# A stream is read while it arrives, so the accumulator must say what has arrived *so far*: a
# display shows the text as it comes, and a loop must know which calls are whole. Write
# `accumulate_responses(events)`: it takes the events of a streamed Responses reply, or the first
# ones of it (the SDK's event objects; events you do not know are skipped), and returns a dict
#
# ```python
# {"text": str, "calls": [{"call_id", "name", "arguments", "complete"}, ...], "status": str | None,
#  "usage": {"input_tokens": int, "output_tokens": int} | None}
# ```
#
# - `text`: every `response.output_text.delta` piece, joined in order;
# - `calls`: one dict per `function_call` item, in `output_index` order: `call_id` and `name` from
#   its `response.output_item.added`, `arguments` the item's `function_call_arguments.delta`
#   pieces joined (a string: never parse a piece), `complete` True once the item's
#   `response.output_item.done` arrived with `item.status == "completed"`;
# - `status` and `usage` from the end event (`response.completed`, `response.incomplete` or
#   `response.failed`): its `response.status` and `response.usage`'s `input_tokens` and
#   `output_tokens`; both `None` until it arrives.

# %% nbgrader={"grade": false, "grade_id": "accumulate_responses", "locked": false, "schema_version": 3, "solution": true}
def accumulate_responses(events):
    """A streamed Responses reply put back together, from the events that have arrived."""
    ### BEGIN SOLUTION
    calls = {}
    out = {"text": "", "calls": [], "status": None, "usage": None}
    for event in events:
        kind = event.type
        if kind == "response.output_item.added" and event.item.type == "function_call":
            calls[event.output_index] = {"call_id": event.item.call_id, "name": event.item.name,
                                         "arguments": "", "complete": False}
        elif kind == "response.output_text.delta":
            out["text"] += event.delta
        elif kind == "response.function_call_arguments.delta":
            calls[event.output_index]["arguments"] += event.delta
        elif kind == "response.output_item.done" and event.output_index in calls:
            calls[event.output_index]["complete"] = event.item.status == "completed"
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            out["status"] = event.response.status
            usage = event.response.usage
            out["usage"] = None if usage is None else {"input_tokens": usage.input_tokens,
                                                       "output_tokens": usage.output_tokens}
    out["calls"] = [calls[i] for i in sorted(calls)]
    return out
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "accumulate_responses_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: accumulate_responses rebuilds the text and both calls of a streamed reply (the
usage and status of the response create gives), says what a stream cut short holds so far (half
the second call's arguments, not complete, no status), routes argument pieces by their item when
two calls stream side by side, and marks the call of an incomplete reply not complete."""
from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = "How much did I spend on taxis in September 2026?"
reply = S.Reply(text="Checking both.", calls=(S.Call("txn_sum", {"category": "taxi", "month": "2026-09"}),
                                              S.Call("txn_sum", {"category": "food", "month": "2026-09"})))
scenario = S.streamed(S.scripted(reply, tools=("txn_sum",)), fragment=5)
flat = [{"type": "function", **t["function"]} for t in scenario.openai_tools()]
kwargs = dict(model="gpt-5-mini", input=question, tools=flat)
events = list(wb.fake_llm.FakeLLM(scenario).client().responses.create(stream=True, **kwargs))
whole = wb.fake_llm.FakeLLM(scenario).client().responses.create(**kwargs)
calls = [{"call_id": o.call_id, "name": o.name, "arguments": o.arguments, "complete": True}
         for o in whole.output if o.type == "function_call"]
usage = {"input_tokens": whole.usage.input_tokens, "output_tokens": whole.usage.output_tokens}
with wb.checks.no_raise("accumulate_responses(events)", hint="join the argument pieces as text; parse nothing"):
    got = accumulate_responses(events)
wb.checks.equal(got, {"text": whole.output_text, "calls": calls, "status": "completed", "usage": usage},
                "the accumulated reply")

second = whole.output[-1].id  # the second call's item
at = next(i for i, e in enumerate(events) if e.type == "response.function_call_arguments.delta" and e.item_id == second)
cut = events[:at + 2]  # the stream, up to the second call's first two argument pieces
pieces = "".join(e.delta for e in cut if e.type == "response.function_call_arguments.delta" and e.item_id == second)
with wb.checks.no_raise("accumulate_responses on the first events of a stream",
                        hint="say what arrived: the text and the pieces so far, no status yet"):
    got = accumulate_responses(cut)
wb.checks.equal(got, {"text": whole.output_text, "status": None, "usage": None, "calls": [
    calls[0], dict(calls[1], arguments=pieces, complete=False)]}, "what a stream cut short holds so far",
    "say what arrived: the text and the pieces so far, the second call not complete, no status yet")

deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
ones = [e for e in deltas if e.item_id == whole.output[-2].id]
twos = [e for e in deltas if e.item_id == whole.output[-1].id]
rest = [e for e in events if e.type != "response.function_call_arguments.delta"
        and not (e.type in ("response.output_item.done", "response.function_call_arguments.done")
                 and getattr(e, "output_index", -1) >= len(whole.output) - 2)]
added = [i for i, e in enumerate(rest) if e.type == "response.output_item.added"][-1]
ends = [e for e in events if e.type in ("response.output_item.done", "response.function_call_arguments.done")
        and e.output_index >= len(whole.output) - 2]
side_by_side = rest[:added + 1] + [e for pair in zip(ones, twos) for e in pair] + ones[len(twos):] + \
    twos[len(ones):] + ends + rest[added + 1:]
with wb.checks.no_raise("accumulate_responses on two calls streamed side by side",
                        hint="route each argument piece by its output_index (or item_id), not to the latest call"):
    got = accumulate_responses(side_by_side)
wb.checks.equal(got["calls"], calls, "two calls streamed side by side",
                "route each argument piece by its output_index (or item_id), not to the latest call")

short = S.streamed(S.scripted(S.Reply(text="Checking.", calls=(S.Call("txn_sum", {"category": "taxi",
                                                                                   "month": "2026-09"}),)),
                              tools=("txn_sum",)), S.StreamPlan(fragment=4, incomplete_after=4))
events = list(wb.fake_llm.FakeLLM(short).client().responses.create(stream=True, **kwargs))
with wb.checks.no_raise("accumulate_responses on a reply that ran out of tokens",
                        hint="the end event is response.incomplete; never parse a call's arguments"):
    got = accumulate_responses(events)
wb.checks.equal((got["status"], got["text"], [c["complete"] for c in got["calls"]]),
                ("incomplete", "Checking.", [False]), "the status, text and calls of an incomplete reply",
                "a call is complete only when its output_item.done says status 'completed'")
wb.checks.equal(got["usage"], {"input_tokens": events[-1].response.usage.input_tokens,
                               "output_tokens": events[-1].response.usage.output_tokens}, "its usage")
print("accumulate_responses: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "accumulate_responses_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: every fragment size, one-character pieces of non-ASCII text and arguments, a
model that does not reason, a call with no arguments, a text-only reply, every prefix of a
stream, the HTTP face, and the events of another dialect."""
### BEGIN HIDDEN TESTS
import openai

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
question = "How much did I spend on taxis in September 2026?"
tool_reply = S.Reply(text="Смотрю ✓ \"q\"", calls=(S.Call("txn_sum", {"category": "такси ✓ \"q\"", "month": "2026-09"}),
                                                   S.Call("get_order", {})))


def expected(response):
    return {"text": response.output_text, "status": response.status,
            "calls": [{"call_id": o.call_id, "name": o.name, "arguments": o.arguments, "complete": True}
                      for o in response.output if o.type == "function_call"],
            "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens}}


for reply, fragment, model, dialect in ((tool_reply, 1, "gpt-5-mini", "openai"), (tool_reply, None, "gpt-4.1-mini", "openai"),
                                        (S.Reply(text="Only text: 5 000 ₸."), 3, "gpt-5-mini", "openai"),
                                        (tool_reply, 2, "qwen3:4b", "ollama"), (tool_reply, 7, "deepseek-flash", "deepseek")):
    scenario = S.streamed(S.scripted(reply, tools=("txn_sum", "get_order")), fragment=fragment)
    kwargs = dict(model=model, input=question, tools=[{"type": "function", **t["function"]} for t in scenario.openai_tools()])
    events = list(wb.fake_llm.FakeLLM(scenario, dialect).client().responses.create(stream=True, **kwargs))
    whole = wb.fake_llm.FakeLLM(scenario, dialect).client().responses.create(**kwargs)
    with wb.checks.no_raise(f"accumulate_responses ({model}, fragment={fragment})",
                            hint="join the argument pieces as text; skip the events you do not know"):
        got = accumulate_responses(events)
    wb.checks.equal(got, expected(whole), f"the accumulated reply ({model} on {dialect}, fragment={fragment})")

scenario = S.streamed(S.scripted(tool_reply, tools=("txn_sum", "get_order")), fragment=3)
kwargs = dict(model="gpt-5-mini", input=question, tools=[{"type": "function", **t["function"]} for t in scenario.openai_tools()])
events = list(wb.fake_llm.FakeLLM(scenario).client().responses.create(stream=True, **kwargs))
final = expected(events[-1].response)
for n in range(len(events)):
    got = accumulate_responses(events[:n])
    text = "".join(e.delta for e in events[:n] if e.type == "response.output_text.delta")
    assert got["text"] == text, f"after {n} events the text so far is {text!r}, got {got['text']!r}"
    done = {e.output_index for e in events[:n] if e.type == "response.output_item.done"}
    added = [e for e in events[:n] if e.type == "response.output_item.added" and e.item.type == "function_call"]
    wb.checks.equal([(c["call_id"], c["complete"]) for c in got["calls"]],
                    [(e.item.call_id, e.output_index in done) for e in added], f"the calls after {n} events")
    if n < len(events):
        wb.checks.equal((got["status"], got["usage"]), (None, None), f"status and usage after {n} events")
    for c, want in zip(got["calls"], final["calls"]):
        assert want["arguments"].startswith(c["arguments"]), f"after {n} events: {c['arguments']!r} is not a start of {want['arguments']!r}"
wb.checks.equal(accumulate_responses(events), final, "the whole stream")

with wb.fake_llm.FakeLLM(scenario).serve() as url:
    events = list(openai.OpenAI(base_url=url, api_key="k", max_retries=0).responses.create(stream=True, **kwargs))
wb.checks.equal(accumulate_responses(events), final, "the same stream over HTTP")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · Show it as it comes, and measure it
#
# Streaming is for people: the customer reads the first words while the rest is written. Two
# numbers say how it feels. The **time to first token** (TTFT) is how long the customer waits for
# anything at all; the **total time** is how long until the reply is complete. Without streaming
# both are the same: the whole reply arrives at the end.
#
# Measure on a clock passed in, as in chapter 06. The fake has its own: `llm.clock()` is the
# time on the fake provider, in seconds; it moves as your code reads the stream (its rule: the
# first token 200 ms + 1 ms per prompt token after the request, then 5 ms a character). Nothing
# sleeps, so the numbers are the same on every run and on every machine.
#
# In a notebook, print the pieces into an `ipywidgets.Output`: `out.append_stdout(piece)` adds
# text to the widget while the cell is still running.
#
# **Stop early.** A reply that has already said enough (a budget of characters, a customer who
# pressed Stop) should not be read to its end: leave the loop and close the stream
# (`stream.close()`, or a `with` block around it), so the provider can see the connection close.
# When it stops generating, and what it bills for a stream closed early, neither OpenAI nor
# Anthropic documents (we could not confirm it); reports say generation and billing go on until
# the disconnect reaches the server. So closing early is worth doing, and a token cap
# (`max_completion_tokens`, Anthropic's `max_tokens`) is the bound you can count on. Record what
# happened honestly: `"STOPPED: budget"`, not `"done"`.

# %% [markdown]
# ## Exercise 4 — `watch` (4 points)
#
# Write `watch(client, model, messages, show, clock, max_chars=None)`:
#
# - `start = clock()`, then stream one reply:
#   `client.chat.completions.create(model=model, messages=messages, stream=True)`;
# - call `show(piece)` for every non-empty content piece **as it arrives** (not at the end);
# - `first_token_s`: `clock() - start` when the first non-empty piece arrives (`None` if none does);
# - with `max_chars`: as soon as the text has `max_chars` characters or more, keep only the first
#   `max_chars` (show only those too), **close the stream** and stop reading: status
#   `"STOPPED: budget"`;
# - otherwise read to the end: status `"done"` if the finish reason is `"stop"`, else
#   `f"STOPPED: {finish_reason}"`;
# - `total_s`: `clock() - start` at the end (or right after closing);
# - return `Watched(text, status, first_token_s, total_s)`.

# %% nbgrader={"grade": false, "grade_id": "watch", "locked": false, "schema_version": 3, "solution": true}
def watch(client, model, messages, show, clock, max_chars=None):
    """Stream one reply: show its text as it comes, stop at max_chars, measure on clock."""
    ### BEGIN SOLUTION
    start = clock()
    text, first, status = "", None, None
    stream = client.chat.completions.create(model=model, messages=messages, stream=True)
    with stream:
        for chunk in stream:
            for choice in chunk.choices:
                piece = choice.delta.content or ""
                if piece:
                    if first is None:
                        first = clock() - start
                    if max_chars is not None and len(text) + len(piece) >= max_chars:
                        piece = piece[:max_chars - len(text)]
                        status = "STOPPED: budget"
                    text += piece
                    if piece:
                        show(piece)
                if status is None and choice.finish_reason is not None:
                    status = "done" if choice.finish_reason == "stop" else f"STOPPED: {choice.finish_reason}"
            if status == "STOPPED: budget":
                break
    return Watched(text, status or "STOPPED: no finish", first, clock() - start)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "watch_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: watch shows each piece when it arrives (on the fake's clock), measures the first
token and the total time, and with max_chars stops at the budget, closing the stream early, with
the status "STOPPED: budget"; a reply cut at its token limit ends "STOPPED: length"."""
import math

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
text = "Taxi in September 2026: 2 rides, 9900 KZT."
question = [{"role": "user", "content": "How much did I spend on taxis in September 2026?"}]
scenario = S.streamed(S.scripted(text), fragment=5)
llm = wb.fake_llm.FakeLLM(scenario)
prompt = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=question).usage.prompt_tokens
shown = []
with wb.checks.no_raise("watch(...)", hint="delta.content is None on the first and last chunks: show "
                        "only non-empty pieces"):
    got = watch(llm.client(), "fake-model", question, lambda piece: shown.append((llm.clock(), piece)), llm.clock.now)
assert wb.checks.kind(got) == "Watched", f"return a Watched, got {wb.checks.kind(got) or type(got).__name__}"
wb.checks.equal((got.text, got.status), (text, "done"), "(text, status)")
first = (200 + prompt + 5 * 5) / 1000  # the first 5 characters are done
wb.checks.expect(type(got.first_token_s) is float and math.isclose(got.first_token_s, first),
                 f"first_token_s should be {first} s on the fake's clock, got {got.first_token_s!r}")
wb.checks.expect(math.isclose(got.total_s, (200 + prompt + 5 * len(text)) / 1000),
                 f"total_s should be {(200 + prompt + 5 * len(text)) / 1000} s, got {got.total_s!r}")
wb.checks.equal("".join(p for _, p in shown), text, "the text shown")
wb.checks.expect(len(shown) == 9 and all(t < shown[-1][0] for t, _ in shown[:-1]),
                 "call show once per piece, as each arrives, not once at the end: "
                 f"shown at {[t for t, _ in shown]}")

llm = wb.fake_llm.FakeLLM(scenario)
shown = []
with wb.checks.no_raise("watch(..., max_chars=12)",
                        hint="at max_chars keep the first max_chars characters, close the stream and stop"):
    got = watch(llm.client(), "fake-model", question, shown.append, llm.clock.now, max_chars=12)
wb.checks.equal((got.text, got.status), (text[:12], "STOPPED: budget"), "(text, status) at the budget")
wb.checks.equal("".join(shown), text[:12], "the text shown up to the budget")
delivery = llm.stream_state.deliveries[-1]
wb.checks.expect(delivery.status == "closed early",
                 f"close the stream at the budget: the fake saw it end as {delivery.status!r}")
wb.checks.expect(math.isclose(got.total_s, (200 + prompt + 5 * 15) / 1000),
                 f"total_s is measured right after closing: expected {(200 + prompt + 75) / 1000}, got {got.total_s!r}")

cut = S.streamed(S.scripted(S.final("Taxi in Sept", finish_reason="length")), fragment=4)
llm = wb.fake_llm.FakeLLM(cut)
with wb.checks.no_raise("watch on a reply cut at its token limit",
                        hint='a finish reason other than "stop" is f"STOPPED: {finish_reason}"'):
    got = watch(llm.client(), "fake-model", question, lambda piece: None, llm.clock.now)
wb.checks.equal((got.text, got.status), ("Taxi in Sept", "STOPPED: length"), "(text, status) of a reply cut at its limit",
                'a finish reason other than "stop" is f"STOPPED: {finish_reason}"')
print("watch: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "watch_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: one-character pieces; a budget on a piece boundary and inside a piece; a reply
cut at its token limit; the model name and messages sent; a clock that does not start at 0."""
### BEGIN HIDDEN TESTS
import math

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
text = "Your order A-1001 ships tomorrow — 5 000 ₸."
question = [{"role": "user", "content": "When does my order ship?"}]
for fragment, max_chars, want_text, want_status in (
        (1, None, text, "done"), (4, 10, text[:10], "STOPPED: budget"), (None, 3, text[:3], "STOPPED: budget"),
        (6, 500, text, "done")):
    scenario = S.streamed(S.scripted(text), fragment=fragment)
    llm = wb.fake_llm.FakeLLM(scenario)
    llm.clock.advance(7.5)  # the fake has been up a while
    prompt = wb.fake_llm.FakeLLM(scenario).client().chat.completions.create(
        model="m", messages=question).usage.prompt_tokens
    shown = []
    with wb.checks.no_raise(f"watch (fragment={fragment}, max_chars={max_chars})",
                            hint="show each non-empty piece; at max_chars (inside a piece too) keep the "
                            "first max_chars characters and close the stream"):
        got = watch(llm.client(), "fake-model-2", question, shown.append, llm.clock.now, max_chars=max_chars)
    wb.checks.equal((got.text, got.status), (want_text, want_status), f"(text, status), fragment={fragment}, max_chars={max_chars}")
    wb.checks.equal("".join(shown), want_text, "the text shown")
    size = fragment or len(text)
    wb.checks.expect(math.isclose(got.first_token_s, (200 + prompt + 5 * min(size, len(text))) / 1000),
                     f"first_token_s on the fake's clock (fragment={fragment}): got {got.first_token_s!r}")
    read = len(text) if want_status == "done" else -(-max_chars // size) * size
    wb.checks.expect(math.isclose(got.total_s, (200 + prompt + 5 * min(read, len(text))) / 1000),
                     f"total_s (fragment={fragment}, max_chars={max_chars}): got {got.total_s!r}")
    wb.checks.equal(llm.requests[-1]["model"], "fake-model-2", "the model sent")
    wb.checks.equal(llm.requests[-1]["messages"], question, "the messages sent")
    wb.checks.equal(llm.stream_state.deliveries[-1].status, "done" if want_status == "done" else "closed early",
                    "how the stream ended")

cut = S.streamed(S.scripted(S.final("Your taxi spending in Sept", finish_reason="length")), fragment=4)
llm = wb.fake_llm.FakeLLM(cut)
with wb.checks.no_raise("watch on a reply cut at its token limit",
                        hint='a finish reason other than "stop" is f"STOPPED: {finish_reason}"'):
    got = watch(llm.client(), "m", question, lambda piece: None, llm.clock.now)
wb.checks.equal((got.text, got.status), ("Your taxi spending in Sept", "STOPPED: length"), "a cut reply")
### END HIDDEN TESTS

# %% [markdown]
# ### Streamed or not: the latency table
#
# The same reply, six ways: each API, streamed and not, timed on the fake's clock. Streaming
# does not make the reply faster — the total is the same — it makes the *first words* arrive
# sooner.

# %%
def timed(api, streamed_call):
    """(first token, total) in seconds for the taxi answer, on a fresh fake's clock."""
    answer = scenarios.streamed(scenarios.scripted("Taxi in September 2026: 2 rides, 9900 KZT. " * 4), fragment=4)
    llm = FakeLLM(answer)
    messages = [{"role": "user", "content": QUESTION}]
    first = None
    if api == "chat":
        if not streamed_call:
            llm.client().chat.completions.create(model="fake-model", messages=messages)
            return llm.clock(), llm.clock()
        for chunk in llm.client().chat.completions.create(model="fake-model", messages=messages, stream=True):
            if first is None and chunk.choices and chunk.choices[0].delta.content:
                first = llm.clock()
        return first, llm.clock()
    if api == "responses":
        if not streamed_call:
            llm.client().responses.create(model="gpt-5-mini", input=QUESTION)
            return llm.clock(), llm.clock()
        for event in llm.client().responses.create(model="gpt-5-mini", input=QUESTION, stream=True):
            if first is None and event.type == "response.output_text.delta":
                first = llm.clock()
        return first, llm.clock()
    claude = llm.anthropic_client()
    if not streamed_call:
        claude.messages.create(model="claude-fake", max_tokens=500, messages=messages)
        return llm.clock(), llm.clock()
    with claude.messages.stream(model="claude-fake", max_tokens=500, messages=messages) as stream:
        for _ in stream.text_stream:
            first = llm.clock() if first is None else first
    return first, llm.clock()


print(f"{'API':18} {'call':10} {'first token':>12} {'total':>8}")
for api, label in (("chat", "Chat Completions"), ("messages", "Messages"), ("responses", "Responses")):
    for streamed_call in (False, True):
        first, total = timed(api, streamed_call)
        print(f"{label:18} {'streamed' if streamed_call else 'whole':10} {first:>10.3f} s {total:>6.3f} s")

# %% [markdown]
# ### Watch it in the notebook
#
# Your `watch`, printing into an `Output` widget as the reply streams:

# %%
import ipywidgets as widgets
from IPython.display import display

out = widgets.Output(layout={"border": "1px solid #999", "padding": "4px"})
display(out)
long_answer = scenarios.streamed(scenarios.scripted(
    "Your taxi spending in September 2026 was 9900 KZT over 2 rides. "
    "Food was 45 600 KZT. Want a breakdown by week?"), fragment=3)
llm = FakeLLM(long_answer)
seen = watch(llm.client(), "fake-model", [{"role": "user", "content": QUESTION}], out.append_stdout, llm.clock)
print(f"first token after {seen.first_token_s:.3f} s, done after {seen.total_s:.3f} s: {seen.status}")

# %% [markdown]
# ## Part 5 · When a stream breaks
#
# A stream can fail *after* the provider answered 200: the connection is cut, the provider sends
# an **error event** (Anthropic's `overloaded_error`, when it is busy), or nothing more arrives
# until the client's read timeout fires. The SDK's retries cannot help: they retry a request, and
# this request already succeeded. What each SDK raises, on the fake's scripted faults:

# %%
def first_failure(name, api):
    llm = FakeLLM(name)
    messages = [{"role": "user", "content": QUESTION}]
    events = 0
    try:
        if api == "chat":
            stream = llm.client(max_retries=2, timeout=0.5).chat.completions.create(
                model="fake-model", messages=messages, tools=TOOLS, stream=True)
        elif api == "responses":
            stream = llm.client(max_retries=2, timeout=0.5).responses.create(
                model="gpt-5-mini", input=QUESTION, tools=FLAT_TOOLS, stream=True)
        else:
            stream = llm.anthropic_client(max_retries=2, timeout=0.5).messages.create(
                model="claude-fake", max_tokens=500, messages=messages, tools=anthropic_tools(TOOLS), stream=True)
        for _ in stream:
            events += 1
        return f"no error ({events} events)"
    except Exception as e:  # what the loop would see
        status = getattr(e, "status_code", None)
        return f"{type(e).__module__.split('.')[0]}.{type(e).__name__}{f' ({status})' if status else ''} after {events} events, {llm.calls} request"


for name in ("stream_cut", "stream_overloaded", "stream_stall"):
    for api in ("chat", "messages", "responses"):
        print(f"{name:18} {api:9} {first_failure(name, api)}")

# %% [markdown]
# Note the anthropic SDK's error event: an `APIStatusError` whose `status_code` is **200** —
# not an `OverloadedError`, and not retried. A connection cut mid-stream reaches your code as
# the HTTP library's `httpx2.RemoteProtocolError` from the anthropic SDK, and as
# `openai.APIConnectionError` from the openai SDK, on Chat Completions and Responses alike. The
# Responses `error` event (nested: `{"type": "error", "error": {...}}`) makes the openai SDK raise
# `openai.APIError` in the middle of the loop, as a Chat Completions error chunk does.
#
# What the loop must do:
#
# - **never run a tool call from a half-received reply.** A call is complete only when the stream
#   ended normally with `finish_reason == "tool_calls"`. A stream that broke, or ended with
#   `"length"`, may hold a call whose arguments are cut in half — or, worse, look whole;
# - **retry the whole model call** when it failed mid-stream, because nothing was acted on yet;
#   throw away what arrived;
# - never retry a step whose tools already ran by starting the run again: a refund would be paid
#   twice (chapter 08). Retry only the model call that failed.
#
# The openai SDK's `client.chat.completions.stream(...)` does the accumulating for you, exactly as
# your Exercise 1: `stream.get_final_completion()` is the completion `create` returns. It raises
# if the stream fails, and even for a reply that ended at its token limit
# (`LengthFinishReasonError`), so it never hands you half a reply.

# %% [markdown]
# ## Exercise 5 — `run_agent_streaming` (4 points)
#
# Write `run_agent_streaming(client, model, question, tools, impl, max_steps=8, retries=2)`,
# chapter 03's loop where every model call streams:
#
# - each step: `with client.chat.completions.stream(model=model, messages=messages, tools=tools)
#   as stream:` and `completion = stream.get_final_completion()`;
# - if that raises `openai.APIStatusError` (a 4xx or 5xx before the stream started), let it
#   propagate: the request itself was wrong or refused;
# - the helper refuses to hand over a reply cut at its token limit: it raises
#   `openai.LengthFinishReasonError` (`openai.ContentFilterFinishReasonError` for a filtered one).
#   Return `AgentResult(None, "STOPPED: length", step)` (`"STOPPED: content_filter"`) without
#   running anything;
# - if it raises any other `openai.APIError` (a cut, a timeout, an error event mid-stream), call
#   the model again for the same step, up to `retries` more times; when they all fail return
#   `AgentResult(None, "STOPPED: stream failed", step)`;
# - append `assistant_turn(message)`; run the tool calls (as in chapter 03: JSON arguments, one
#   `tool` message per call, `json.dumps` of `call_tool(...)`) **only when** the finish reason is
#   `"tool_calls"`;
# - `finish_reason == "stop"` → `AgentResult(content, "done", step)`; any other reason →
#   `AgentResult(None, f"STOPPED: {finish_reason}", step)`, without running a tool;
# - after `max_steps` model calls: `AgentResult(None, "STOPPED: step limit", max_steps)`.
#
# `step` counts steps, not requests: a retried call is the same step.

# %% nbgrader={"grade": false, "grade_id": "run_agent_streaming", "locked": false, "schema_version": 3, "solution": true}
def run_agent_streaming(client, model, question, tools, impl, max_steps=8, retries=2):
    """Chapter 03's loop with every model call streamed; a call that breaks mid-stream is retried."""
    ### BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        for attempt in range(retries + 1):
            try:
                with client.chat.completions.stream(model=model, messages=messages, tools=tools) as stream:
                    completion = stream.get_final_completion()
                break
            except openai.LengthFinishReasonError:  # a reply cut short: no call in it is whole
                return AgentResult(None, "STOPPED: length", step)
            except openai.ContentFilterFinishReasonError:
                return AgentResult(None, "STOPPED: content_filter", step)
            except openai.APIStatusError:
                raise
            except openai.APIError:
                if attempt == retries:
                    return AgentResult(None, "STOPPED: stream failed", step)
        choice = completion.choices[0]
        message = choice.message
        messages.append(assistant_turn(message))
        if choice.finish_reason != "tool_calls":
            if choice.finish_reason == "stop":
                return AgentResult(message.content, "done", step)
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        for call in message.tool_calls or ():
            try:
                args = json.loads(call.function.arguments)
            except json.JSONDecodeError as e:
                result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
            else:
                result = call_tool(impl, call.function.name, args)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_agent_streaming_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_agent_streaming answers the taxi question with every call streamed (same
answer and steps as chapter 03's loop); a stream cut mid-way is retried and the run still ends
"done"; a reply cut at its token limit stops the run with "STOPPED: length" before any tool runs;
a cut in step 2 retries that call only (the tool runs once); a 400 propagates, not retried; a
stream that keeps failing stops with "STOPPED: stream failed" after retries + 1 requests; a
filtered reply stops with "STOPPED: content_filter"; the step limit."""
import openai

from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
taxi = S.taxi_spending()
llm = wb.fake_llm.FakeLLM(S.streamed(taxi, fragment=8))
with wb.checks.no_raise("run_agent_streaming on the taxi question",
                        hint="each step: with client.chat.completions.stream(...) as stream, then "
                        "stream.get_final_completion()"):
    result = run_agent_streaming(llm.client(max_calls=6), "fake-model", taxi.question, taxi.openai_tools(),
                                 wb.shop.Shop("C-001").tools())
assert wb.checks.kind(result) == "AgentResult", f"return an AgentResult, got {wb.checks.kind(result) or type(result).__name__}"
wb.checks.equal((result.answer, result.status, result.steps), (taxi.answer, "done", 2), "the result")
wb.checks.expect(all(r.get("stream") is True for r in llm.requests),
                 "stream every model call (client.chat.completions.stream(...))")

llm = wb.fake_llm.FakeLLM(S.stream_cut())
shop = wb.shop.Shop("C-001")
with wb.checks.no_raise("run_agent_streaming when the first stream is cut",
                        hint="a cut mid-stream raises openai.APIConnectionError: call the model again"):
    result = run_agent_streaming(llm.client(max_calls=6, max_retries=0), "fake-model", taxi.question,
                                 taxi.openai_tools(), shop.tools())
wb.checks.equal((result.answer, result.status, result.steps), (taxi.answer, "done", 2), "the result after a cut")
wb.checks.equal(llm.calls, 3, "model requests (the cut one, its retry, the answer)")

llm = wb.fake_llm.FakeLLM(S.stream_incomplete())
shop = wb.shop.Shop("C-001")
with wb.checks.no_raise("run_agent_streaming on a reply cut at its token limit",
                        hint='openai.LengthFinishReasonError: return "STOPPED: length", run no tool'):
    result = run_agent_streaming(llm.client(max_calls=4), "fake-model", taxi.question, taxi.openai_tools(),
                                 shop.tools())
wb.checks.equal((result.answer, result.status, result.steps), (None, "STOPPED: length", 1), "a cut reply")
wb.checks.equal(shop.log, [], "tools run from a half-received reply", "never run a call from a reply cut short")

later = S.streamed(taxi, S.StreamPlan(16), S.StreamPlan(16, cut_after=3), fragment=16)  # step 2's is cut
llm, shop = wb.fake_llm.FakeLLM(later), wb.shop.Shop("C-001")
with wb.checks.no_raise("run_agent_streaming when step 2's stream is cut",
                        hint="retry the model call that failed, not the run"):
    result = run_agent_streaming(llm.client(max_calls=6, max_retries=0), "fake-model", taxi.question,
                                 taxi.openai_tools(), shop.tools())
wb.checks.equal((result.status, result.steps, llm.calls), ("done", 2, 3), "(status, steps, requests) after a cut in step 2")
wb.checks.equal(len(shop.log), 1, "tool runs when step 2's stream is cut", "retry the model call, not the run")

refused = S.scripted(S.Fault(400, "Invalid 'messages': empty array.", "invalid_request_error"), tools=("txn_sum",))
llm = wb.fake_llm.FakeLLM(refused)
with wb.checks.raises(openai.BadRequestError, match="empty array", what="run_agent_streaming on a 400"):
    run_agent_streaming(llm.client(max_calls=5, max_retries=0), "fake-model", taxi.question, taxi.openai_tools(), {})
wb.checks.equal(llm.calls, 1, "requests for a 400", "a 400 is the request's fault: let it propagate, do not retry")

always = S.streamed(taxi, *[S.StreamPlan(16, cut_after=2)] * 4, fragment=16)  # every stream is cut
llm, shop = wb.fake_llm.FakeLLM(always), wb.shop.Shop("C-001")
with wb.checks.no_raise("run_agent_streaming when every stream is cut",
                        hint='after retries + 1 failed requests return "STOPPED: stream failed"'):
    result = run_agent_streaming(llm.client(max_calls=6, max_retries=0), "fake-model", taxi.question,
                                 taxi.openai_tools(), shop.tools(), retries=1)
wb.checks.equal((result.answer, result.status, result.steps, llm.calls), (None, "STOPPED: stream failed", 1, 2),
                "(answer, status, steps, requests) when every stream fails, retries=1")

filtered = S.streamed(S.scripted(S.final("I cannot", finish_reason="content_filter")), fragment=4)
llm = wb.fake_llm.FakeLLM(filtered)
with wb.checks.no_raise("run_agent_streaming on a filtered reply",
                        hint='openai.ContentFilterFinishReasonError: return "STOPPED: content_filter"'):
    result = run_agent_streaming(llm.client(max_calls=4), "fake-model", taxi.question, taxi.openai_tools(), {})
wb.checks.equal((result.answer, result.status, result.steps), (None, "STOPPED: content_filter", 1), "a filtered reply")

never = S.streamed(S.never_finishes(), fragment=None)
llm = wb.fake_llm.FakeLLM(never)
with wb.checks.no_raise("run_agent_streaming on a model that never answers",
                        hint='after max_steps model calls return "STOPPED: step limit"'):
    result = run_agent_streaming(llm.client(max_calls=5), "fake-model", "How long does delivery take?",
                                 never.openai_tools(), {"search_kb": lambda query: {"hits": []}}, max_steps=2)
wb.checks.equal((result.answer, result.status, result.steps, llm.calls), (None, "STOPPED: step limit", 2, 2),
                "the step limit (max_steps=2)")
print("run_agent_streaming: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_agent_streaming_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: the same trajectory as the non-streamed loop; an error event and a stall are
retried; a stream that keeps failing stops with "STOPPED: stream failed" after retries + 1
requests; a cut after a tool ran retries only that model call (the tool runs once); a 400 is not
retried; the step limit."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
S = wb.scenarios
taxi = S.taxi_spending()


def run(scenario, cap=10, shop=None, **kwargs):
    llm = wb.fake_llm.FakeLLM(scenario)
    shop = shop or wb.shop.Shop("C-002")
    with wb.checks.no_raise("run_agent_streaming", hint="a stream that fails mid-way (any other openai.APIError) "
                            "is retried as a whole model call; only openai.APIStatusError propagates"):
        r = run_agent_streaming(llm.client(max_calls=cap, max_retries=0, timeout=0.5), "fake-model",
                                scenario.question, scenario.openai_tools(), shop.tools(), **kwargs)
    assert wb.checks.kind(r) == "AgentResult", f"return an AgentResult, got {wb.checks.kind(r) or type(r).__name__}"
    return llm, shop, r


# the same trajectory as chapter 03's loop
two = S.two_orders()
llm, shop, r = run(S.streamed(two, fragment=8), shop=wb.shop.Shop("C-001"))
wb.checks.equal((r.answer, r.status, r.steps), (two.answer, "done", 2), "two orders, streamed")
wb.checks.equal([m["role"] for m in llm.requests[-1]["messages"]], ["user", "assistant", "tool", "tool"],
                "the messages of the second step")

for name in ("stream_overloaded", "stream_stall"):
    llm, shop, r = run(S.get(name))
    wb.checks.equal((r.status, r.steps, llm.calls), ("done", 2, 3), f"{name}: (status, steps, requests)")

always = S.streamed(taxi, *[S.StreamPlan(16, cut_after=2)] * 6, fragment=16)
llm, shop, r = run(always, retries=1)
wb.checks.equal((r.answer, r.status, r.steps, llm.calls), (None, "STOPPED: stream failed", 1, 2),
                "a stream that keeps failing, retries=1")
llm, shop, r = run(always)
wb.checks.equal((r.status, llm.calls), ("STOPPED: stream failed", 3), "the default retries=2")

later = S.streamed(taxi, S.StreamPlan(16), S.StreamPlan(16, cut_after=3), fragment=16)
llm, shop, r = run(later)
wb.checks.equal((r.answer, r.status, r.steps, llm.calls), ("Taxi in September 2026: 1 rides, 9900 KZT.", "done", 2, 3),
                "a cut in step 2")
wb.checks.equal(len(shop.log), 1, "tool runs when step 2's stream is cut", "retry the model call, not the run")

bad = S.scripted(S.Fault(400, "Invalid 'messages': empty array.", "invalid_request_error"), tools=("txn_sum",),
                 question=taxi.question)
llm = wb.fake_llm.FakeLLM(bad)
with wb.checks.raises(Exception, match="empty array", what="run_agent_streaming on a 400"):
    run_agent_streaming(llm.client(max_calls=5, max_retries=0), "m", bad.question, bad.openai_tools(), {})
wb.checks.equal(llm.calls, 1, "requests for a 400", "a 400 is the request's fault: do not retry it")

never = S.streamed(S.never_finishes(), fragment=None)
llm = wb.fake_llm.FakeLLM(never)
r = run_agent_streaming(llm.client(max_calls=5, max_retries=0), "m", "How long does delivery take?",
                        never.openai_tools(), {"search_kb": lambda query: {"hits": []}}, max_steps=3)
wb.checks.equal((r.answer, r.status, r.steps, llm.calls), (None, "STOPPED: step limit", 3, 3), "the step limit")
### END HIDDEN TESTS

# %% [markdown]
# ### Your loop against every fault
#
# Each scripted fault, on the in-process client and over real HTTP (`llm.serve()`), the SDK's own
# retries off: what your `run_agent_streaming` did, how many requests it sent, and how many times
# a tool ran (once is right: the taxi question needs one `txn_sum`).

# %%
def against(name, http):
    """(status, steps, requests, tool runs) of run_agent_streaming on fault `name`."""
    llm, shop = FakeLLM(scenarios.get(name)), Shop("C-001")
    taxi = llm.scenario
    if http:
        with llm.serve() as url:
            r = run_agent_streaming(openai.OpenAI(base_url=url, api_key="k", max_retries=0, timeout=0.5),
                                    "fake-model", taxi.question, taxi.openai_tools(), shop.tools())
    else:
        r = run_agent_streaming(llm.client(max_retries=0, timeout=0.5), "fake-model", taxi.question,
                                taxi.openai_tools(), shop.tools())
    return f"{r.status:16} steps={r.steps} requests={llm.calls} tool runs={len(shop.log)}"


print(f"{'fault':18} {'face':11} what the loop did")
for name in ("stream_cut", "stream_overloaded", "stream_stall", "stream_incomplete"):
    for http in (False, True):
        print(f"{name:18} {'HTTP' if http else 'in-process':11} {against(name, http)}")

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Keying fragments by `id`.** Only a call's first fragment has an `id`; the rest carry just
#   `index`. Keyed by id, the arguments vanish or land on `None`.
# - **Adding a fragment to the call started last.** Nothing promises that one call's fragments
#   all come before the next call's; the `index` says which call a fragment belongs to.
# - **One buffer for all arguments.** Two calls joined into `{"category": "taxi", …}{"category":
#   "food", …}`: not JSON, and neither call runs.
# - **Parsing a fragment.** `json.loads('{"cate')` fails; parse a call once it is complete.
# - **`chunk.choices[0]` on every chunk.** The usage chunk has `choices == []`: `IndexError`.
# - **Routing an Anthropic delta to the latest block** instead of its `index`.
# - **Adding `output_tokens`.** `message_delta` carries the total so far.
# - **Waiting for `response.completed` to show anything.** Then the Responses stream is a slow
#   `create`; the text and the calls so far are in the deltas.
# - **Taking a Responses call as whole at `function_call_arguments.done`.** A reply that ran out
#   of tokens still ends its call (in the fake, with `status: "incomplete"` on its
#   `output_item.done`).
# - **Showing the text at the end.** Then streaming buys nothing: the first token is shown when
#   the last arrives.
# - **Reading on after the budget.** Leave the loop and close the stream: reading on shows what
#   nobody asked for, and an open stream lets the provider go on generating it.
# - **Running a tool from a broken or cut reply.** Only a stream that ended with
#   `finish_reason == "tool_calls"` holds complete calls.
# - **Restarting the run after a tool ran.** Retry the model call that failed, not the steps
#   before it.
# - **Retrying a 400.** A mid-stream failure is worth a retry; a refused request fails the same
#   way again.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("22_streaming")

# %% [markdown]
# ## Live cell (optional)
#
# Your `watch` against a real model: the text appears as the model writes it, and the times are
# real ones (`time.monotonic`). It runs when `LLM_PROVIDER` names a live provider (see chapter 00)
# and is never graded. It shows text only: a model that answers with tool calls instead (the fake
# server's `two_orders`, say) shows nothing, and the cell says so.

# %%
import time

import ipywidgets as widgets
from IPython.display import display

from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    else:
        live_out = widgets.Output()
        display(live_out)
        try:
            live = watch(live_client, live_model, [{"role": "user", "content": "In two sentences: what is an agent loop?"}],
                         live_out.append_stdout, time.monotonic)
        except Exception as e:  # its own text (no key), and whose failure it is: the provider's or your watch's
            print(live_failure(e, "watch"))
        else:
            if live.first_token_s is None:
                print(f"No text came back ({live.status}, after {live.total_s:.2f} s): a model that answers "
                      "with tool calls has nothing to show here.")
            else:
                print(f"first token after {live.first_token_s:.2f} s, total {live.total_s:.2f} s, {live.status}")
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# You can now stream any of the loops in this workbook, on all three APIs. The same ideas carry
# over to what this chapter did not stream (Anthropic's thinking blocks, a Responses reasoning
# summary): accumulate by the position the provider gives, act only on what is complete, and
# retry only what nothing depended on.
