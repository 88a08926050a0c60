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
# # 15 · Why the bill grows: tokens, prices, caching
#
# An agent pays for every token it sends, on every step. Chapter 06 showed the tokens: each step
# resends the whole history, so the prompt grows with the steps and the total grows faster. This
# chapter turns tokens into **money**, and then pulls the three levers that make the bill smaller
# without making the agent worse:
#
# - the provider's **prefix cache**: the head of a prompt that an earlier request already sent is
#   billed at a fraction of the price, but only if that head is byte for byte the same;
# - a **budget in money** that stops a run before it overspends, not after;
# - **routing**: easy questions go to a cheap model, hard ones to an expensive one.
#
# **Learning goals.** After this chapter you can
# - read a response's `usage` in each provider's shape (OpenAI, DeepSeek, Anthropic, Ollama) and
#   say which numbers include which — reasoning tokens included;
# - price a call from a price table given per million tokens, with cached input (and Anthropic's
#   cache writes) priced apart;
# - lay out a prompt so its prefix stays stable (system prompt and tools first and unchanged, the
#   date after them) and measure the cache hit rate it earns against a timestamp at the top;
# - stop a run in money: check the worst case of the next call *before* making it;
# - send easy questions to a cheaper model (`pick_model`) and measure what it saves and what it
#   costs.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop), 06 · Limits and stopping (tokens grow
# every step; a token budget), 10 · Real providers (DeepSeek's and Anthropic's faces). What you
# need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 03–06
#
# `AgentResult`, `call_tool` and `tool_message` are chapter 06's. `run_agent` is chapter 03's loop
# on the `messages` and `tools` given (so a layout can build them), appending every turn to
# `messages`; it also collects each step's `usage` as a plain dict, which this chapter prices.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_06", "locked": true, "schema_version": 3, "solution": false}
import datetime
import itertools
import json
import re
from dataclasses import dataclass, field

import matplotlib.pyplot as plt

from workbook import scenarios
from workbook.fake_llm import FakeLLM, anthropic_tools, prompt_tokens
from workbook.prices import PRICES
from workbook.shop import Shop

billing = scenarios.billing  # this chapter's scenarios: a support desk and three routing models


@dataclass
class AgentResult:
    """How a run ended."""

    answer: str | None  # the model's final text; None when the run was stopped
    status: str  # "done", or a stop status such as "STOPPED: step limit"
    steps: int  # how many times the model was called
    usages: list = field(default_factory=list)  # each step's usage, as a plain dict


#@include 03_openai_format call_tool


#@include 06_limits tool_message


def run_agent(client, model, messages, tools, impl, max_steps=10):
    """Chapter 03's loop on the messages given; every turn is appended to `messages`."""
    usages = []
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        usages.append(response.usage.model_dump())
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return AgentResult(message.content, "done", step, usages)
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return AgentResult(None, "STOPPED: step limit", max_steps, usages)


# %% [markdown]
# ## Part 1 · Where the tokens go
#
# The shop's support desk has a real system prompt this time: the rules of the shop, the tools,
# the tone, a few examples, some 3,500 characters. With the four tool definitions that is over a
# thousand tokens **before the customer has said a word**, and every step sends it again. Here is
# a budgeting task that takes seven steps (six tool calls and the answer):

# %%
desk = billing.desk()
print(billing.TASK)
messages = [{"role": "system", "content": billing.SYSTEM}, {"role": "user", "content": billing.TASK}]
result = run_agent(FakeLLM(desk).client(), "gpt-5-mini", messages, desk.openai_tools(), Shop().tools())
print(result.status, "|", result.answer, "\n")
print(f"{'step':>4} {'prompt':>7} {'cached':>7} {'completion':>11} {'of it reasoning':>16}")
for step, usage in enumerate(result.usages, 1):
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    print(f"{step:>4} {usage['prompt_tokens']:>7} {cached:>7} {usage['completion_tokens']:>11} {reasoning:>16}")

# %% [markdown]
# Three things to read in that table:
#
# - **prompt** grows every step (the history), but most of it is the same head: the system prompt
#   and the tools;
# - **cached** is the part of the prompt the provider had already seen in an earlier request: from
#   step 2 on, nearly all of it;
# - **completion** is the model's output, and on `gpt-5-mini` most of it is **reasoning**: tokens
#   the model thinks before it answers, billed as output, never shown in the reply's text, and
#   reported apart in `usage.completion_tokens_details.reasoning_tokens`. The visible words are
#   a third of each step's completion here.
#
# So which part is most of the bill depends on the model. Without a cache, the resent prompt
# dominates an agent's bill. With the cache (below) the prompt becomes cheap, and on a reasoning
# model output — mostly reasoning, at eight times the input price on `gpt-5-mini` — can cost as
# much as the whole prompt or more. `gpt-5-mini`, like `gpt-5` and the o-series, reasons by
# default (`reasoning_effort="medium"`); `gpt-5.1` and later default to `"none"`, and
# `reasoning_effort` (`"minimal"`, `"low"`, `"medium"`, `"high"`; `"none"` from `gpt-5.1` on)
# sets how much a call may think. A model that does not reason refuses the parameter with a 400.
#
# The fake's reasoning rule is its own, published so you can predict it: a reasoning model's
# reasoning tokens are a factor times its visible completion tokens — 0 for `"none"` and
# `"minimal"`, 1 for `"low"`, 2 for `"medium"`, 4 for `"high"`. Real models vary from call to
# call, and often think for ten times the answer or more.
#
# ### The fake's token and cache rules
#
# The fake counts tokens by one published rule (chapter 06): a message costs
# `ceil(len(compact JSON) / 4) + 3`, the tool definitions `ceil(len(compact JSON) / 4)`, and a
# prompt 3 more. `prompt_tokens(messages, tools)` computes it, so you can count a request before
# you send it:

# %%
print(prompt_tokens(messages[:2], desk.openai_tools()), "tokens in the first request")

# %% [markdown]
# Its prefix cache follows one rule too, modelled on how OpenAI and DeepSeek describe theirs. The
# request is read as one text: the tool definitions, then each message in order. The part shared
# with **any earlier request** to the same provider, counted from the first character, is the
# shared prefix. If it is under 1024 tokens nothing is cached; above that, it is cached in whole
# blocks of 128 tokens. So the cache only works if the **start** of the prompt repeats exactly:
# one changed character near the top, and everything after it is a miss.
#
# Real providers (sources and dates in docs/SOURCES.md):
#
# - **OpenAI** caches prompts of 1024 tokens or more automatically, and says to put static
#   content (instructions, examples, tools) first and variable content last. On the models this
#   chapter prices (`gpt-5-mini`, `gpt-5.4`) a hit covers the prefix in 128-token steps and
#   writing the cache is free. From the **GPT-5.6** family on, a cache write costs 1.25× the
#   input price and is reported in `prompt_tokens_details.cache_write_tokens` (part of
#   `prompt_tokens`, like `cached_tokens`), and you can also place explicit breakpoints.
# - **DeepSeek** caches repeated prefixes automatically.
# - **Anthropic** caches at `cache_control` breakpoints: on the blocks you mark, or, with one
#   `cache_control` at the top level of the request (automatic caching), at the last block. A
#   prefix shorter than the **model's minimum** is not cached at all, silently: the minimum is
#   set per model, **4096 tokens on Claude Haiku 4.5** (the course's Claude model, a legacy model
#   that is still served) and on Opus 4.5, 4.6 and 4.7, 2048 on Haiku 3 and 3.5, 1024 on Sonnet
#   4.5 and Opus 4.8: look up the model you use (docs/SOURCES.md lists them, with their sources).
#   A breakpoint lives 5 minutes; `"cache_control": {"type": "ephemeral", "ttl": "1h"}` keeps it
#   an hour, at a dearer write, and the usage says which TTL each written token went to.
#
# The fake follows each Claude model's minimum, and uses 1024 on the other faces.
#
# ### One request, four ways to report it
#
# Every provider reports usage, each in its own shape. The same first question, sent twice to the
# same provider so the second time can hit the cache:

# %%
question = next(iter(billing.QUESTIONS))
opening = [{"role": "system", "content": billing.SYSTEM}, {"role": "user", "content": question}]
for dialect in ("openai", "deepseek", "ollama"):
    client = FakeLLM(desk, dialect).client()
    for _ in range(2):
        usage = client.chat.completions.create(model="m", messages=opening,
                                               tools=desk.openai_tools()).usage.model_dump()
    print(f"{dialect:9}", {k: v for k, v in usage.items() if v is not None})

# %% [markdown]
# Anthropic's face is a real `anthropic.Anthropic` client; its SDK takes a few seconds to import,
# so it gets a cell of its own:

# %%
import anthropic  # noqa: F401 (imported once, here: the Messages API face below needs it)

claude = FakeLLM(desk).anthropic_client()

# %% [markdown]
# The desk's prompt (tools and system prompt) is some 1,100 tokens: under Claude Haiku 4.5's
# 4096-token minimum. A real desk often sends much more before the question: a catalogue, a
# handbook, many tools. Here is the shop's catalogue, 216 variants, generated so it is the same on
# every run, appended to the system prompt:

# %%
ITEMS = {"Svet desk lamp": 12990, "Svet floor lamp": 24990, "Aral kettle": 9990, "Tien teapot": 6490,
         "green tea, 100 g": 2490, "black tea, 100 g": 2190, "Steppe mug": 1990, "Altai blanket": 18990,
         "Kok cushion": 5990, "Medeu backpack": 15990, "Issyk water bottle": 3990, "Baikonur notebook": 1490}


def rule_of(item):
    if "lamp" in item or "kettle" in item:
        return "12-month warranty, repaired or replaced"
    return "no return once opened" if "tea," in item else "returns within 14 days, unused"


variants = itertools.product(ITEMS.items(), ("white", "black", "green", "sand", "blue", "red"), ("S", "M", "L"))
CATALOGUE = "\n".join(f"- N-{n:03d} {item}, {colour}, size {size}: {price + 500 * 'SML'.index(size)} KZT; "
                      f"{rule_of(item)}" for n, ((item, price), colour, size) in enumerate(variants, 1))
WITH_CATALOGUE = f"{billing.SYSTEM}\n## Catalogue\n{CATALOGUE}\n"
print(CATALOGUE[:250], "...")

# %% [markdown]
# Each prompt twice on `claude-haiku-4-5`, with one breakpoint after the system prompt:

# %%
def ask_claude(client, text, ttl=None, model="claude-haiku-4-5"):
    """One desk question on the Messages API, with a cache breakpoint after the system prompt."""
    mark = {"type": "ephemeral"} | ({"ttl": ttl} if ttl else {})
    return client.messages.create(model=model, max_tokens=300, system=[{"type": "text", "text": text, "cache_control": mark}],
                                  tools=anthropic_tools(desk.openai_tools()),
                                  messages=[{"role": "user", "content": question}]).usage.model_dump()


for name, text in (("desk prompt", billing.SYSTEM), ("with catalogue", WITH_CATALOGUE)):
    for _ in range(2):
        usage = ask_claude(claude, text)
        print(f"{name:15}", {k: v for k, v in usage.items() if v is not None and k != "cache_creation"})

# %% [markdown]
# Read them carefully, because each one counts differently:
#
# | provider | prompt tokens | of which cached | written to the cache |
# |---|---|---|---|
# | OpenAI | `prompt_tokens` (all of them) | `prompt_tokens_details.cached_tokens`, **part of** `prompt_tokens` | `prompt_tokens_details.cache_write_tokens` (GPT-5.6 and later; free before) |
# | DeepSeek | `prompt_tokens` = hit + miss | `prompt_cache_hit_tokens`; the rest is `prompt_cache_miss_tokens` | — |
# | Anthropic | `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens` | `cache_read_input_tokens`, **not part of** `input_tokens` | `cache_creation_input_tokens`, split by TTL in `cache_creation` |
# | Ollama | `prompt_tokens` | no cache fields at all | — |
#
# The desk's 1,100-token prefix is under `claude-haiku-4-5`'s 4096-token minimum: both calls cache
# nothing and pay full price for every token, with no error to say so — check the cache fields,
# not the breakpoint you sent. With the catalogue the prefix is over 5,000 tokens, and
# Anthropic's `input_tokens` becomes only the part **after** the last cache breakpoint: the first
# call writes the tools and the system prompt to the cache (`cache_creation_input_tokens`) and
# counts only the question as `input_tokens`; the second reads the same tokens back
# (`cache_read_input_tokens`). Code written for OpenAI's shape reads Anthropic's few dozen
# `input_tokens` as the whole prompt; code written for Anthropic's shape subtracts OpenAI's cached
# tokens from a total that already contains them. And an Anthropic request without
# `cache_control` caches nothing at all.
#
# A write is reported once more, by how long it lives: `usage["cache_creation"]` splits
# `cache_creation_input_tokens` into `ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`.
# The same catalogue prompt with `"ttl": "1h"`, on a fresh cache:

# %%
usage = ask_claude(FakeLLM(desk).anthropic_client(), WITH_CATALOGUE, ttl="1h")
print(usage["cache_creation_input_tokens"], usage["cache_creation"])

# %% [markdown]
# ### What a language costs: Russian text and `ensure_ascii`
#
# The shop also has its knowledge base in Russian (`agent_files/ru/kb`, searched with
# `kb.search(query, k, lang="ru")`), and the fake plays some scenarios in Russian
# (`scenarios.get("taxi_spending", lang="ru")` is `taxi_spending_ru`). A text costs what its
# tokens cost, so here is the fake's rule (`tokens(obj)`: one token per 4 characters of compact
# JSON) on the same things in both languages: one fact of the shop, the sentence OpenAI used to
# show its tokenizers (with the counts it published), one tool result written two ways, and two
# conversations beside their Russian twins, through this chapter's `run_agent`:

# %%
from workbook import kb
from workbook.fake_llm import tokens

english, russian = kb.search("opened tea", 1)[0], kb.search("вскрытый чай", 1, lang="ru")[0]
# OpenAI's sentence and its published counts: the previous tokenizer, GPT-4o's (docs/SOURCES.md)
SAID = {"English": ("Hello, my name is GPT-4o. I'm a new type of language model, it's nice to meet you!", 27, 24),
        "Russian": ("Привет, меня зовут GPT-4o. Я — новая языковая модель, приятно познакомиться!", 39, 23)}
print(f"{'':22}{'characters':>11}{'tokens':>8}")
for name, text in (("English page", english.text), ("Russian page", russian.text)):
    print(f"{name:22}{len(text):>11}{tokens(text):>8}")
for name, (text, old_count, new_count) in SAID.items():
    print(f"{name + ' sentence':22}{len(text):>11}{tokens(text):>8}   OpenAI's count: {old_count} before GPT-4o, "
          f"{new_count} on it")
hit = {"source": russian.source, "section": russian.section, "text": russian.text}  # a tool result
for ensure_ascii in (True, False):
    content = json.dumps(hit, ensure_ascii=ensure_ascii)
    print(f"{f'ensure_ascii={ensure_ascii}':22}{len(content):>11}{tokens(content):>8}   {content[42:74]}…")
print()
for name in ("taxi_spending", "two_orders"):
    for lang in ("en", "ru"):
        sc = scenarios.get(name, lang=lang)
        run = run_agent(FakeLLM(sc).client(), "gpt-4.1-mini", [{"role": "user", "content": sc.question}],
                        sc.openai_tools(), Shop().tools())
        used = sum(u["prompt_tokens"] + u["completion_tokens"] for u in run.usages)
        print(f"{sc.name:22}{used:>5} tokens in {run.steps} calls   {run.answer}")

# %% [markdown]
# Under the fake's rule a token is four characters in any script, so a Russian text costs what its
# length costs: here about what the English costs, since these Russian texts are a little shorter.
# Real tokenizers count by language. OpenAI's GPT-4o announcement (2024-05-13) counts one sentence
# in 20 languages: the Russian one went from 39 tokens with the previous tokenizer to 23 with
# GPT-4o's, the English one from 27 to 24 — about 1.4 times the English before, about the same
# after. `tiktoken` names the encodings: `cl100k_base` for `gpt-4`, `o200k_base` for `gpt-4o`,
# `gpt-4.1` and `gpt-5`; other providers' tokenizers are their own. One sentence is an example, not
# a rate: a study of many tokenizers on the same texts in many languages found lengths up to 15
# times apart (Petrov et al., NeurIPS 2023). Count your own texts with your provider's tokenizer,
# or read the `usage` it returns.
#
# **`ensure_ascii=False`.** `json.dumps` escapes every character outside ASCII unless told not to:
# each Cyrillic letter becomes six characters (`"Возврат"` is written `"\u0412\u043e…"`). The tool
# result above grows almost four times, and its tokens about four times; the model gets the escapes
# as they are, and a log written that way cannot be read by a person.
# `json.dumps(result, ensure_ascii=False)` keeps the letters, which is why every loop from chapter
# 02 on writes its tool results and logs that way. The fake reads both alike (a JSON parser turns
# the escapes back into letters), so nothing fails: only the bill and the logs show it.

# %% [markdown]
# ## Part 2 · Prices
#
# Providers price tokens **per million**, and a cached token is far cheaper than a fresh one. The
# workbook keeps one price table, `workbook.prices.PRICES`, each row with the page it came from
# and the day it was read (prices change; check before you trust a bill). `gpt-5-mini`, the cheap
# model of this chapter's examples, shuts down on 2026-12-11: its row still prices the fake's runs
# and old logs, and every sum below works the same with its replacement's row.

# %%
print(f"{'model':18}{'input':>8}{'cached':>8}{'write':>8}{'write 1h':>9}{'output':>8}   US$ per million tokens")
for model, p in PRICES.items():
    write, hour = ("-" if p[k] is None else p[k] for k in ("cache_write", "cache_write_1h"))
    print(f"{model:18}{p['input']:>8}{p['cached_input']:>8}{write:>8}{hour:>9}{p['output']:>8}")

# %% [markdown]
# So on `gpt-5-mini` a cached token costs a tenth of a fresh one, on `deepseek-flash` a fiftieth.
# On Anthropic a cached read costs a tenth, but writing the cache costs a quarter **more** than
# plain input (the 5-minute cache; a 1-hour write, `"ttl": "1h"`, costs twice the input price,
# reported in `usage.cache_creation.ephemeral_1h_input_tokens`): caching pays once the prefix is
# read back at least once (twice, for a 1-hour write). The table's `cache_write` is the 5-minute
# price, `cache_write_1h` the 1-hour one. On OpenAI a write costs nothing extra on the models
# priced here (`cache_write` is `-`: a written token is billed as plain input); from GPT-5.6 on it
# costs 1.25× input. An output token costs 8× an input one on `gpt-5-mini`, 6× on `gpt-5.4`, 5× on
# the Claude models and 4× on `deepseek-flash`. (`claude-sonnet-4-5` retired on 2026-11-30: its
# row prices old logs, not a live call; this chapter's Claude model is `claude-haiku-4-5`.)

# %% [markdown]
# ## Exercise 1 — `cost` (5 points)
#
# Write `cost(usage, prices)`, the price in US dollars of one call. `usage` is a response's usage
# as a plain dict (`response.usage.model_dump()`), in one of the shapes of Part 1; `prices` is a
# row of the table (US$ per **million** tokens). Tell the shapes apart by their keys:
#
# - **Anthropic** (`"input_tokens"` in usage): `input_tokens` at `input`,
#   `cache_read_input_tokens` at `cached_input`, `output_tokens` at `output`, and the writes,
#   `cache_creation_input_tokens`, by TTL: the 1-hour ones,
#   `usage["cache_creation"]["ephemeral_1h_input_tokens"]`, at `cache_write_1h`, **the other**
#   writes at `cache_write` (a cache field that is missing or `None` counts 0, and so does a
#   `cache_creation` that is missing or `None`: then every write is a 5-minute one);
# - **DeepSeek** (`usage.get("prompt_cache_hit_tokens")` is not None): `prompt_cache_hit_tokens` at
#   `cached_input`, `prompt_cache_miss_tokens` at `input`, `completion_tokens` at `output`;
# - **OpenAI** (otherwise, `"prompt_tokens"` in usage): the cached tokens are
#   `usage["prompt_tokens_details"]["cached_tokens"]` — `prompt_tokens_details` may be missing or
#   `None` (Ollama), then 0; the tokens written to the cache are
#   `usage["prompt_tokens_details"]["cache_write_tokens"]` (missing or `None`: 0), also **part
#   of** `prompt_tokens`. The cached tokens at `cached_input`, the written ones at `cache_write`
#   — or at `input` when `prices["cache_write"]` is None (a write costs nothing extra there) —,
#   **the other** prompt tokens at `input`, `completion_tokens` at `output`.
#
# Reasoning tokens need no term of their own: they are part of `completion_tokens` (and of
# Anthropic's `output_tokens`) and billed as output.
#
# Return a `float`. A `usage` that is not a dict raises `TypeError`, its message saying that the
# usage must be a `dict`; a dict in none of these shapes raises `ValueError`, its message saying
# that the `usage` has none of the known shapes; Anthropic cache writes whose price is missing or
# None in `prices` raise `ValueError`, its message naming the missing price key: `cache_write`
# for 5-minute writes, `cache_write_1h` for 1-hour ones.
#
# ```python
# cost({"prompt_tokens": 2000, "completion_tokens": 100,
#       "prompt_tokens_details": {"cached_tokens": 1024}}, PRICES["gpt-5-mini"])
#     -> (976 * 0.25 + 1024 * 0.025 + 100 * 2.00) / 1_000_000 = 0.0004696
# cost({"input_tokens": 20, "output_tokens": 100, "cache_creation_input_tokens": 5000,
#       "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000}},
#      PRICES["claude-haiku-4-5"])
#     -> (20 * 1.00 + 5000 * 2.00 + 100 * 5.00) / 1_000_000 = 0.01052
# ```

# %% nbgrader={"grade": false, "grade_id": "cost", "locked": false, "schema_version": 3, "solution": true}
def cost(usage, prices):
    """The price in US$ of one call's usage (any provider's shape), prices per million tokens."""
    ### BEGIN SOLUTION
    if not isinstance(usage, dict):
        raise TypeError(f"cost needs the usage as a dict (response.usage.model_dump()), "
                        f"got {type(usage).__name__}")
    if "input_tokens" in usage:  # Anthropic: input_tokens excludes both cache counts
        read = usage.get("cache_read_input_tokens") or 0
        written = usage.get("cache_creation_input_tokens") or 0
        hour = (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
        if written - hour and prices.get("cache_write") is None:
            raise ValueError("the usage has cache writes but the prices have no cache_write price")
        if hour and prices.get("cache_write_1h") is None:
            raise ValueError("the usage has 1-hour cache writes but the prices have no cache_write_1h price")
        dollars = (usage["input_tokens"] * prices["input"] + read * prices["cached_input"]
                   + (written - hour) * (prices.get("cache_write") or 0)
                   + hour * (prices.get("cache_write_1h") or 0) + usage["output_tokens"] * prices["output"])
    elif usage.get("prompt_cache_hit_tokens") is not None:  # DeepSeek: hit + miss = prompt
        dollars = (usage["prompt_cache_hit_tokens"] * prices["cached_input"]
                   + usage["prompt_cache_miss_tokens"] * prices["input"]
                   + usage["completion_tokens"] * prices["output"])
    elif "prompt_tokens" in usage:  # OpenAI (and Ollama): cached tokens are part of prompt_tokens
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens") or 0
        written = details.get("cache_write_tokens") or 0  # GPT-5.6 and later; free (plain input) before
        write = prices["input"] if prices.get("cache_write") is None else prices["cache_write"]
        dollars = ((usage["prompt_tokens"] - cached - written) * prices["input"] + cached * prices["cached_input"]
                   + written * write + usage["completion_tokens"] * prices["output"])
    else:
        raise ValueError(f"the usage has none of the known shapes (keys: {sorted(usage)})")
    return float(dollars) / 1_000_000
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "cost_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: cost prices the OpenAI shape (cached tokens are part of prompt_tokens, and so are
cache_write_tokens, at cache_write or, without a write price, at input), the DeepSeek shape (hit +
miss), the Anthropic shape (input_tokens excludes cache reads and writes; 5-minute writes at
cache_write, 1-hour writes at cache_write_1h), the Ollama shape (no cache fields), per million
tokens, and reasoning tokens once, inside completion_tokens; a usage in no known shape or Anthropic
writes without their write price is a ValueError, a usage that is not a dict a TypeError."""
from workbook.checks import fresh

wb = fresh()
P = {"input": 1.0, "cached_input": 0.1, "cache_write": 1.25, "cache_write_1h": 2.0, "output": 5.0}


def priced(usage, what):
    with wb.checks.no_raise(f"cost({what} usage, prices)", hint='tell the shapes apart by their keys; a cache field may be missing or None'):
        got = cost(usage, P)
    assert type(got) in (float, int), f"cost must return a number of dollars, got {type(got).__name__}"
    return round(got, 12)


openai_usage = {"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200,
                "prompt_tokens_details": {"cached_tokens": 2048}}
wb.checks.equal(priced(openai_usage, "an OpenAI"), round((952 * 1.0 + 2048 * 0.1 + 200 * 5.0) / 1e6, 12),
                "cost(OpenAI usage: 3000 prompt, 2048 of them cached, 200 completion)",
                hint="cached_tokens are PART of prompt_tokens: price prompt_tokens - cached at input; "
                     "prices are per million tokens")
deepseek_usage = {"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200,
                  "prompt_tokens_details": None, "prompt_cache_hit_tokens": 2048,
                  "prompt_cache_miss_tokens": 952}
wb.checks.equal(priced(deepseek_usage, "a DeepSeek"), round((952 * 1.0 + 2048 * 0.1 + 200 * 5.0) / 1e6, 12),
                "cost(DeepSeek usage: 2048 hit, 952 miss, 200 completion)",
                hint="DeepSeek has no prompt_tokens_details: read prompt_cache_hit_tokens and prompt_cache_miss_tokens")
anthropic_usage = {"input_tokens": 50, "output_tokens": 200, "cache_read_input_tokens": 2048,
                   "cache_creation_input_tokens": 900, "cache_creation": None}
wb.checks.equal(priced(anthropic_usage, "an Anthropic"),
                round((50 * 1.0 + 2048 * 0.1 + 900 * 1.25 + 200 * 5.0) / 1e6, 12),
                "cost(Anthropic usage: 50 input, 2048 read, 900 written, 200 output)",
                hint="input_tokens EXCLUDES cache reads and writes; writes cost cache_write, not input")
ollama_usage = {"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200,
                "prompt_tokens_details": None, "completion_tokens_details": None}
wb.checks.equal(priced(ollama_usage, "an Ollama"), round((3000 * 1.0 + 200 * 5.0) / 1e6, 12),
                "cost(Ollama usage: no cache fields)", hint="prompt_tokens_details may be None: then nothing is cached")
with wb.checks.raises(ValueError, match="usage", what="cost({'tokens': 5}, prices)"):
    cost({"tokens": 5}, P)
with wb.checks.raises(TypeError, match="usage|dict", what="cost(None, prices)"):
    cost(None, P)
with wb.checks.raises(ValueError, match="cache_write|write", what="cost(Anthropic writes, prices without cache_write)"):
    cost(anthropic_usage, dict(P, cache_write=None))
reasoning_usage = {"prompt_tokens": 1000, "completion_tokens": 600, "completion_tokens_details": {"reasoning_tokens": 500},
                   "prompt_tokens_details": {"cached_tokens": 0}}
wb.checks.equal(priced(reasoning_usage, "a reasoning model's"), round((1000 * 1.0 + 600 * 5.0) / 1e6, 12),
                "cost(600 completion tokens, 500 of them reasoning)",
                hint="reasoning tokens are part of completion_tokens: price completion_tokens once, at output")
writes_usage = {"prompt_tokens": 3000, "completion_tokens": 200,
                "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 1536}}
wb.checks.equal(priced(writes_usage, "an OpenAI (GPT-5.6) cache-write"),
                round((440 * 1.0 + 1024 * 0.1 + 1536 * 1.25 + 200 * 5.0) / 1e6, 12),
                "cost(OpenAI usage: 3000 prompt, 1024 cached, 1536 written, 200 completion)",
                hint="cache_write_tokens are PART of prompt_tokens, like cached_tokens: price them at cache_write "
                     "and the rest (prompt - cached - written) at input")
with wb.checks.no_raise("cost(OpenAI cache-write usage, prices with cache_write None)", hint='without a write price the written tokens are plain input: no error'):
    got = round(cost(writes_usage, dict(P, cache_write=None)), 12)
wb.checks.equal(got, round((1976 * 1.0 + 1024 * 0.1 + 200 * 5.0) / 1e6, 12),
                "cost(the same OpenAI usage, prices with cache_write None)",
                hint="without a write price a write costs nothing extra: the written tokens are billed at input")
hour_usage = {"input_tokens": 50, "output_tokens": 200, "cache_read_input_tokens": 2048,
              "cache_creation_input_tokens": 900,
              "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 600}}
wb.checks.equal(priced(hour_usage, "an Anthropic 1-hour-write"),
                round((50 * 1.0 + 2048 * 0.1 + 300 * 1.25 + 600 * 2.0 + 200 * 5.0) / 1e6, 12),
                "cost(Anthropic usage: 900 written, 600 of them to the 1-hour cache)",
                hint="cache_creation.ephemeral_1h_input_tokens are part of cache_creation_input_tokens: "
                     "price them at cache_write_1h and only the rest at cache_write")
with wb.checks.raises(ValueError, match="cache_write_1h|1-hour|1h|hour", what="cost(1-hour writes, prices without cache_write_1h)"):
    cost(hour_usage, dict(P, cache_write_1h=None))
print("cost: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "cost_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: cost on real usage from the fake in every dialect and on the Messages face (a
prefix under claude-haiku-4-5's minimum, and one over it written for 5 minutes and for an hour),
the workbook's price table, zero usage, missing cache fields, OpenAI cache writes with and without a
write price, Anthropic writes without their write price, and bad input."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
B = wb.scenarios.billing
PRICES = wb.prices.PRICES
opening = [{"role": "system", "content": B.SYSTEM}, {"role": "user", "content": next(iter(B.QUESTIONS))}]
tools = B.desk().openai_tools()


def near(a, b, what):
    assert type(a) in (float, int), f"{what}: cost must return a number, got {type(a).__name__}"
    assert abs(a - b) < 1e-12, f"{what}: cost returned {a!r}, expected {b!r}"


for dialect, model in (("openai", "gpt-5-mini"), ("deepseek", "deepseek-flash"), ("ollama", "qwen3:4b")):
    client = wb.fake_llm.FakeLLM(B.desk(), dialect).client()
    for _ in range(2):
        u = client.chat.completions.create(model=model, messages=opening, tools=tools).usage.model_dump()
    p = PRICES[model]
    hit = u.get("prompt_cache_hit_tokens") or (u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    if dialect != "ollama":
        assert hit >= 1024, f"the fake should have cached the prefix ({dialect}): {u}"
    want = ((u["prompt_tokens"] - hit) * p["input"] + hit * p["cached_input"] + u["completion_tokens"] * p["output"]) / 1e6
    near(cost(u, p), want, f"cost of a second {dialect} call priced as {model}")
claude = wb.fake_llm.FakeLLM(B.desk()).anthropic_client()
system = [{"type": "text", "text": B.SYSTEM, "cache_control": {"type": "ephemeral"}}]
p = PRICES["claude-haiku-4-5"]
for turn in range(2):
    u = claude.messages.create(model="claude-haiku-4-5", max_tokens=300, system=system,
                               tools=wb.fake_llm.anthropic_tools(tools),
                               messages=[{"role": "user", "content": opening[1]["content"]}]).usage.model_dump()
    want = (u["input_tokens"] * 1.0 + u["cache_read_input_tokens"] * 0.1 + u["cache_creation_input_tokens"] * 1.25
            + u["output_tokens"] * 5.0) / 1e6
    near(cost(u, p), want, f"cost of Messages call {turn + 1} (claude-haiku-4-5)")
near(cost({"input_tokens": 10, "output_tokens": 1}, p), (10 * 1.0 + 5.0) / 1e6, "cost(Anthropic usage without cache fields)")
near(cost({"input_tokens": 10, "output_tokens": 0, "cache_read_input_tokens": None,
           "cache_creation_input_tokens": None}, PRICES["gpt-5-mini"]), 10 * 0.25 / 1e6,
     "cost(Anthropic usage with None cache fields)")
near(cost({"prompt_tokens": 0, "completion_tokens": 0}, PRICES["gpt-5.4"]), 0.0, "cost(zero usage)")
near(cost({"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000, "prompt_tokens_details": {}}, PRICES["gpt-5.4"]),
     17.5, "cost(a million in and a million out on gpt-5.4)")
near(cost({"prompt_tokens": 2_000_000, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 2_000_000}},
          PRICES["gpt-5-mini"]), 0.05, "cost(two million cached tokens on gpt-5-mini)")
near(cost({"prompt_tokens": 1000, "completion_tokens": 10, "prompt_cache_hit_tokens": 0,
           "prompt_cache_miss_tokens": 1000}, PRICES["deepseek-flash"]), (1000 * 0.30 + 10 * 1.20) / 1e6,
     "cost(DeepSeek usage with no hit)")
with wb.checks.raises(ValueError, match=r"cache_write|write", what="cost(Anthropic writes, OpenAI prices)"):
    cost({"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 2000}, PRICES["gpt-5-mini"])
for bad in (None, [1, 2], "usage"):
    with wb.checks.raises(TypeError, match="usage|dict", what=f"cost({bad!r}, prices)"):
        cost(bad, p)
with wb.checks.raises(ValueError, match="usage", what="cost({}, prices)"):
    cost({}, p)
long_system = B.SYSTEM + "\n## Catalogue\n" + "\n".join(f"- N-{i:03d}: item {i}, {990 + 10 * i} KZT" for i in range(600))
for ttl, field in (("5m", "ephemeral_5m_input_tokens"), ("1h", "ephemeral_1h_input_tokens")):
    fake = wb.fake_llm.FakeLLM(B.desk()).anthropic_client()
    mark = {"type": "ephemeral", "ttl": ttl}
    for turn in range(2):
        u = fake.messages.create(model="claude-haiku-4-5", max_tokens=300,
                                 system=[{"type": "text", "text": long_system, "cache_control": mark}],
                                 tools=wb.fake_llm.anthropic_tools(tools),
                                 messages=[{"role": "user", "content": opening[1]["content"]}]).usage.model_dump()
        if turn == 0:
            assert u["cache_creation"][field] == u["cache_creation_input_tokens"] >= 4096, f"the fake's {ttl} write: {u}"
        write = 2.00 if ttl == "1h" else 1.25
        want = (u["input_tokens"] * 1.0 + u["cache_read_input_tokens"] * 0.1 + u["cache_creation_input_tokens"] * write
                + u["output_tokens"] * 5.0) / 1e6
        near(cost(u, p), want, f"cost of Messages call {turn + 1} with a {ttl} breakpoint on a 5,000-token prefix")
for creation in ({}, None, {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": None}):
    near(cost({"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 100, "cache_creation": creation}, p),
         (10 * 1.0 + 100 * 1.25 + 5.0) / 1e6, f"cost(Anthropic writes with cache_creation={creation!r})")
near(cost({"input_tokens": 10, "output_tokens": 0, "cache_creation_input_tokens": 1000,
           "cache_creation": {"ephemeral_5m_input_tokens": 250, "ephemeral_1h_input_tokens": 750}}, p),
     (10 * 1.0 + 250 * 1.25 + 750 * 2.00) / 1e6, "cost(Anthropic writes split 250 / 750 between the TTLs)")
near(cost({"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 400,
           "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 400}},
          dict(p, cache_write=None)), 400 * 2.00 / 1e6, "cost(only 1-hour writes, prices without a 5-minute write price)")
no_hour = {k: v for k, v in p.items() if k != "cache_write_1h"}
with wb.checks.raises(ValueError, match=r"cache_write_1h|1-hour|1h|hour", what="cost(1-hour writes, prices with no cache_write_1h key)"):
    cost({"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 10,
          "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 10}}, no_hour)
near(cost({"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 10,
           "cache_creation": {"ephemeral_5m_input_tokens": 10, "ephemeral_1h_input_tokens": 0}}, no_hour),
     (1.0 + 10 * 1.25 + 5.0) / 1e6, "cost(5-minute writes, prices with no cache_write_1h key)")
mini, big = PRICES["gpt-5-mini"], PRICES["gpt-5.4"]
writing = dict(big, cache_write=big["input"] * 1.25)  # a row that bills writes, as GPT-5.6 does
u = {"prompt_tokens": 10_000, "completion_tokens": 50,
     "prompt_tokens_details": {"cached_tokens": 4096, "cache_write_tokens": 5120, "audio_tokens": 0}}
near(cost(u, writing), (784 * 2.50 + 4096 * 0.25 + 5120 * 3.125 + 50 * 15.00) / 1e6, "cost(OpenAI writes, writes billed at 1.25x)")
near(cost(u, big), (5904 * 2.50 + 4096 * 0.25 + 50 * 15.00) / 1e6, "cost(OpenAI writes on gpt-5.4: no write price, billed as input)")
near(cost({"prompt_tokens": 2048, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 2048}},
          mini), 2048 * 0.25 / 1e6, "cost(a first gpt-5-mini call that writes its whole prompt)")
near(cost({"prompt_tokens": 2048, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": None,
                                                                                    "cache_write_tokens": None}}, writing),
     2048 * 2.50 / 1e6, "cost(OpenAI usage with None cache fields)")
### END HIDDEN TESTS


# %% [markdown]
# Priced, the seven-step task of Part 1 on `gpt-5-mini`, step by step, with the cache and as it
# would cost without one (every prompt token at the input price):

# %%
def uncached(usage):
    """The same call as if nothing had been cached (OpenAI's shape)."""
    return {"prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"]}


p = PRICES["gpt-5-mini"]
with_cache = [cost(u, p) for u in result.usages]
without = [cost(uncached(u), p) for u in result.usages]
steps = range(1, len(with_cache) + 1)
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(steps, [c * 1e6 for c in without], "o-", color="tab:red", label="no cache")
ax.plot(steps, [c * 1e6 for c in with_cache], "o-", color="tab:green", label="stable prefix, cached")
ax.set_xlabel("step")
ax.set_ylabel("micro-dollars (US$ 1e-6)")
ax.set_title("Cost per step of the budgeting task on gpt-5-mini")
ax.set_ylim(bottom=0)
ax.legend()
plt.show()
print(f"the task: US$ {sum(with_cache):.6f} with the cache, US$ {sum(without):.6f} without "
      f"({1 - sum(with_cache) / sum(without):.0%} less)")

# %% [markdown]
# The first step pays full price (nothing was cached yet); every later one pays a tenth for the
# repeated head. The cache does not make the history shorter — the prompt still grows and still
# fills the context window (chapter 16) — it makes the repeated part cheaper.

# %% [markdown]
# ## Part 3 · A prefix that stays the same
#
# The cache pays only for a prefix that repeats **exactly**. A common way to lose it: the system
# prompt starts with the current time, "so the model knows what day it is". Every run then starts
# with a different first line, and the shared prefix ends after a dozen characters:

# %%
def timestamp_first(system, tools, question, now):
    """A layout that loses the cache: the time at the top of the system prompt."""
    return {"messages": [{"role": "system", "content": f"Now: {now:%Y-%m-%d %H:%M:%S} UTC.\n\n{system}"},
                         {"role": "user", "content": question}],
            "tools": tools}


nine = datetime.datetime(2026, 12, 1, 9, 0)
llm = FakeLLM(desk)
client = llm.client()
for minutes, question in enumerate(list(billing.QUESTIONS)[:3]):
    request = timestamp_first(billing.SYSTEM, desk.openai_tools(), question,
                              nine + datetime.timedelta(minutes=minutes))
    usage = client.chat.completions.create(model="gpt-5-mini", **request).usage
    print(f"{usage.prompt_tokens} prompt tokens, {usage.prompt_tokens_details.cached_tokens} cached")

# %% [markdown]
# The model does need the date (to know whether an order is late), but not at the top. Put
# everything that is the same for every customer first — the **tool definitions**, then the
# **system prompt**, exactly as written — and everything that changes after them: the date goes
# into the user's message, next to the question, which changes anyway.
#
# Tools count as part of the prefix too (they come first in the request). A list built from a
# dict, a set or a plugin registry may come out in another order next time — the same tools, a
# different prefix. Sort them by name and the order cannot drift.

# %% [markdown]
# ## Exercise 2 — `layout` (3 points)
#
# Write `layout(system, tools, question, now)`. It returns the keyword arguments of one request, a
# dict `{"messages": [...], "tools": [...]}` (so `client.chat.completions.create(model=m,
# **layout(...))` sends it), where
#
# - `messages[0]` is `{"role": "system", "content": system}`, the system prompt exactly as given;
# - `messages[1]` is `{"role": "user", "content": f"Current time: {now:%Y-%m-%d %H:%M} UTC\n\n{question}"}`;
# - `tools` is a **new** list of the same definitions sorted by `tool["function"]["name"]`; the
#   list passed in is not changed.
#
# `now` that is not a `datetime.datetime` raises `TypeError`, its message saying that `now` must
# be a `datetime`.
#
# ```python
# layout("Be brief.", [], "Where is A-1001?", datetime.datetime(2026, 12, 1, 9, 5))
#     -> {"messages": [{"role": "system", "content": "Be brief."},
#                      {"role": "user", "content": "Current time: 2026-12-01 09:05 UTC\n\nWhere is A-1001?"}],
#         "tools": []}
# ```

# %% nbgrader={"grade": false, "grade_id": "layout", "locked": false, "schema_version": 3, "solution": true}
def layout(system, tools, question, now):
    """One request's messages and tools: the stable part first, the time after it."""
    ### BEGIN SOLUTION
    if not isinstance(now, datetime.datetime):
        raise TypeError(f"now must be a datetime.datetime, got {type(now).__name__}")
    return {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": f"Current time: {now:%Y-%m-%d %H:%M} UTC\n\n{question}"}],
            "tools": sorted(tools, key=lambda tool: tool["function"]["name"])}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "layout_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: layout puts the system prompt first and unchanged and the time in the user's
message; sorts the tools by name (the same tools in any order give the same request); two
customers' requests a few minutes apart share a cached prefix on the fake; a `now` that is not a
datetime is a TypeError."""
import datetime

from workbook.checks import fresh

wb = fresh()
B = wb.scenarios.billing
T = datetime.datetime(2026, 12, 1, 9, 5, 42)
get = wb.schemas.openai_tools(["get_order"])[0]
txn = wb.schemas.openai_tools(["txn_sum"])[0]
with wb.checks.no_raise("layout('Be brief.', [txn_sum, get_order], ...)", hint='sorted(tools, key=...) returns a new list; only a `now` that is not a datetime raises'):
    got = layout("Be brief.", [txn, get], "Where is A-1001?", T)
assert isinstance(got, dict) and isinstance(got.get("tools"), list), (
    f"layout must return {{'messages': [...], 'tools': [...]}} with the tools as a list; got tools="
    f"{got.get('tools') if isinstance(got, dict) else got!r}. (list.sort() sorts in place and returns None: "
    "use sorted(tools, key=...))")
wb.checks.equal(got, {"messages": [{"role": "system", "content": "Be brief."},
                                   {"role": "user", "content": "Current time: 2026-12-01 09:05 UTC\n\nWhere is A-1001?"}],
                      "tools": [get, txn]},
                "layout('Be brief.', [txn_sum, get_order], 'Where is A-1001?', 09:05:42)",
                hint="system prompt first and unchanged; the time goes into the user's message; tools sorted by name")
with wb.checks.no_raise("layout(..., tools in another order, ...)", hint='sorted(tools, key=...) returns a new list; only a `now` that is not a datetime raises'):
    other = layout("Be brief.", [get, txn], "Where is A-1001?", T)
wb.checks.equal(other, got, "layout with the same tools in another order",
                hint="the same tools must give the same prefix: sort them by name")

desk = B.desk()
client = wb.fake_llm.FakeLLM(desk).client()
usages = []
for minutes, question in enumerate(list(B.QUESTIONS)[:2]):
    request = layout(B.SYSTEM, desk.openai_tools(), question, T + datetime.timedelta(minutes=7 * minutes))
    usages.append(client.chat.completions.create(model="gpt-5-mini", **request).usage)
cached = usages[1].prompt_tokens_details.cached_tokens
assert cached >= 1024, (f"the second customer's request (7 minutes later) should reuse the cached prefix "
                        f"(system prompt and tools), but only {cached} of {usages[1].prompt_tokens} tokens were "
                        "cached: keep everything that changes (the time) out of the system prompt")
with wb.checks.raises(TypeError, match="datetime", what="layout(..., now='2026-12-01')"):
    layout("Be brief.", [], "Hi", "2026-12-01")
print("layout: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "layout_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: layout on the desk's own tools in shuffled orders, midnight and single-digit
times, a system prompt with spaces and new lines kept exactly, no tools, the hit rate over a
morning of questions, and other bad `now` values."""
### BEGIN HIDDEN TESTS
import datetime
import random

from workbook.checks import fresh

wb = fresh()
B = wb.scenarios.billing
desk = B.desk()
tools = desk.openai_tools()
want_names = sorted(t["function"]["name"] for t in tools)
for seed in range(5):
    shuffled = tools[:]
    random.Random(seed).shuffle(shuffled)
    got = layout(B.SYSTEM, shuffled, "Q?", datetime.datetime(2026, 1, 2, 3, 4))
    wb.checks.equal([t["function"]["name"] for t in got["tools"]], want_names, f"tool names after layout (seed {seed})")
    wb.checks.equal(got["tools"], sorted(tools, key=lambda t: t["function"]["name"]), "the tool definitions themselves")
system = "  Be brief.\n\nNever guess.  \n"
got = layout(system, [], "Hi", datetime.datetime(2026, 1, 2, 0, 0, 59))
wb.checks.equal(got, {"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": "Current time: 2026-01-02 00:00 UTC\n\nHi"}],
                      "tools": []}, "layout(a system prompt with spaces, no tools, just after midnight)")
client = wb.fake_llm.FakeLLM(desk).client()
prompt = cached = 0
for i, question in enumerate(B.QUESTIONS):
    request = layout(B.SYSTEM, tools, question, datetime.datetime(2026, 12, 1, 9) + datetime.timedelta(minutes=11 * i))
    u = client.chat.completions.create(model="gpt-5-mini", **request).usage
    prompt, cached = prompt + u.prompt_tokens, cached + u.prompt_tokens_details.cached_tokens
assert cached / prompt > 0.75, f"a morning of first requests with layout should be mostly cached; got {cached}/{prompt}"
for bad in (None, 1764547200, datetime.date(2026, 12, 1)):
    with wb.checks.raises(TypeError, match="datetime", what=f"layout(..., now={bad!r})"):
        layout("x", [], "Hi", bad)
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the tools list it handed layout, so only it can see whether
# that list changed (a grader outside it would have its word only). `tools.sort()` would.
from workbook.probes import in_place

print(in_place(layout, "Be brief.", [{"type": "function", "function": {"name": "txn_sum"}},
                                     {"type": "function", "function": {"name": "get_order"}}],
               "Where is A-1001?", datetime.datetime(2026, 12, 1, 9, 5)))


# %% [markdown]
# ### Measured: a morning at the desk
#
# Seven customers, one every eleven minutes: the six short questions and the budgeting task, each a
# whole run of the loop against one provider. The same runs with each layout:

# %%
class Restamped:
    """A client that puts a fresh timestamp at the top of the system prompt on every call, as a
    loop does that renders its system prompt each step from a template with the clock in it."""

    def __init__(self, client, start):
        self.client, self.now = client, start
        self.chat = self  # so that .chat.completions.create(...) reaches create below
        self.completions = self

    def create(self, messages, **request):
        self.now += datetime.timedelta(seconds=20)  # a step later
        system = {"role": "system", "content": f"Now: {self.now:%Y-%m-%d %H:%M:%S} UTC.\n\n{billing.SYSTEM}"}
        return self.client.chat.completions.create(messages=[system, *messages[1:]], **request)


def morning(make_request, restamp=False, model="gpt-5-mini"):
    """Every question of the morning, one run each on one provider; the usages of every step."""
    client, usages = FakeLLM(desk).client(), []
    for i, question in enumerate([*billing.QUESTIONS, billing.TASK]):
        now = nine + datetime.timedelta(minutes=11 * i)
        request = make_request(billing.SYSTEM, desk.openai_tools(), question, now)
        talk = Restamped(client, now) if restamp else client
        usages += run_agent(talk, model, request["messages"], request["tools"], Shop().tools()).usages
    return usages


def hit_rate(usages):
    """Cached prompt tokens / all prompt tokens (OpenAI's shape)."""
    cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
    return cached / sum(u["prompt_tokens"] for u in usages)


runs = {"stable prefix (layout)": morning(layout), "timestamp first": morning(timestamp_first),
        "timestamp first, every call": morning(timestamp_first, restamp=True)}
print(f"{'layout':28}{'calls':>6}{'prompt':>8}{'cached':>8}{'hit rate':>10}{'US$ (gpt-5-mini)':>18}")
for name, usages in runs.items():
    cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
    print(f"{name:28}{len(usages):>6}{sum(u['prompt_tokens'] for u in usages):>8}{cached:>8}"
          f"{hit_rate(usages):>10.0%}{sum(cost(u, PRICES['gpt-5-mini']) for u in usages):>18.6f}")

# %% [markdown]
# With the timestamp first, each run's first call misses (a new minute, a new prefix); only its own
# later steps hit. Stamped afresh on every call, nothing is ever shared: every step pays full
# price. With the stable layout, every call after the very first finds the tools and the system
# prompt cached — including the first call of each new customer.
#
# The same budgeting task on each provider's face, priced with its own shape and its own model,
# with the stable layout and without any cache (every prompt token at the input price):

# %%
def run_claude(client, model, system, tools, question, impl, cache=True, max_steps=10):
    """The loop on the Messages API (chapter 10), with one cache breakpoint after the system prompt."""
    block = {"type": "text", "text": system} | ({"cache_control": {"type": "ephemeral"}} if cache else {})
    messages, usages = [{"role": "user", "content": question}], []
    for _ in range(max_steps):
        reply = client.messages.create(model=model, max_tokens=300, system=[block], tools=tools,
                                       messages=messages)
        usages.append(reply.usage.model_dump())
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
        calls = [b for b in reply.content if b.type == "tool_use"]
        if not calls:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id,
             "content": json.dumps(call_tool(impl, b.name, b.input), ensure_ascii=False)} for b in calls]})
    return usages


def task_usages(dialect, model):
    request = layout(billing.SYSTEM, desk.openai_tools(), billing.TASK, nine)
    return run_agent(FakeLLM(desk, dialect).client(), model, request["messages"], request["tools"],
                     Shop().tools()).usages


def as_uncached(u):
    """The same call with every prompt token priced as fresh input."""
    if "input_tokens" in u:
        total = u["input_tokens"] + (u["cache_read_input_tokens"] or 0) + (u["cache_creation_input_tokens"] or 0)
        return {"input_tokens": total, "output_tokens": u["output_tokens"]}
    return {"prompt_tokens": u["prompt_tokens"], "completion_tokens": u["completion_tokens"]}


claude_tools = anthropic_tools(sorted(desk.openai_tools(), key=lambda t: t["function"]["name"]))
shapes = {
    "OpenAI": ("gpt-5-mini", task_usages("openai", "gpt-5-mini")),
    "DeepSeek": ("deepseek-flash", task_usages("deepseek", "deepseek-flash")),
    "Anthropic": ("claude-haiku-4-5", run_claude(FakeLLM(desk).anthropic_client(), "claude-haiku-4-5",
                                                 billing.SYSTEM, claude_tools, billing.TASK, Shop().tools())),
    "+catalogue": ("claude-haiku-4-5", run_claude(FakeLLM(desk).anthropic_client(), "claude-haiku-4-5",
                                                  WITH_CATALOGUE, claude_tools, billing.TASK, Shop().tools())),
    "Ollama": ("qwen3:4b", task_usages("ollama", "qwen3:4b")),
}
print(f"{'shape':12}{'model':18}{'steps':>6}{'with cache':>12}{'no cache':>12}{'saved':>7}   US$ per task")
for shape, (model, usages) in shapes.items():
    paid = sum(cost(u, PRICES[model]) for u in usages)
    full = sum(cost(as_uncached(u), PRICES[model]) for u in usages)
    print(f"{shape:12}{model:18}{len(usages):>6}{paid:>12.6f}{full:>12.6f}{(1 - paid / full if full else 0):>7.0%}")

# %% [markdown]
# The saving follows the price of a cached token: a tenth on OpenAI, a fiftieth on DeepSeek. On
# Anthropic the desk's own prefix, some 1,100 tokens, is under Claude Haiku 4.5's 4096-token
# minimum, so the breakpoint caches nothing and the row saves 0%. The `+catalogue` row is the same
# task with the catalogue in the system prompt, over 5,000 tokens: its first step pays 25% **more**
# than plain input to write the cache, every later step reads it at a tenth. (The bill is larger in
# both columns: the catalogue is sent on every step. Caching makes a long prefix cheaper, it does
# not make it free.) Ollama costs nothing per token; its price is your machine's time.

# %% [markdown]
# ## Part 4 · A budget in money
#
# Chapter 06 stopped a run on a **token** budget, checked after each call. Tokens are not money: a
# cached token costs a tenth, an output token four to eight times an input one (eight on
# `gpt-5-mini`), and the same run costs ten times more on one model than on another. And checking *after* a call means the call that
# crosses the budget has already been paid.
#
# A budget you can promise checks **before** each call what that call could cost at most:
#
# - its prompt: `prompt_tokens(messages, tools)` tokens, counted locally (the fake's rule; on a real
#   provider use its tokenizer or token-counting endpoint, and keep a margin), priced as if
#   nothing were cached;
# - its completion: at most `max_out` tokens, because the request says so
#   (`max_completion_tokens=max_out`), priced as output. On a reasoning model that cap counts the
#   reasoning too ("an upper bound … including visible output tokens and reasoning tokens"), so
#   the worst case still holds — but a cap the reasoning uses up leaves **nothing** to say: the
#   reply comes back empty with `finish_reason == "length"`, and you paid for it. Keep `max_out`
#   well above what the model thinks, or lower its `reasoning_effort`.
#
# If what was spent plus that worst case is over the budget, the run stops **without** the call.
# Afterwards the real usage (with its cached discount) is what you add to what was spent.

# %% nbgrader={"grade": false, "grade_id": "given_budget_result", "locked": true, "schema_version": 3, "solution": false}
@dataclass
class BudgetResult:
    """How a run with a budget ended, and what it spent."""

    answer: str | None
    status: str  # "done", "STOPPED: budget" or "STOPPED: step limit"
    steps: int  # model calls made
    spent: float  # US$, the sum of the real calls' costs


# %% [markdown]
# ## Exercise 3 — `run_with_money_budget` (5 points)
#
# Write `run_with_money_budget(client, model, messages, tools, impl, budget, cost_of, max_out=200,
# max_steps=10)`, chapter 03's loop with a budget in US dollars. `cost_of(usage)` prices one usage
# dict (in the notebook it is `lambda u: cost(u, PRICES[model])`). Before each call:
#
# 1. `p = prompt_tokens(messages, tools)`; the worst case of the call is
#    `cost_of({"prompt_tokens": p, "completion_tokens": max_out, "total_tokens": p + max_out})`;
# 2. if `spent + worst > budget`, return `BudgetResult(None, "STOPPED: budget", calls made, spent)`
#    — without calling the model.
#
# Then call `client.chat.completions.create(model=model, messages=messages, tools=tools,
# max_completion_tokens=max_out)`, add `cost_of(response.usage.model_dump())` to `spent`, append
# the assistant turn and run its tool calls (`tool_message`) as `run_agent` does. A reply without
# tool calls ends the run: `BudgetResult(content, "done", calls made, spent)`. After `max_steps`
# calls: `"STOPPED: step limit"`. A `budget` that is not a positive number (`True` is not one)
# raises `ValueError`, its message naming the `budget`.
#
# So `spent` never goes over `budget`, whatever the model does.

# %% nbgrader={"grade": false, "grade_id": "run_with_money_budget", "locked": false, "schema_version": 3, "solution": true}
def run_with_money_budget(client, model, messages, tools, impl, budget, cost_of, max_out=200, max_steps=10):
    """The loop, stopped before any call that could take the spending over `budget` (US$)."""
    ### BEGIN SOLUTION
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0:
        raise ValueError(f"budget must be a positive number of dollars, got {budget!r}")
    spent = 0.0
    for step in range(1, max_steps + 1):
        p = prompt_tokens(messages, tools)
        worst = cost_of({"prompt_tokens": p, "completion_tokens": max_out, "total_tokens": p + max_out})
        if spent + worst > budget:
            return BudgetResult(None, "STOPPED: budget", step - 1, spent)
        response = client.chat.completions.create(model=model, messages=messages, tools=tools,
                                                  max_completion_tokens=max_out)
        spent += cost_of(response.usage.model_dump())
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return BudgetResult(message.content, "done", step, spent)
        for call in message.tool_calls:
            messages.append(tool_message(call, impl))
    return BudgetResult(None, "STOPPED: step limit", max_steps, spent)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "run_with_money_budget_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: run_with_money_budget finishes the task on a large budget and reports what the real
calls cost; sends max_completion_tokens=max_out on every call; never spends more than the budget,
stopping with "STOPPED: budget" before the call that could cross it; stops at max_steps; a budget
of 0 is a ValueError."""
from workbook.checks import fresh

wb = fresh()
B = wb.scenarios.billing
desk = B.desk()


def price(usage):  # US$ 1 per million prompt tokens, 100 per million output tokens
    return (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 100.0) / 1e6


def run(budget, max_out=200):
    llm = wb.fake_llm.FakeLLM(desk)
    seen = []

    def cost_of(usage):
        seen.append(usage)
        return price(usage)

    messages = [{"role": "system", "content": B.SYSTEM}, {"role": "user", "content": B.TASK}]
    with wb.checks.no_raise(f"run_with_money_budget(..., budget={budget})", hint='a budget stop is a status, checked before the call, never an exception'):
        result = run_with_money_budget(llm.client(max_calls=12), "gpt-5-mini", messages, desk.openai_tools(),
                                 wb.shop.Shop().tools(), budget, cost_of, max_out=max_out)
    return result, llm, seen


result, llm, seen = run(1.0)
wb.checks.equal((result.status, result.answer, result.steps), ("done", B.TASK_ANSWER, 7),
                "(status, answer, steps) on a budget of US$ 1")
real = [u for u in seen if "prompt_tokens_details" in u]  # the SDK's usages; the worst cases have none
wb.checks.equal(len(real), 7, "usages of real calls passed to cost_of",
                hint="add cost_of(response.usage.model_dump()) after each call")
assert abs(result.spent - sum(price(u) for u in real)) < 1e-12, (
    f"spent must be the sum of the real calls' costs: {result.spent!r} vs {sum(price(u) for u in real)!r}")
wb.checks.equal([r.get("max_completion_tokens") for r in llm.requests], [200] * 7,
                "max_completion_tokens of each request", hint="the worst case assumes max_out: the request must cap it")
for budget in [0.0195 + 0.001 * i for i in range(25)]:
    result, llm, _ = run(budget)
    assert result.spent <= budget, (f"budget US$ {budget:.4f}: spent US$ {result.spent:.6f}, over the budget. "
                                    "Check the worst case of the next call BEFORE making it, output included")
    if result.status != "done":
        wb.checks.equal(result.status, "STOPPED: budget", f"status on a budget of US$ {budget:.4f}")
        wb.checks.equal(result.steps, len(llm.requests), "steps vs the requests the provider received")
result, llm, _ = run(0.001)
wb.checks.equal((result.status, result.steps, len(llm.requests)), ("STOPPED: budget", 0, 0),
                "(status, steps, requests) when even the first call could cost too much")
with wb.checks.raises(ValueError, match="budget", what="run_with_money_budget(..., budget=0, ...)"):
    run_with_money_budget(wb.fake_llm.FakeLLM(desk).client(max_calls=1), "m", [{"role": "user", "content": "Hi"}],
                    [], {}, 0, price)
with wb.checks.no_raise("run_with_money_budget(..., max_steps=3)", hint="after max_steps calls the status is 'STOPPED: step limit', not an exception"):
    limited = run_with_money_budget(wb.fake_llm.FakeLLM(desk).client(max_calls=4), "gpt-5-mini",
                                    [{"role": "system", "content": B.SYSTEM}, {"role": "user", "content": B.TASK}],
                                    desk.openai_tools(), wb.shop.Shop().tools(), 1.0, price, max_steps=3)
wb.checks.equal((limited.status, limited.steps), ("STOPPED: step limit", 3), "(status, steps) of a run with max_steps=3")
print("run_with_money_budget: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "run_with_money_budget_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: run_with_money_budget with exact stopping points, a budget that allows exactly the worst
case, the step limit, other max_out values, cached prices, the messages kept, and bad budgets."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
B = wb.scenarios.billing
desk = B.desk()
tools = desk.openai_tools()


def price(usage):
    return (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 100.0) / 1e6


def start():
    return [{"role": "system", "content": B.SYSTEM}, {"role": "user", "content": B.TASK}]


def run(budget, max_out=200, max_steps=10, cost_of=price, messages=None, model="gpt-5-mini"):
    llm = wb.fake_llm.FakeLLM(desk)
    messages = start() if messages is None else messages
    result = run_with_money_budget(llm.client(max_calls=12), model, messages, tools, wb.shop.Shop().tools(),
                             budget, cost_of, max_out=max_out, max_steps=max_steps)
    return result, llm, after(messages)


first = price({"prompt_tokens": wb.fake_llm.prompt_tokens(start(), tools), "completion_tokens": 200})
result, llm, _ = run(first)
assert result.steps >= 1 and len(llm.requests) >= 1, "a budget equal to the first call's worst case allows that call"
result, llm, _ = run(first - 1e-9)
wb.checks.equal((result.status, len(llm.requests)), ("STOPPED: budget", 0), "a budget just under the first worst case")
seen = []


def recording(usage):
    seen.append(usage)
    return price(usage)


full, llm, _ = run(1.0, cost_of=recording)
wb.checks.equal(full.status, "done", "status on a budget of US$ 1")
actual = [price(u) for u in seen if "prompt_tokens_details" in u]
worst = [price({"prompt_tokens": wb.fake_llm.prompt_tokens(q["messages"], q["tools"]), "completion_tokens": 200})
         for q in llm.requests]
wb.checks.equal(len(actual), 7, "real usages priced in a 7-step run")
r, llm, _ = run(1.0, max_steps=3)
wb.checks.equal((r.status, r.answer, r.steps, len(llm.requests)), ("STOPPED: step limit", None, 3, 3),
                "a run stopped at max_steps=3")
for k in range(1, 7):  # just enough for the k-th call's worst case: k calls, then a stop
    budget = sum(actual[:k - 1]) + worst[k - 1]
    r, llm, _ = run(budget)
    wb.checks.equal((r.status, r.steps, len(llm.requests)), ("STOPPED: budget", k, k),
                    f"(status, steps, requests) on a budget that covers call {k}'s worst case and no more")
    assert abs(r.spent - sum(actual[:k])) < 1e-12, "spent counts the real calls' costs only"
r, llm, _ = run(1.0, max_out=50, model="gpt-5.4")  # reasons only when asked: 50 leaves room to answer
wb.checks.equal([q.get("max_completion_tokens") for q in llm.requests], [50] * 7, "max_completion_tokens with max_out=50")
cheap = wb.prices.PRICES["gpt-5-mini"]


def cached_price(u):
    c = (u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return ((u["prompt_tokens"] - c) * cheap["input"] + c * cheap["cached_input"] + u["completion_tokens"] * cheap["output"]) / 1e6


r, llm, msgs = run(0.01, cost_of=cached_price)
wb.checks.equal(r.status, "done", "the task on gpt-5-mini prices with a US$ 0.01 budget")
wb.checks.equal(len(msgs), 2 + 7 + 6, "messages after the run (system, task, 7 assistant turns, 6 tool results)")
for bad in (-1, 0.0, None, "1", True):
    with wb.checks.raises(ValueError, match="budget", what=f"run_with_money_budget(..., budget={bad!r})"):
        run(bad)
### END HIDDEN TESTS


# %% [markdown]
# The budgeting task on `gpt-5-mini`, with a budget in cents: where does each budget stop it?

# %%
def priced_as(model):
    return lambda usage: cost(usage, PRICES[model])


print(f"{'budget US$':>11}{'status':>18}{'steps':>6}{'spent US$':>12}")
for budget in (0.0005, 0.0015, 0.0025, 0.0040, 0.0100):
    request = layout(billing.SYSTEM, desk.openai_tools(), billing.TASK, nine)
    r = run_with_money_budget(FakeLLM(desk).client(), "gpt-5-mini", request["messages"], request["tools"],
                        Shop().tools(), budget, priced_as("gpt-5-mini"))
    print(f"{budget:>11.4f}{r.status:>18}{r.steps:>6}{r.spent:>12.6f}")

# %% [markdown]
# The worst case is pessimistic (no cache, a full `max_out` of output), so a run stops a little
# before the last cent. That is the price of a promise: with the check after the call, the run
# that crosses the budget has already been billed. A `STOPPED: budget` is an honest stop status,
# like the step limit: the caller knows the task was not finished and why.

# %% [markdown]
# ## Part 5 · Routing: the cheap model where it is enough
#
# Most support questions are easy: one fact from the rules. A few need several facts and a
# judgement. A small model answers the first kind as well as a large one at a fraction of the
# price, and gets the second kind wrong. **Routing** sends each question to the model it needs.
#
# Who decides which kind a question is? Code can (keywords, length), or a model can: one short
# call to the **cheap** model with a router prompt, answered with one word. The router call costs
# something too, so it must be small: a short prompt, `max_completion_tokens` of a few tokens —
# and, on a reasoning model, little or no reasoning, because the cap counts the reasoning too.
# And when the router says anything but a clear "easy" — "Not easy.", "Not sure", an empty
# reply — the question goes to the strong model: a wrong "hard" costs a few cents, a wrong "easy"
# costs a wrong answer.

# %%
print(billing.ROUTER)
for question in [*billing.EASY, *billing.HARD][:4]:
    reply = FakeLLM(billing.router()).client().chat.completions.create(
        model="gpt-5-mini", messages=[{"role": "system", "content": billing.ROUTER},
                                      {"role": "user", "content": question}])
    print(f"{reply.choices[0].message.content!r:8} <- {question}")

# The same router call with a cap of 5 tokens: at the default effort the reasoning uses the cap up.
for effort in (None, "minimal"):
    reply = FakeLLM(billing.router()).client().chat.completions.create(
        model="gpt-5-mini", max_completion_tokens=5, **({"reasoning_effort": effort} if effort else {}),
        messages=[{"role": "system", "content": billing.ROUTER}, {"role": "user", "content": next(iter(billing.EASY))}])
    print(f"reasoning_effort={effort!s:8} content={reply.choices[0].message.content!r:8} "
          f"finish_reason={reply.choices[0].finish_reason!r:9} "
          f"reasoning_tokens={reply.usage.completion_tokens_details.reasoning_tokens}")

# %% [markdown]
# At the default effort `gpt-5-mini` spends the five tokens thinking and answers nothing, with
# `finish_reason == "length"`: a router that reads "no word" as "strong" then sends **every**
# question to the expensive model, silently. `reasoning_effort="minimal"` leaves the cap to the
# answer. The lowest effort depends on the model: `"minimal"` on `gpt-5-mini` (and `gpt-5`,
# `gpt-5-nano`), `"none"` from `gpt-5.1` on (which refuses `"minimal"` with a 400), `"low"` on the
# o-series. And a model that does not reason (`gpt-4o`, `gpt-4.1-mini`, a local model) takes no
# `reasoning_effort` at all: OpenAI answers 400 "Unrecognized request argument supplied:
# reasoning_effort", so the router must not send one. `lowest_effort(model)`, below, knows the
# families (docs/SOURCES.md, "Reasoning models"): it returns the value to send, or `None` for
# "send none".
#
# ## Exercise 4 — `pick_model` (4 points)
#
# Write `pick_model(client, question, cheap, strong)`. It asks the **cheap** model, once:
#
# ```python
# client.chat.completions.create(model=cheap, max_completion_tokens=5, reasoning_effort=<effort>,
#     messages=[{"role": "system", "content": ROUTER}, {"role": "user", "content": question}])
# ```
#
# where `<effort>` is `lowest_effort(cheap)`; when that is `None` (the cheap model does not
# reason), the request has **no** `reasoning_effort` at all.
#
# and reads the reply's first word (letters only, any case: `" Easy.\n"` reads `easy`): `easy`
# means `cheap`, `hard` means `strong`, and **anything else** (no word, "Not easy.", "Not sure")
# means `strong`. It returns a tuple `(model, usage)`: the model name chosen and the router call's
# `usage` as a dict (`response.usage.model_dump()`), so the caller can price the routing too.

# %%
ROUTER = billing.ROUTER


def lowest_effort(model):
    """The least `reasoning_effort` OpenAI's Chat Completions takes on `model`, or None for a model
    that does not reason (send it no `reasoning_effort`: it answers 400)."""
    name = model.lower().rsplit("/", 1)[-1]
    if "chat" in name:  # gpt-5-chat-latest and the later chat models (sending none is always safe)
        return None
    if re.match(r"gpt-5\.\d", name):  # gpt-5.1 and later, their -mini and -pro too
        return "none"
    if re.match(r"gpt-5-pro", name):  # takes "high" only
        return "high"
    if re.fullmatch(r"gpt-5(-mini|-nano)?(-\d{4}-\d\d-\d\d)?", name):
        return "minimal"
    if re.fullmatch(r"o[134](-mini|-pro)?(-\d{4}-\d\d-\d\d)?", name):  # the o-series
        return "low"
    return None  # gpt-4o, gpt-4.1-mini, a local model: it does not reason


print({m: lowest_effort(m) for m in ("gpt-5-mini", "gpt-5.4-mini", "o4-mini", "gpt-4.1-mini")})


# %% nbgrader={"grade": false, "grade_id": "pick_model", "locked": false, "schema_version": 3, "solution": true}
def pick_model(client, question, cheap, strong):
    """(the model to answer with, the router call's usage): cheap only for a clear 'easy'."""
    ### BEGIN SOLUTION
    messages = [{"role": "system", "content": ROUTER}, {"role": "user", "content": question}]
    effort = lowest_effort(cheap)
    if effort is None:  # a model that does not reason: no reasoning_effort at all
        response = client.chat.completions.create(model=cheap, max_completion_tokens=5, messages=messages)
    else:
        response = client.chat.completions.create(model=cheap, max_completion_tokens=5, messages=messages,
                                                  reasoning_effort=effort)
    words = re.findall(r"[a-z]+", (response.choices[0].message.content or "").lower())
    chosen = cheap if words[:1] == ["easy"] else strong
    return chosen, response.usage.model_dump()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "pick_model_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: pick_model asks the cheap model once with the router prompt, max_completion_tokens=5
and the cheap model's lowest reasoning_effort ("minimal" on gpt-5-mini, so the shop's router can
answer within the cap; "none" on gpt-5.4-mini; none at all on a model that does not reason), picks
the cheap model for a clear "easy" (any case, with punctuation) and the strong one for "hard",
"Not easy." or anything unclear, and returns the router call's usage as a dict."""
from workbook.checks import fresh

wb = fresh()
ROUTER = wb.scenarios.billing.ROUTER  # the test's own copy: a notebook that rebinds ROUTER changes nothing here
S = wb.scenarios


def routed(reply, question="Do you deliver to Astana?"):
    llm = wb.fake_llm.FakeLLM(S.scripted(reply))
    with wb.checks.no_raise(f"pick_model(client, {question!r}, 'small', 'large') with the router saying {reply!r}",
                            hint="'small' does not reason (lowest_effort('small') is None): send it no "
                                 "reasoning_effort, or it answers 400"):
        out = pick_model(llm.client(max_calls=2), question, "small", "large")
    assert type(out) is tuple and len(out) == 2, f"pick_model must return (model, usage), got {out!r}"
    return out, llm


(model, usage), llm = routed("easy")
wb.checks.equal(model, "small", "the model pick_model picks when the router says 'easy'")
wb.checks.equal(len(llm.requests), 1, "router calls per question")
request = llm.requests[0]
wb.checks.equal(request["model"], "small", "the model the router call goes to", hint="ask the CHEAP model to classify")
wb.checks.equal(request["messages"], [{"role": "system", "content": ROUTER},
                                      {"role": "user", "content": "Do you deliver to Astana?"}], "the router call's messages")
assert type(usage) is dict and type(usage.get("prompt_tokens")) is int, (
    f"the second item must be the router call's usage as a dict (response.usage.model_dump()), got {usage!r}")
wb.checks.equal((request.get("max_completion_tokens"), "reasoning_effort" in request), (5, False),
                "(max_completion_tokens, whether the router call to 'small' says reasoning_effort)",
                hint="a tiny cap; and a model that does not reason gets no reasoning_effort at all")
easy = next(iter(wb.scenarios.billing.EASY))
for cheap, effort in [("gpt-5-mini", "minimal"), ("gpt-5.4-mini", "none")]:
    llm = wb.fake_llm.FakeLLM(wb.scenarios.billing.router())
    with wb.checks.no_raise(f"pick_model(client, {easy!r}, {cheap!r}, 'gpt-5.4')",
                            hint=f"send the cheap model's lowest_effort: {effort!r} on {cheap}"):
        model, usage = pick_model(llm.client(max_calls=2), easy, cheap, "gpt-5.4")
    wb.checks.equal(llm.requests[0].get("reasoning_effort"), effort, f"the router call's reasoning_effort on {cheap}",
                    hint="reasoning_effort=lowest_effort(cheap)")
    wb.checks.equal(model, cheap, f"pick_model({easy!r}) with the shop's router on {cheap}",
                    hint="at its default effort gpt-5-mini spends the 5 tokens reasoning and says nothing: "
                         "send reasoning_effort=lowest_effort(cheap)")
for reply, want in [(" Easy.\n", "small"), ("EASY", "small"), ("hard", "large"), ("Hard.", "large"),
                    ("Not easy.", "large"), ("Not sure: it could be either.", "large"), ("", "large")]:
    (model, _), _ = routed(reply)
    wb.checks.equal(model, want, f"the model pick_model picks when the router says {reply!r}",
                    hint="the first word decides; only a clear 'easy' goes to the cheap model")
print("pick_model: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "pick_model_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: pick_model with the billing router on every question and an unknown one, the request's
max_completion_tokens, more replies (easy-going, 'easy or hard', digits, None content), the usage
matching the response, and the lowest effort of more cheap models (o-series, gpt-5.1, plain ones)."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
B = wb.scenarios.billing
S = wb.scenarios
for question in [*B.EASY, *B.HARD, "Tell me a joke about lamps."]:
    llm = wb.fake_llm.FakeLLM(B.router())
    model, usage = pick_model(llm.client(max_calls=2), question, "gpt-5-mini", "gpt-5.4")
    want = "gpt-5-mini" if question in B.EASY else "gpt-5.4"
    wb.checks.equal(model, want, f"pick_model({question!r})")
    wb.checks.equal(llm.requests[0].get("max_completion_tokens"), 5, "max_completion_tokens of the router call")
    wb.checks.equal(usage["prompt_tokens"], wb.fake_llm.prompt_tokens(llm.requests[0]["messages"], None),
                    "the usage's prompt_tokens")
for reply, want in [("easy-going question", "small"), ("easy or hard? easy", "small"), ("hard, not easy", "large"),
                    ("...", "large"), ("\n\nEasy", "small")]:
    llm = wb.fake_llm.FakeLLM(S.scripted(reply))
    model, _ = pick_model(llm.client(max_calls=2), "Q?", "small", "large")
    wb.checks.equal(model, want, f"the model pick_model picks when the router says {reply!r}")
llm = wb.fake_llm.FakeLLM(S.scripted(S.call("get_order", order_id="A-1001")))
model, _ = pick_model(llm.client(max_calls=2), "Q?", "small", "large")
wb.checks.equal(model, "large", "the model pick_model picks when the router answers with no text")
# o4-mini's lowest effort still reasons: its 5 tokens go on thinking, and the fail-safe picks the strong model
for cheap, effort, picked in [("gpt-5-nano", "minimal", "gpt-5-nano"), ("o4-mini", "low", "large"),
                              ("gpt-5.1", "none", "gpt-5.1"), ("gpt-4.1-mini", None, "gpt-4.1-mini"),
                              ("gpt-5-chat-latest", None, "gpt-5-chat-latest")]:
    llm = wb.fake_llm.FakeLLM(S.scripted("easy"))
    model, _ = pick_model(llm.client(max_calls=2), "Q?", cheap, "large")
    wb.checks.equal((model, llm.requests[0].get("reasoning_effort")), (picked, effort),
                    f"(the model picked, the router call's reasoning_effort) with {cheap} as the cheap model")
### END HIDDEN TESTS


# %% [markdown]
# ### Measured: what routing saves
#
# The nine routing questions, answered three ways: everything on the strong model, everything on
# the cheap one, and routed (the router call included in the bill). Both answering models get the
# shop's system prompt, so input is most of each bill, and the cache works for both.

# %%
def answer_all(choose):
    """Answer every routing question; `choose(question)` -> (model, router usage or None)."""
    models = {"gpt-5-mini": FakeLLM(billing.small_model()).client(),
              "gpt-5.4": FakeLLM(billing.large_model()).client()}
    dollars = right = 0
    for question in [*billing.EASY, *billing.HARD]:
        model, router_usage = choose(question)
        if router_usage is not None:
            dollars += cost(router_usage, PRICES["gpt-5-mini"])
        reply = models[model].chat.completions.create(model=model, messages=[
            {"role": "system", "content": billing.SYSTEM}, {"role": "user", "content": question}])
        dollars += cost(reply.usage.model_dump(), PRICES[model])
        right += billing.right(question, reply.choices[0].message.content)
    return dollars, right


router_client = FakeLLM(billing.router()).client()


def reasoning_router(client, question):
    """pick_model's call without reasoning_effort: gpt-5-mini reasons at its default and says nothing."""
    response = client.chat.completions.create(model="gpt-5-mini", max_completion_tokens=5, messages=[
        {"role": "system", "content": ROUTER}, {"role": "user", "content": question}])
    words = re.findall(r"[a-z]+", (response.choices[0].message.content or "").lower())
    return ("gpt-5-mini" if words[:1] == ["easy"] else "gpt-5.4"), response.usage.model_dump()


ways = {"all on gpt-5.4": answer_all(lambda q: ("gpt-5.4", None)),
        "all on gpt-5-mini": answer_all(lambda q: ("gpt-5-mini", None)),
        "routed": answer_all(lambda q: pick_model(router_client, q, "gpt-5-mini", "gpt-5.4")),
        "routed, reasoning left on": answer_all(lambda q: reasoning_router(router_client, q))}
total = len(billing.EASY) + len(billing.HARD)
print(f"{'':20}{'US$':>10}{'right':>8}{'vs all strong':>15}")
for name, (dollars, right) in ways.items():
    print(f"{name:20}{dollars:>10.6f}{right:>5}/{total}{1 - dollars / ways['all on gpt-5.4'][0]:>14.0%}")

# %% [markdown]
# Routing keeps every answer right and pays the strong model only for the three hard questions
# (plus nine tiny router calls on the cheap one). Sending everything to the cheap model saves more
# and gets a third of the answers wrong: a saving that costs customers is not a saving. The last
# row is the same router with reasoning left at its default: every router reply is empty
# (`finish_reason == "length"`), the fail-safe sends every question to the strong model, and the
# run costs *more* than no routing at all — nothing failed, so only the bill shows it. What the router says is cheap to check afterwards
# in your logs (chapter 09): a question the small model answered badly is one for the router's
# examples.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch, except those marked "not graded".
#
# - **Cached tokens counted twice.** On OpenAI `cached_tokens` is part of `prompt_tokens`: charging
#   all of `prompt_tokens` at the input price *and* the cached ones at the cached price bills them
#   twice. The same with DeepSeek: `prompt_tokens` is hit + miss, not the miss.
# - **One provider's shape assumed for all.** Code that reads `prompt_tokens_details` finds no
#   cache on DeepSeek and crashes on Anthropic; code that treats Anthropic's `input_tokens` as the
#   whole prompt misses the cached part, and code that subtracts the cache from it subtracts it
#   twice. Ollama has no `prompt_tokens_details` at all (`None`).
# - **Anthropic cache writes priced as plain input.** A write costs 1.25 × input: caching a prefix
#   that is never read again makes the call dearer, not cheaper. A 1-hour write costs 2 ×: the
#   1-hour part of `cache_creation_input_tokens` (`cache_creation.ephemeral_1h_input_tokens`) is
#   priced at `cache_write_1h`, the rest at `cache_write` — once each, not both.
# - **OpenAI cache writes counted twice, or for free.** `cache_write_tokens`, like
#   `cached_tokens`, is part of `prompt_tokens`: subtract it before pricing the rest at input. On a
#   model with no write price a written token is plain input, not a free one.
# - **A prefix under the model's minimum.** On `claude-haiku-4-5` a breakpoint after 1,100 tokens
#   caches nothing, with no error: read the cache fields of the second call to know.
#   (Not graded: no exercise places a breakpoint.)
# - **Prices per token, not per million.** A million times too much (or too little) is the most
#   common bug in a cost report.
# - **A prefix that changes every call.** A timestamp (or a request id, a random example, the tools
#   in another order) at the top of the prompt makes every request's prefix new: a 0% hit rate at
#   full price. Stable things first, exactly the same; what changes, last.
# - **A budget checked after overspending.** Checking `spent > budget` after the call stops the run
#   one call too late, and a worst case without the output (or without `max_completion_tokens` on
#   the request, so the output has no bound) can still cross it.
# - **A router that fails open.** "Not easy." contains "easy"; an unclear reply must go to the
#   strong model, and the router call itself belongs in the bill.
# - **A tiny cap on a reasoning model.** `max_completion_tokens` counts the reasoning: at the default
#   effort the router's five tokens go on thinking, the reply is empty (`finish_reason ==
#   "length"`), and every question silently goes to the strong model. Lower the effort
#   (`reasoning_effort="minimal"`, or `"none"` from `gpt-5.1` on).
# - **One effort for every model.** `reasoning_effort="minimal"` is a 400 on `gpt-5.1` and later,
#   and any `reasoning_effort` is a 400 on a model that does not reason: send `lowest_effort(cheap)`,
#   and nothing when it is `None`.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("15_why_the_bill_grows")

# %% [markdown]
# ## Live cell (optional)
#
# Your layout and `cost` against a real provider: the same desk question twice, a few seconds
# apart, and what the provider says it cached and what it cost. (A real cache is best effort: the
# second call usually, not always, hits. DeepSeek reports `prompt_cache_hit_tokens`, OpenAI
# `prompt_tokens_details.cached_tokens`.) The price row is looked up by the model's name; a model
# missing from `PRICES` is priced at 0. It runs only when `LLM_PROVIDER` names a live provider
# (see chapter 00) and is never graded. It needs your `layout` and `cost` from the cells above:
# after a restart, run those first.

# %%
import datetime

from workbook.prices import PRICES
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.scenarios import billing

if live_enabled():
    try:
        live_client, live_model = make_client()
        row = PRICES.get(live_model, {"input": 0, "cached_input": 0, "cache_write": 0, "output": 0})
        for attempt in range(2):
            request = layout(billing.SYSTEM, billing.desk().openai_tools(), next(iter(billing.QUESTIONS)),
                             datetime.datetime.now(datetime.UTC))
            response = live_client.chat.completions.create(model=live_model, **request)
            usage = response.usage.model_dump()
            print(attempt + 1, {k: v for k, v in usage.items() if v}, f"US$ {cost(usage, row):.6f}")
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# The cache makes the repeated prefix cheaper, but not shorter: the history still grows every step
# until it no longer fits the context window. Chapter 16 manages the window itself — trimming old
# turns without orphaning a tool call, and compacting them into a summary.
