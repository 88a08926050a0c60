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
# # 17 · Agent memory
#
# Everything an agent knew so far lived in `messages`, the list of one conversation: its
# **short-term memory**. Close the conversation and it is gone. A support agent that should know
# tomorrow that this customer wants deliveries left at the office reception needs **long-term
# memory**: facts written somewhere that outlives the conversation, and read back when they help.
#
# Here the agent gets two tools, `remember(fact)` and `recall(query)` (and `forget(query)` for a
# customer who asks), over a small SQLite table. The model decides *what* is worth remembering and
# *what* to look for. Your code decides everything else: **whose** memory it is (the logged-in
# customer, never an id the model writes), **what may be written** (no card numbers, e-mails or API
# keys, in memory or in the log), **how much** is kept, and that every fact comes back **with its
# date**, so a preference from half a year ago is not taken for today's.
#
# **Learning goals.** After this chapter you can
# - tell short-term memory (the messages of one conversation) from long-term memory (dated facts
#   that outlive it), and say what is worth remembering: short facts, not transcripts;
# - mask card numbers, e-mails and API keys before anything is written to memory or to a log;
# - scrub a message (every string at any depth) before it is written to a trajectory log;
# - store facts in SQLite keyed by the session's customer, dated by a clock you pass in, bounded
#   per customer;
# - rank a customer's facts for a query with BM25 (`workbook.kb.bm25`) and return each with its
#   date and age;
# - bind memory tools to the session so a model cannot read or write another customer's memory,
#   and forget on request;
# - resume a conversation "tomorrow" from memory, on a fake clock.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop), 06 · Limits and stopping (`call_tool`,
# `tool_message`), 07 · What only code decides (identity comes from the session), 09 ·
# Trajectories, checkpoints and a human in the loop (the log). What you need from them is restated
# below as given code.

# %% [markdown]
# ## Given code from chapters 02–06
#
# `AgentResult`, `call_tool` (a tool's result, or `{"error": ...}`; it never raises) and
# `tool_message` are chapter 06's. `run_agent` is chapter 03's loop, taking the opening `messages`
# (so a conversation can start with a system prompt) and appending every turn to them.

# %% nbgrader={"grade": false, "grade_id": "given_chapter_06", "locked": true, "schema_version": 3, "solution": false}
import contextlib
import datetime
import json
import re
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workbook import kb, scenarios
from workbook.fake_llm import FakeLLM


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 06_limits tool_message


#@include 16_context_engineering run_agent


# %% [markdown]
# ## Part 1 · Short-term and long-term memory
#
# Short-term memory is what you have built since chapter 02: `messages`. It is complete (every
# word of the conversation), it costs tokens on every call, and it ends with the conversation.
#
# Long-term memory is the opposite on each count. It keeps **few, short, dated facts** —
# "Deliveries go to the office reception." (2026-11-30) — not transcripts: a transcript is long,
# mostly useless later, and full of things nobody should keep (the card number the customer typed
# while asking for a refund). It is read back **on demand**, by a search, not pasted whole into
# every prompt. And it outlives the conversation, so it needs a store: here one SQLite table.
#
# The model sees three tools. Their definitions take only what the model may choose:

# %%
for tool in scenarios.memory.memory_tools():
    f = tool["function"]
    print(f"{f['name']}({', '.join(f['parameters']['properties'])}): {f['description']}")

# %% [markdown]
# There is no `customer_id` among the parameters, on purpose. Whose memory it is comes from the
# **session** — the login — as in chapter 07. If the tool took a customer id, the model could read
# anyone's memory: all it takes is a customer who asks "what did customer C-002 tell you?", or a
# web page that says so. Here is a model that tries (its first call names C-002):

# %%
scenario = scenarios.recalls_other_customer()
first = FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message.tool_calls[0]
print(first.function.name, first.function.arguments)

# %% [markdown]
# The store is one table in one SQLite file. `open_memory(path)` opens the file at `path` (and
# creates it and the table when they are new). A row is one fact of one customer, with the day it
# was remembered as ISO text (`"2026-11-30"`, which sorts like the dates it names).
#
# The functions you write take the file's **path**, not an open connection: each call opens its own
# connection, commits what it wrote and closes it before it returns, as a web server handling one
# request at a time does. The file is the memory; no connection outlives a call.
# `contextlib.closing` closes the connection however the block ends (a `with sqlite3.connect(...)`
# block alone commits, but does not close).

# %% nbgrader={"grade": false, "grade_id": "given_open_memory", "locked": true, "schema_version": 3, "solution": false}
SCHEMA = """CREATE TABLE IF NOT EXISTS facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    customer TEXT NOT NULL,  -- from the session, never from the model
    day TEXT NOT NULL,       -- the day the fact was remembered, ISO: 2026-11-30
    fact TEXT NOT NULL       -- masked: no card numbers, e-mails or keys
)"""
MAX_FACTS = 20  # per customer: the newest are kept
MAX_FACT_CHARS = 300  # a fact is a sentence, not a transcript


def open_memory(path):
    """A connection to the memory store in the file at `path`, the table created if it is new."""
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    return db


class Calendar:
    """A fake clock for days: `calendar()` is today; `calendar.advance(days)` moves it on."""

    def __init__(self, start):
        self.day = start

    def __call__(self):
        return self.day

    def advance(self, days=1):
        self.day += datetime.timedelta(days=days)


# This notebook's memory files go to a fresh temporary folder, never into the repository.
WORK = Path(tempfile.mkdtemp(prefix="17-memory-"))
with contextlib.closing(open_memory(WORK / "first.sqlite3")) as db:
    db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)",
               ("C-001", "2026-11-30", "Deliveries go to the office reception."))
    db.commit()
    print(db.execute("SELECT id, customer, day, fact FROM facts").fetchall())

# %% [markdown]
# Always pass values as `?` parameters, never by formatting them into the SQL text: a fact is text
# the model wrote, and `"'); DROP TABLE facts; --"` is text too.
#
# ## Part 2 · What must never be written down
#
# Customers type secrets into chats: a card number "so you can check the refund", an e-mail, an
# API key pasted with an error message. A model asked to remember "the details" passes them on
# verbatim:

# %%
scenario = scenarios.stores_card()
asked = FakeLLM(scenario).client().chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": scenario.question}],
    tools=scenario.openai_tools()).choices[0].message.tool_calls[0]
print(asked.function.name, asked.function.arguments)

# %% [markdown]
# Memory is kept for months, read by later conversations, copied into backups. A card number in it
# is a leak waiting to happen (PCI DSS requires a stored card number to be unreadable). The same holds for the
# trajectory log of chapter 09, which records the model's tool calls word for word. So everything
# is **masked before it is written**: each secret is replaced by a label saying what was there.
#
# Regular expressions do it. Three patterns, each with a trap:
#
# - **A card number** is 13 to 19 digits, often written in groups with spaces or dashes
#   (`4111 1111 1111 1111`, `4111-1111-1111-1111`). A pattern for "16 digits in a row" misses
#   the grouped form; a pattern for "any number" masks order ids, amounts and dates, and the
#   memory becomes useless.
# - **An e-mail** is `name@domain.tld`; names may hold `.`, `+`, `-`, domains several dots.
# - **An API key** here is OpenAI's and Anthropic's shape: `sk-` followed by at least 16 letters,
#   digits, `-` or `_` (`sk-proj-…`, `sk-ant-api03-…`).

# %%
print(re.sub(r"\b\d{16}\b", "[card]", "card 4111111111111111 and 4111 1111 1111 1111"))
print(re.sub(r"\d+", "[card]", "order A-1001, 2450 KZT, 2026-11-30"))

# %% [markdown]
# ## Exercise 1 — `mask` (4 points)
#
# Write `mask(text)`. It returns `text` with
#
# - every **card number** — 13 to 19 digits, where a single space or dash may stand between any
#   two digits — replaced by `[card]`;
# - every **e-mail** address replaced by `[email]`;
# - every **API key** — `sk-` at the start of a word, then at least 16 letters, digits, `-` or `_`
#   — replaced by `[key]`;
#
# and everything else unchanged: order ids (`A-1001`), amounts (`2450 KZT`), dates (`2026-11-30`)
# and phone numbers (11 digits) stay. Masking twice changes nothing more. Text that is not a
# string raises `TypeError` with a message that says `mask` needs text.
#
# ```python
# mask("Card 4111 1111 1111 1111, mail ann@example.com")  -> "Card [card], mail [email]"
# mask("Order A-1001 shipped on 2026-11-30.")              -> "Order A-1001 shipped on 2026-11-30."
# ```
#
# Hint: `\b(?:\d[ -]?){12,18}\d\b` reads "a digit, maybe followed by a space or dash, 12 to 18
# times, then a last digit", between word boundaries.

# %% nbgrader={"grade": false, "grade_id": "mask", "locked": false, "schema_version": 3, "solution": true}
def mask(text):
    """The text with card numbers, e-mails and API keys replaced by [card], [email] and [key]."""
    ### BEGIN SOLUTION
    if not isinstance(text, str):
        raise TypeError(f"mask needs text (a str), got {type(text).__name__}")
    text = re.sub(r"\bsk-[A-Za-z0-9_-]{16,}", "[key]", text)
    text = re.sub(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", "[email]", text)
    return re.sub(r"\b(?:\d[ -]?){12,18}\d\b", "[card]", text)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "mask_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: mask replaces a card number (grouped with spaces, with dashes, or in one run),
an e-mail and an API key; leaves order ids, amounts, dates and phone numbers alone; masking twice
changes nothing more; raises TypeError for text that is not a string."""
from workbook.checks import fresh

wb = fresh()


def masked(text):
    with wb.checks.no_raise(f"mask({text[:40]!r})", hint='mask replaces what it finds and returns the text, whatever it holds'):
        got = mask(text)
    assert type(got) is str, f"mask must return a str, got {type(got).__name__}: {got!r}"
    return got


wb.checks.equal(masked("Card 4111 1111 1111 1111, thanks."), "Card [card], thanks.",
                "mask(a card number in groups of four)", hint="a space or dash may stand between two digits")
wb.checks.equal(masked("card 4111-1111-1111-1111"), "card [card]", "mask(a card number with dashes)")
wb.checks.equal(masked("4111111111111111"), "[card]", "mask(16 digits in a row)")
wb.checks.equal(masked("Write to aigerim@example.com please."), "Write to [email] please.", "mask(an e-mail)")
wb.checks.equal(masked("my key is sk-proj-AbC123xyz789LmNoPqRs"), "my key is [key]", "mask(an API key)")
keep = "Order A-1001 (2450 KZT) shipped on 2026-11-30; call +7 701 234 5678."
wb.checks.equal(masked(keep), keep, "mask(text without secrets)",
                hint="order ids, amounts, dates and phone numbers are not card numbers: a card has 13 to 19 digits")
once = masked("Card 4111 1111 1111 1111, ann@example.com, sk-proj-AbC123xyz789LmNoPqRs")
wb.checks.equal(masked(once), once, "mask(mask(text))", hint="masking twice changes nothing more")
with wb.checks.raises(TypeError, match="text", what="mask(42)"):
    mask(42)
print("mask: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "mask_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: mask on several secrets in one text, 13- and 19-digit and Amex-grouped cards,
e-mails with dots, plus signs and subdomains, Anthropic keys, words that only look like keys, 12-
and 11-digit numbers, non-ASCII text, the empty string, masking twice, and None."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


#@include 17_agent_memory masked


for text, want in [
    ("cards 4000 0000 0000 0002 and 5555-5555-5555-4444.", "cards [card] and [card]."),
    ("amex 3782 822463 10005 ok", "amex [card] ok"),
    ("13 digits 4222222222222 here", "13 digits [card] here"),
    ("19 digits 6011000990139424123", "19 digits [card]"),
    ("a.b+shop@mail.example.kz wrote", "[email] wrote"),
    ("keys sk-ant-api03-Zx_9-abcdefghijklmnop and sk-proj-1234567890abcdefXYZ.",
     "keys [key] and [key]."),
    ("Карта 4111 1111 1111 1111, почта aigerim@example.com.", "Карта [card], почта [email]."),
    ("all three: 4111111111111111, x@y.io, sk-abcdefghijklmnopqrst", "all three: [card], [email], [key]"),
]:
    wb.checks.equal(masked(text), want, f"mask({text!r})")
for keep in ["", "a risk-free return", "sk-short is not a key", "id 123456789012 has 12 digits",
             "phone 87012345678", "orders A-1001 and A-1002, 1290 KZT, 2026-09-01 to 2026-09-30",
             "tea@ home"]:
    wb.checks.equal(masked(keep), keep, f"mask({keep!r})")
once = masked("Card 4111 1111 1111 1111, ann@example.com, sk-abcdefghijklmnopqrst")
wb.checks.equal(masked(once), once, "mask(mask(text))", hint="masking twice changes nothing more")
for bad in (None, b"4111111111111111", ["x"]):
    with wb.checks.raises(TypeError, match="mask", what=f"mask({bad!r})"):
        mask(bad)
### END HIDDEN TESTS


# %% [markdown]
# ## Part 3 · Writing a fact: whose, when, how many
#
# `remember` is where the rules of memory live, because it is the only way in:
#
# - **Whose.** The customer is an argument your code passes from the session. The model's text
#   never decides it.
# - **When.** Each fact carries the day it was remembered. The day comes from a clock you pass in
#   (here `today`, a `datetime.date`), never from `datetime.date.today()` inside the function: a
#   test, a replay or "tomorrow" in this chapter needs to set it.
# - **What.** The fact is masked before it is written, stripped, and short (at most
#   `MAX_FACT_CHARS` characters): a model that tries to save a whole transcript gets an error.
# - **How many.** A model that calls `remember` on every turn fills the store without end, and
#   every `recall` then ranks more stale rows. After writing, keep only this customer's
#   `MAX_FACTS` newest facts — **this customer's**: trimming the whole table would let one busy
#   customer erase everyone else's memory.
# - **No duplicates.** The same fact remembered again is not a second row; its day moves to today.
#
# A `DELETE` that keeps the newest rows of one customer:
#
# ```sql
# DELETE FROM facts WHERE customer = ? AND id NOT IN (
#     SELECT id FROM facts WHERE customer = ? ORDER BY day DESC, id DESC LIMIT ?)
# ```

# %% [markdown]
# ## Exercise 2 — `remember` (4 points)
#
# Write `remember(path, customer, fact, today, max_facts=MAX_FACTS)`, where `path` is the memory's
# file. Open it with `open_memory(path)` for this call and close it before you return:
#
# 1. `fact` must be a string that is not blank, at most `MAX_FACT_CHARS` characters once masked and
#    stripped; otherwise raise `ValueError` with a message that names the `fact` and says what to
#    send instead (`call_tool` turns it into an error observation for the model);
# 2. the text written is `mask(fact).strip()` — call your `mask` from Exercise 1;
# 3. if this customer already has exactly that text, update its `day` to `today`; otherwise
#    insert a row `(customer, today.isoformat(), text)`;
# 4. keep only this customer's `max_facts` newest rows (newest by `day`, then by `id`); other
#    customers' rows are never touched;
# 5. `db.commit()`, close the connection, and return `{"remembered": text, "date": today.isoformat()}`.
#
# ```python
# remember(path, "C-001", "Card 4111111111111111 for refunds", datetime.date(2026, 11, 30))
#     -> {"remembered": "Card [card] for refunds", "date": "2026-11-30"}
# ```

# %% nbgrader={"grade": false, "grade_id": "remember", "locked": false, "schema_version": 3, "solution": true}
def remember(path, customer, fact, today, max_facts=MAX_FACTS):
    """Write one masked, dated fact for this customer to the memory file; keep only their max_facts newest."""
    ### BEGIN SOLUTION
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError(f"the fact {fact!r:.40} is empty: send one short sentence to remember")
    text = mask(fact).strip()
    if len(text) > MAX_FACT_CHARS:
        raise ValueError(f"the fact is {len(text)} characters long; remember one short sentence "
                         f"(at most {MAX_FACT_CHARS}), not a transcript")
    day = today.isoformat()
    with contextlib.closing(open_memory(path)) as db:
        found = db.execute("SELECT id FROM facts WHERE customer = ? AND fact = ?", (customer, text)).fetchone()
        if found:
            db.execute("UPDATE facts SET day = ? WHERE id = ?", (day, found[0]))
        else:
            db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)", (customer, day, text))
        db.execute("DELETE FROM facts WHERE customer = ? AND id NOT IN (SELECT id FROM facts WHERE "
                   "customer = ? ORDER BY day DESC, id DESC LIMIT ?)", (customer, customer, max_facts))
        db.commit()
    return {"remembered": text, "date": day}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "remember_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: remember writes one row to the memory file (this customer, today's date, the
fact), commits it and returns {"remembered", "date"}; a card number is masked before it is
written; the same fact again moves its date instead of adding a row; past max_facts only this
customer's oldest facts go; a blank fact, a fact that is not text and one over MAX_FACT_CHARS are
a ValueError, and nothing is written."""
import contextlib
import datetime
import sqlite3

from workbook.checks import fresh
from workbook.link.sqlite_reader import read_rows
from workbook.notebook_side import notebook_folder

wb = fresh()
D = datetime.date
TABLE = ("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
         "day TEXT NOT NULL, fact TEXT NOT NULL)")


def store(folder, name):
    """A new memory file `name` in `folder`: made in memory, then written whole."""
    path = folder / name
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.execute(TABLE)
        path.write_bytes(db.serialize())
    return path


def rows(path, customer=None):
    """The rows another connection sees: what remember committed (read-only, bounded, whatever the file holds)."""
    sql, args = "SELECT customer, day, fact FROM facts ORDER BY id", ()
    if customer:
        sql, args = "SELECT customer, day, fact FROM facts WHERE customer = ? ORDER BY id", (customer,)
    return read_rows(path, sql, args)


def keep(path, customer, fact, today, **options):
    with wb.checks.no_raise(f"remember(path, {customer!r}, {fact[:30]!r}, {today})", hint='remember raises only for a bad fact: blank, not text, or over MAX_FACT_CHARS'):
        return remember(path, customer, fact, today, **options)


with notebook_folder() as folder:
    path = store(folder, "memory.sqlite3")
    PREF = "Prefers delivery to the office reception."
    wb.checks.equal(keep(path, "C-001", PREF, D(2026, 11, 30)), {"remembered": PREF, "date": "2026-11-30"},
                    "remember(...) returns")
    wb.checks.equal(rows(path), [("C-001", "2026-11-30", PREF)], "the rows in the file after one remember",
                    hint="insert (customer, today.isoformat(), fact), then db.commit()")
    keep(path, "C-001", "Card 4111111111111111 for refunds.", D(2026, 11, 30))
    stored = rows(path)[-1][2]
    assert "4111111111111111" not in stored and "[card]" in stored, (
        f"a card number must be masked before it is written: the table holds {stored!r}. Call mask(fact)")
    keep(path, "C-001", PREF, D(2026, 12, 1))
    wb.checks.equal([r for r in rows(path) if r[2] == PREF], [("C-001", "2026-12-01", PREF)],
                    "the rows for a fact remembered twice", hint="the same fact again: update its day, add no row")
    before = rows(path)
    for bad in ("   ", None, "x" * 301):
        with wb.checks.raises(ValueError, match="fact", what=f"remember(path, 'C-001', {bad!r:.20}, today)"):
            remember(path, "C-001", bad, D(2026, 11, 30))
    wb.checks.equal(rows(path), before, "the rows after refused facts",
                    hint="a blank fact, one that is not text, and one over MAX_FACT_CHARS write nothing")

    path = store(folder, "full.sqlite3")
    keep(path, "C-002", "Likes green tea.", D(2026, 1, 1))
    letters = "abcdefghijklmnopqrstuvwxy"
    for i, letter in enumerate(letters):
        keep(path, "C-001", f"Fact {letter}.", D(2026, 11, 1) + datetime.timedelta(days=i), max_facts=20)
    mine = rows(path, "C-001")
    assert len(mine) == 20, f"past max_facts=20 keep only the 20 newest facts of the customer; C-001 has {len(mine)}"
    wb.checks.equal([r[2] for r in mine], [f"Fact {x}." for x in letters[5:]], "C-001's facts after 25 remembers",
                    hint="the oldest go, the newest stay")
    wb.checks.equal(rows(path, "C-002"), [("C-002", "2026-01-01", "Likes green tea.")], "another customer's facts",
                    hint="trim this customer's facts only: another customer's memory is not yours to delete")
print("remember: visible tests passed")


# %% nbgrader={"grade": true, "grade_id": "remember_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: remember strips the fact, refuses non-strings and facts over MAX_FACT_CHARS
without writing, keeps an older fact when a newer one arrives out of order, commits (another
connection sees the row), keeps SQL out of the fact's text, and the same text for two customers
is two rows."""
### BEGIN HIDDEN TESTS
import contextlib
import datetime
import sqlite3

from workbook.checks import fresh
from workbook.link.sqlite_reader import read_rows
from workbook.notebook_side import notebook_folder

wb = fresh()
D = datetime.date
TABLE = ("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
         "day TEXT NOT NULL, fact TEXT NOT NULL)")


#@include 17_agent_memory store


def rows(path):
    return read_rows(path, "SELECT customer, day, fact FROM facts ORDER BY id")


with notebook_folder() as folder:
    path = store(folder, "memory.sqlite3")
    with wb.checks.no_raise("remember(...)", hint='remember raises only for a bad fact: blank, not text, or over MAX_FACT_CHARS'):
        out = remember(path, "C-001", "  Prefers evening calls.  \n", D(2026, 11, 30))
    wb.checks.equal(out, {"remembered": "Prefers evening calls.", "date": "2026-11-30"}, "remember(a fact with spaces)")
    wb.checks.equal(rows(path), [("C-001", "2026-11-30", "Prefers evening calls.")],
                    "the rows another connection sees", hint="db.commit() after writing")
    for bad in (None, 42, "", "x" * 301, ["a fact"]):
        with wb.checks.raises(ValueError, match=r"\S", what=f"remember(path, 'C-001', {bad!r:.20}, today)"):
            remember(path, "C-001", bad, D(2026, 11, 30))
    wb.checks.equal(len(rows(path)), 1, "rows after refused facts", hint="a refused fact writes nothing")
    sneaky = "x'); DELETE FROM facts; --"
    with wb.checks.no_raise("remember(a fact that looks like SQL)", hint='pass values as ? parameters, never in the SQL text'):
        remember(path, "C-001", sneaky, D(2026, 11, 30))
    wb.checks.equal([r[2] for r in rows(path)], ["Prefers evening calls.", sneaky], "facts after a SQL-looking fact",
                    hint="pass values as ? parameters")

    path = store(folder, "more.sqlite3")
    remember(path, "C-001", "Same words.", D(2026, 11, 30))
    remember(path, "C-002", "Same words.", D(2026, 11, 30))
    wb.checks.equal(rows(path), [("C-001", "2026-11-30", "Same words."), ("C-002", "2026-11-30", "Same words.")],
                    "the same fact for two customers")
    for i in range(3):
        remember(path, "C-003", f"Fact {'abc'[i]}.", D(2026, 11, 10 + i), max_facts=3)
    remember(path, "C-003", "Fact old.", D(2026, 1, 1), max_facts=3)  # older than everything kept
    wb.checks.equal([r[2] for r in rows(path) if r[0] == "C-003"], ["Fact a.", "Fact b.", "Fact c."],
                    "C-003's facts after an older fact arrives when full", hint="newest by day, then by id")
    out = remember(path, "C-004", "Refunds to card 5555555555554444 please", D(2026, 2, 3), max_facts=1)
    wb.checks.equal(out, {"remembered": "Refunds to card [card] please", "date": "2026-02-03"},
                    "remember(a fact with a card number)", hint="return the masked text, as written")
### END HIDDEN TESTS


# %% [markdown]
# ## Part 4 · Reading facts back, with their date
#
# `recall(query)` answers with the facts that match best. Chapter 11 searched the help pages with
# BM25; the same scorer ranks any list of texts — `kb.bm25(query, texts)` returns one score per
# text, in order, `0.0` for a text with no word of the query:

# %%
facts = ["Deliveries go to the office reception.", "Likes green tea, 200 g packs.",
         "Asked about the Svet desk lamp warranty."]
print([round(s, 3) for s in kb.bm25("where to deliver my lamp", facts)])
print([round(s, 3) for s in kb.bm25("delivery", facts)])

# %% [markdown]
# ("deliveries" and "delivery" match: `kb.tokens` stems both to the same word; "deliver" does not.)
#
# A fact without its date is dangerous. "Deliveries go to the office reception" was true on the day
# it was said. Six months later the customer may have changed jobs. A model that reads the bare
# sentence treats it as today's truth; a model that reads `{"date": "2026-06-01", "days_ago": 182,
# ...}` can ask first. `resumes_tomorrow` is such a model: it uses a fact at most 90 days old and
# names its date, asks about an older one, and trusts one without a date.

# %% [markdown]
# ## Exercise 3 — `recall` (4 points)
#
# Write `recall(path, customer, query, today, k=3)` (`path` is the memory's file, opened and closed
# as in Exercise 2). It returns a **list** of at most `k` dicts
# `{"date": day, "days_ago": n, "fact": fact}`, best first:
#
# - only **this customer's** facts are searched;
# - each is scored with `kb.bm25(query, [the facts' texts])`; facts scoring `0.0` are left out;
# - best score first; equal scores: the newer `day` first;
# - `days_ago` is `(today - datetime.date.fromisoformat(day)).days`;
# - a `query` that is not a non-blank string raises `ValueError`, its message naming the `query`;
#   a `k` that is not an `int` from 1 to 10 (a `bool` is not one) raises `ValueError`, its
#   message naming `k`.
#
# ```python
# recall(path, "C-001", "delivery", datetime.date(2026, 11, 30))
#     -> [{"date": "2026-06-01", "days_ago": 182, "fact": "Deliveries go to the office reception."}]
# ```

# %% nbgrader={"grade": false, "grade_id": "recall", "locked": false, "schema_version": 3, "solution": true}
def recall(path, customer, query, today, k=3):
    """This customer's k facts in the memory file that best match the query, each with its date and age."""
    ### BEGIN SOLUTION
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"the query {query!r:.40} is empty: send a few words to look for")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 10:
        raise ValueError(f"k must be a whole number from 1 to 10, got {k!r:.20}")
    with contextlib.closing(open_memory(path)) as db:
        found = db.execute("SELECT id, day, fact FROM facts WHERE customer = ?", (customer,)).fetchall()
    scores = kb.bm25(query, [fact for _, _, fact in found])
    ranked = [(score, day, id_, fact) for (id_, day, fact), score in zip(found, scores, strict=True) if score > 0]
    ranked.sort(reverse=True)  # best score first; equal scores: the newer day, then the newer row
    return [{"date": day, "days_ago": (today - datetime.date.fromisoformat(day)).days, "fact": fact}
            for _, day, _, fact in ranked[:k]]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "recall_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: recall returns this customer's matching facts from the memory file as {"date",
"days_ago", "fact"}, ranked by BM25 (not by date; equal scores newest first), at most k of them,
none for a query nothing matches, and never another customer's; a blank query and a k outside 1 to
10 are a ValueError."""
import contextlib
import datetime
import sqlite3

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()
D = datetime.date
TODAY = D(2026, 11, 30)
with notebook_folder() as folder:
    path = folder / "memory.sqlite3"
    with contextlib.closing(sqlite3.connect(":memory:")) as db:  # made here, then written whole
        db.execute("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
                   "day TEXT NOT NULL, fact TEXT NOT NULL)")
        db.executemany("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)", [
            ("C-001", "2026-06-01", "Prefers delivery to the office reception."),
            ("C-001", "2026-11-20", "Asked about the Svet desk lamp warranty."),
            ("C-001", "2026-11-29", "Likes green tea, bought a lamp once."),
            ("C-002", "2026-11-29", "Prefers delivery to the neighbour."),
            ("C-001", "2026-11-02", "Order tea on Mondays."),
            ("C-001", "2026-11-15", "Order tea on Sundays."),
        ])
        db.commit()
        path.write_bytes(db.serialize())

    def look(query, **options):
        with wb.checks.no_raise(f"recall(path, 'C-001', {query!r}, today)", hint='recall raises only for a bad query or k; no match is an empty list'):
            got = recall(path, "C-001", query, TODAY, **options)
        assert type(got) is list, f"recall must return a list, got {type(got).__name__}: {got!r}"
        return got

    wb.checks.equal(look("delivery"), [{"date": "2026-06-01", "days_ago": 182,
                                        "fact": "Prefers delivery to the office reception."}],
                    "recall(path, 'C-001', 'delivery', 2026-11-30)",
                    hint="only this customer's facts, each with its date and days_ago = (today - date).days")
    later = recall(path, "C-001", "delivery", D(2027, 1, 1))
    wb.checks.equal(later[0]["days_ago"] if later and type(later[0]) is dict else later, 214,
                    "days_ago of the same fact recalled on 2027-01-01", hint="days_ago counts from the `today` passed in")
    got = look("lamp warranty", k=2)
    wb.checks.equal([f["fact"] for f in got], ["Asked about the Svet desk lamp warranty.",
                                               "Likes green tea, bought a lamp once."],
                    "the facts recall ranks for 'lamp warranty'", hint="best BM25 score first, not the newest first")
    wb.checks.equal(len(look("lamp", k=1)), 1, "len(recall(..., 'lamp', k=1))")
    wb.checks.equal([f["fact"] for f in look("order on")], ["Order tea on Sundays.", "Order tea on Mondays."],
                    "recall for words two facts match equally", hint="equal scores: the newer day first")
    wb.checks.equal(look("passport"), [], "recall for a query nothing matches", hint="leave out facts scoring 0.0")
    with wb.checks.raises(ValueError, match="query", what="recall(path, 'C-001', '  ', today)"):
        recall(path, "C-001", "  ", TODAY)
    for bad in (0, 11):
        with wb.checks.raises(ValueError, match="k", what=f"recall(path, 'C-001', 'tea', today, k={bad})"):
            recall(path, "C-001", "tea", TODAY, k=bad)
print("recall: visible tests passed")


# %% nbgrader={"grade": true, "grade_id": "recall_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: recall with k=3 by default, ties newest first, days_ago 0 for today, a query of
stop words only, another customer that has only non-matching facts, an empty store, bad queries
and bad k, and plain types."""
### BEGIN HIDDEN TESTS
import contextlib
import datetime
import sqlite3

from workbook.checks import fresh
from workbook.notebook_side import notebook_folder

wb = fresh()
D = datetime.date
TODAY = D(2026, 12, 1)
with notebook_folder() as folder:
    path = folder / "memory.sqlite3"
    db = sqlite3.connect(":memory:")  # the test's copy of the memory file, written whole after each change
    db.execute("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
               "day TEXT NOT NULL, fact TEXT NOT NULL)")
    path.write_bytes(db.serialize())
    with wb.checks.no_raise("recall on an empty store", hint='an empty store recalls [], without an error'):
        wb.checks.equal(recall(path, "C-001", "tea", TODAY), [], "recall on an empty store")
    db.executemany("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)", [
        ("C-001", "2026-11-02", "Order tea on Mondays."),
        ("C-001", "2026-12-01", "Order tea on Fridays."),
        ("C-001", "2026-11-15", "Order tea on Sundays."),
        ("C-001", "2026-10-01", "Order tea on Tuesdays."),
        ("C-009", "2026-12-01", "Wants gift wrapping."),
    ])
    db.commit()
    path.write_bytes(db.serialize())
    db.close()
    got = recall(path, "C-001", "order tea", TODAY)
    wb.checks.equal(got, [{"date": "2026-12-01", "days_ago": 0, "fact": "Order tea on Fridays."},
                          {"date": "2026-11-15", "days_ago": 16, "fact": "Order tea on Sundays."},
                          {"date": "2026-11-02", "days_ago": 29, "fact": "Order tea on Mondays."}],
                    "recall(path, 'C-001', 'order tea', 2026-12-01) with equal scores",
                    hint="k=3 by default; equal scores: the newer day first")
    wb.checks.equal(recall(path, "C-001", "the of and", TODAY), [], "recall for stop words only")
    wb.checks.equal(recall(path, "C-001", "gift wrapping", TODAY), [], "recall of words only C-009's facts have")
    wb.checks.equal(recall(path, "C-001", "TUESDAYS", TODAY, k=10),
                    [{"date": "2026-10-01", "days_ago": 61, "fact": "Order tea on Tuesdays."}], "recall is case-blind")
    for bad in (None, "", 7):
        with wb.checks.raises(ValueError, match=r"\S", what=f"recall(path, 'C-001', {bad!r}, today)"):
            recall(path, "C-001", bad, TODAY)
    for bad in (0, 11, "3", True, 2.5):
        with wb.checks.raises(ValueError, match="k", what=f"recall(..., k={bad!r})"):
            recall(path, "C-001", "tea", TODAY, k=bad)
### END HIDDEN TESTS


# %% [markdown]
# ## Part 5 · Tools bound to the session
#
# `remember` and `recall` take the customer and the day as arguments. The model must not supply
# either. The tools it calls take only `fact` or `query`; the customer and the clock are bound in
# when the session starts — the same closure trick as chapter 07's `make_file_tools(base)`:
#
# ```python
# def memory_tools(path, customer, clock):
#     def remember_tool(fact):
#         return remember(path, customer, fact, clock())
#     ...
# ```
#
# A model that sends `customer_id` anyway calls a Python function with an unexpected keyword, gets
# a `TypeError`, and `call_tool` turns it into an error observation: "unexpected keyword argument
# 'customer_id'". Nothing reaches the store. Read the clock **on every call**, not once when the
# tools are made: a session can run past midnight, and "tomorrow" is the point of memory.
#
# **Forgetting.** A customer may ask you to forget something. Under the GDPR's right to erasure
# (Article 17) you must then erase their personal data without undue delay when one of the
# article's grounds applies — among them: the data are no longer needed for the purpose they were
# kept for, or the customer withdraws the consent they were kept on — unless an exception of
# Article 17(3) applies, such as a legal duty to keep them (invoices for the tax office) or legal
# claims. A delivery preference remembered because the customer asked is the plain case. Laws
# elsewhere give similar rights, each with its own conditions.
# `forget(query)` deletes every fact of this customer that shares a word with the query (a BM25
# score above 0.0): when in doubt, forgetting deletes rather than keeps.

# %% [markdown]
# ## Exercise 4 — `memory_tools` (5 points)
#
# Write `memory_tools(path, customer, clock)` (`path`: the memory's file). It returns a dict with
# exactly the keys `"remember"`, `"recall"` and `"forget"`, the **impl** of the three tools:
#
# - `remember(fact)` returns `remember(path, customer, fact, clock())` (Exercise 2);
# - `recall(query)` returns `recall(path, customer, query, clock())` (Exercise 3);
# - `forget(query)` opens the file, deletes this customer's facts whose `kb.bm25` score for `query`
#   is above 0.0, commits, closes it, and returns `{"forgotten": n}`, the number of facts deleted; a
#   query that is not a non-blank string raises `ValueError`. Other customers' facts are never
#   touched.
#
# Each takes exactly that one parameter: no `customer_id`, no `**kwargs`. `clock()` returns a
# `datetime.date`; call it on every tool call.

# %% nbgrader={"grade": false, "grade_id": "memory_tools", "locked": false, "schema_version": 3, "solution": true}
def memory_tools(path, customer, clock):
    """The impl of remember / recall / forget for one session: memory file, customer and clock bound in."""
    ### BEGIN SOLUTION
    def remember_tool(fact):
        return remember(path, customer, fact, clock())

    def recall_tool(query):
        return recall(path, customer, query, clock())

    def forget_tool(query):
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"the query {query!r:.40} is empty: say what to forget")
        with contextlib.closing(open_memory(path)) as db:
            found = db.execute("SELECT id, fact FROM facts WHERE customer = ?", (customer,)).fetchall()
            scores = kb.bm25(query, [fact for _, fact in found])
            gone = [(id_,) for (id_, _), score in zip(found, scores, strict=True) if score > 0]
            db.executemany("DELETE FROM facts WHERE id = ?", gone)
            db.commit()
        return {"forgotten": len(gone)}

    return {"remember": remember_tool, "recall": recall_tool, "forget": forget_tool}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "memory_tools_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: memory_tools gives remember / recall / forget over the memory file, bound to the
session's customer, reading the clock on every call; a customer_id from the model is a TypeError;
forget deletes this customer's matching facts only, says how many, and refuses a blank query."""
import contextlib
import datetime
import sqlite3

from workbook.checks import fresh
from workbook.link.sqlite_reader import read_rows
from workbook.notebook_side import notebook_folder

wb = fresh()
with notebook_folder() as folder:
    path = folder / "memory.sqlite3"
    with contextlib.closing(sqlite3.connect(":memory:")) as db:  # made here, then written whole
        db.execute("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
                   "day TEXT NOT NULL, fact TEXT NOT NULL)")
        db.commit()
        path.write_bytes(db.serialize())
    today = [datetime.date(2026, 6, 10)]

    def clock():
        return today[0]

    def rows(sql):
        """What another connection sees in the memory file (read-only, bounded)."""
        return read_rows(path, sql)

    with wb.checks.no_raise("memory_tools(path, 'C-001', clock)", hint='memory_tools only binds the path, the customer and the clock'):
        tools = memory_tools(path, "C-001", clock)
        other = memory_tools(path, "C-002", clock)
    assert type(tools) is dict, f"memory_tools must return a dict, got {type(tools).__name__}"
    wb.checks.equal(sorted(tools), ["forget", "recall", "remember"], "the keys of memory_tools(...)")
    with wb.checks.no_raise("the memory tools", hint="each tool takes one argument: fact or query"):
        tools["remember"](fact="Prefers delivery to the office reception.")
        today[0] = datetime.date(2026, 6, 11)
        tools["remember"](fact="Likes green tea.")
        other["remember"](fact="Prefers delivery to the neighbour.")
        recalled = tools["recall"](query="delivery")
    wb.checks.equal(rows("SELECT customer, day FROM facts ORDER BY id"),
                    [("C-001", "2026-06-10"), ("C-001", "2026-06-11"), ("C-002", "2026-06-11")],
                    "(customer, day) of the rows written through the tools",
                    hint="the customer is the session's; call clock() on every tool call, not once")
    assert "office reception" in str(recalled), f"recall(query='delivery') must find the fact; got {recalled!r}"
    for name, args in [("recall", {"query": "delivery", "customer_id": "C-002"}),
                       ("remember", {"fact": "Wants a call.", "customer_id": "C-002"}),
                       ("forget", {"query": "delivery", "customer_id": "C-002"})]:
        with wb.checks.raises(TypeError, match="customer_id", what=f"{name}(**{args})"):
            tools[name](**args)
    with wb.checks.raises(ValueError, match=r"\S", what="forget(query='   ')"):
        tools["forget"](query="   ")
    with wb.checks.no_raise("forget(query='delivery')", hint="forget deletes the customer's matching facts and says how many"):
        out = tools["forget"](query="delivery")
    wb.checks.equal(out, {"forgotten": 1}, "forget(query='delivery')")
    wb.checks.equal(rows("SELECT customer, fact FROM facts ORDER BY id"),
                    [("C-001", "Likes green tea."), ("C-002", "Prefers delivery to the neighbour.")],
                    "the rows after C-001 forgets 'delivery'",
                    hint="delete this customer's facts that match the query (and commit), nothing else")
print("memory_tools: visible tests passed")


# %% nbgrader={"grade": true, "grade_id": "memory_tools_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: the tools take exactly one parameter each, read the clock once per call, survive
a new session on the same file a day later, forget nothing when nothing matches, refuse a blank
query without deleting, commit, and two sessions for one customer share one memory."""
### BEGIN HIDDEN TESTS
import contextlib
import datetime
import inspect
import sqlite3

from workbook.checks import fresh
from workbook.link.sqlite_reader import read_rows
from workbook.notebook_side import notebook_folder

wb = fresh()
TABLE = ("CREATE TABLE facts (id INTEGER PRIMARY KEY AUTOINCREMENT, customer TEXT NOT NULL, "
         "day TEXT NOT NULL, fact TEXT NOT NULL)")
ticks = []


def clock():
    ticks.append(1)
    return datetime.date(2026, 3, 1) + datetime.timedelta(days=len(ticks))


def count(path):
    return read_rows(path, "SELECT COUNT(*) FROM facts")[0][0]


with notebook_folder() as folder:
    path = folder / "memory.sqlite3"
    with contextlib.closing(sqlite3.connect(":memory:")) as db:  # made here, then written whole
        db.execute(TABLE)
        db.commit()
        path.write_bytes(db.serialize())
    tools = memory_tools(path, "C-007", clock)
    made = len(ticks)
    for name, param in [("remember", "fact"), ("recall", "query"), ("forget", "query")]:
        wb.checks.equal(list(inspect.signature(tools[name]).parameters), [param], f"the parameters of {name}",
                        hint="the model may choose only the fact or the query")
    tools["remember"](fact="Works night shifts.")
    tools["remember"](fact="Prefers courier delivery.")
    wb.checks.equal(len(ticks) - made, 2, "clock() calls for two remember calls", hint="read the clock once per call")
    later = memory_tools(path, "C-007", clock)  # tomorrow: a new session on the same file
    assert "night shifts" in str(later["recall"](query="night shift")), "a new session must find yesterday's facts"
    wb.checks.equal(later["forget"](query="passport"), {"forgotten": 0}, "forget(a query nothing matches)")
    for bad in ("", "   ", None):
        with wb.checks.raises(ValueError, match=r"\S", what=f"forget(query={bad!r})"):
            later["forget"](query=bad)
    wb.checks.equal(count(path), 2, "rows after refused forgets")
    second = memory_tools(path, "C-007", clock)
    wb.checks.equal(second["forget"](query="courier night"), {"forgotten": 2}, "forget(two matching facts)")
    wb.checks.equal(count(path), 0, "rows another connection sees after forget", hint="db.commit() after deleting")
with wb.checks.raises(TypeError, match="customer", what="remember(fact=..., customer='C-002')"):
    tools["remember"](fact="x", customer="C-002")
### END HIDDEN TESTS


# %% [markdown]
# ## Part 6 · Today, tomorrow, and half a year later
#
# The whole thing with the loop. The memory is a file (in this notebook's temporary folder); the
# program "restarts" between the days — a new conversation, an empty `messages` — and the fake
# clock moves on. Only the file remembers.

# %%
SYSTEM = ("You are Northwind's support agent. Use remember for lasting preferences the customer "
          "asks you to keep, recall before answering questions they may have told you about, and "
          "forget when they ask. Never store card numbers, e-mails or keys.")


def conversation(scenario, path, customer, calendar):
    """One conversation of `customer` with a fresh `messages`, over the memory in the file at `path`."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": scenario.question}]
    result = run_agent(FakeLLM(scenario).client(), "fake-model", messages, scenario.openai_tools(),
                       memory_tools(path, customer, calendar), max_steps=4)
    return result, messages


memory_file = WORK / "memory.sqlite3"
memory_file.unlink(missing_ok=True)  # running this cell again starts from an empty memory
calendar = Calendar(datetime.date(2026, 11, 30))

result, _ = conversation(scenarios.remembers_preference(), memory_file, "C-001", calendar)
print(calendar(), "|", result.answer)

calendar.advance(1)  # tomorrow: a new process, a new conversation, the same file
result, messages = conversation(scenarios.resumes_tomorrow(), memory_file, "C-001", calendar)
print(calendar(), "|", messages[2]["tool_calls"][0]["function"]["arguments"], "->", messages[3]["content"])
print(calendar(), "|", result.answer)

calendar.advance(200)
result, messages = conversation(scenarios.resumes_tomorrow(), memory_file, "C-001", calendar)
print(calendar(), "|", result.answer)

# %% [markdown]
# Tomorrow the agent knew where the order goes, and said since when. Two hundred days later it
# asked: the fact came back with `days_ago`, and the model could weigh it.
#
# Now the two attacks. A model asking for another customer's memory gets an error observation and
# only then asks for its own; a model storing a card number stores a label.

# %%
with contextlib.closing(open_memory(memory_file)) as db:
    db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)",
               ("C-002", "2026-11-30", "Prefers delivery to the neighbour."))
    db.commit()
result, messages = conversation(scenarios.recalls_other_customer(), memory_file, "C-001", calendar)
for m in messages[2:]:
    if m["role"] == "tool":
        print("tool:", m["content"][:110])
print("answer:", result.answer)

result, messages = conversation(scenarios.stores_card(), memory_file, "C-001", calendar)
with contextlib.closing(open_memory(memory_file)) as db:
    print(db.execute("SELECT customer, day, fact FROM facts WHERE customer = 'C-001'").fetchall())

# %% [markdown]
# ## Part 7 · The log is memory too
#
# Chapter 09 writes every step to a trajectory log, and a log keeps what the model sent, word for
# word — including the card number it passed to `remember`, and the customer's own message. Here is
# the last conversation, written as it is, one JSON line per message:

# %%
log = WORK / "trajectory.jsonl"
log.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages), encoding="utf-8")
text = log.read_text(encoding="utf-8")
print(f"the card number appears {text.count(scenarios.memory.CARD)} times, "
      f"the e-mail {text.count(scenarios.memory.EMAIL)} times")

# %% [markdown]
# Masking the store is not enough. Two quick fixes are wrong:
#
# - **Mask only `content`.** The card number is also inside `tool_calls[0].function.arguments`, the
#   model's own words, one level down.
# - **Mask the finished line.** `mask(json.dumps(message))` looks thorough, but a 16-digit number
#   that is a JSON *number*, not a string (`{"card": 4111111111111111}`, as a tool's result may
#   hold it), becomes `{"card": [card]}` — and the line is no longer JSON. A log that cannot be read
#   back is not a log.

# %%
line = mask(json.dumps({"card": 4111111111111111}))
print(line)
try:
    json.loads(line)
except json.JSONDecodeError as e:
    print("not JSON any more:", e)

# %% [markdown]
# The fix is to mask the **values** before the line is written: every string, at any depth, and
# every whole number that has the length of a card number.
#
# ## Exercise 5 — `scrub` (3 points)
#
# Write `scrub(value)`, which returns a **new** value of the same shape with the secrets masked:
#
# - a `str` becomes `mask(value)` (call your `mask`);
# - an `int` (not a `bool`) with 13 to 19 digits becomes the string `"[card]"`; other numbers stay;
# - a `dict` becomes a new dict with the same keys and each value scrubbed; a `list` or `tuple`
#   becomes a new list of scrubbed items;
# - anything else (`None`, `True`, a float) is returned as it is.
#
# The value passed in is never changed: the log must not rewrite the conversation the model is
# still reading.
#
# ```python
# scrub({"role": "user", "content": "card 4111 1111 1111 1111", "n": [4111111111111111, 42]})
#     -> {"role": "user", "content": "card [card]", "n": ["[card]", 42]}
# ```

# %% nbgrader={"grade": false, "grade_id": "scrub", "locked": false, "schema_version": 3, "solution": true}
def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    ### BEGIN SOLUTION
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return "[card]" if 13 <= len(str(abs(value))) <= 19 else value
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "scrub_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: scrub masks a message's content and the arguments of its tool calls, one level
down, and a card number stored as a JSON number (the result stays JSON); it turns a tuple into a
list, and keeps other numbers, None and booleans."""
import json

from workbook.checks import fresh

wb = fresh()
CARD = "4111111111111111"
message = {"role": "assistant", "content": f"Saving card {CARD}.", "tool_calls": [
    {"id": "call_1", "type": "function",
     "function": {"name": "remember", "arguments": json.dumps({"fact": f"Card {CARD}"})}}]}
with wb.checks.no_raise("scrub(an assistant message)", hint='walk dicts and lists; mask the strings; leave other values as they are'):
    got = scrub(message)
wb.checks.equal(got, {"role": "assistant", "content": "Saving card [card].", "tool_calls": [
    {"id": "call_1", "type": "function",
     "function": {"name": "remember", "arguments": json.dumps({"fact": "Card [card]"})}}]},
    "scrub(an assistant message with a tool call)", hint="scrub every string at any depth, not only content")
result = {"role": "tool", "tool_call_id": "call_1", "card": int(CARD), "rides": 2, "ok": True, "note": None}
with wb.checks.no_raise("scrub(a tool result with numbers)", hint='a card number may be a JSON number: mask its digits as text, leave other numbers as they are'):
    got = scrub(result)
wb.checks.equal(got, {"role": "tool", "tool_call_id": "call_1", "card": "[card]", "rides": 2, "ok": True, "note": None},
                "scrub(a message whose card number is a JSON number)",
                hint="mask values, not the finished line: an int with 13 to 19 digits becomes the string '[card]'")
json.loads(json.dumps(got))
wb.checks.equal(scrub({"pair": (f"card {CARD}", 7)}), {"pair": ["card [card]", 7]}, "scrub(a dict holding a tuple)",
                hint="a list or a tuple becomes a new list of scrubbed items")
print("scrub: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "scrub_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: scrub on nested lists and tuples, keys left alone, 12- and 20-digit numbers,
negative numbers, floats, booleans, empty containers and a plain string."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
CARD = "4111111111111111"
value = {"a": [{"b": (f"x {CARD}", 4222222222222)}, []], CARD: {}, "n": [123456789012, 12345678901234567890,
                                                                          -4111111111111111, 2.5, False, None]}
with wb.checks.no_raise("scrub(a nested value)", hint='walk dicts and lists; mask the string values (keys stay as they are); leave other values as they are'):
    got = scrub(value)
wb.checks.equal(got, {"a": [{"b": ["x [card]", "[card]"]}, []], CARD: {},
                      "n": [123456789012, 12345678901234567890, "[card]", 2.5, False, None]},
                "scrub(a nested value)", hint="keys stay; tuples become lists; only 13 to 19 digits are a card")
wb.checks.equal(scrub(f"card {CARD}"), "card [card]", "scrub(a string)")
wb.checks.equal(scrub(True), True, "scrub(True)")
### END HIDDEN TESTS

# %%
# Not graded: only your kernel holds the message it handed scrub, so only it can see whether that
# message changed (a grader outside it would have its word only).
from workbook.probes import in_place

print(in_place(scrub, {"role": "user", "content": "My card is 4111111111111111.", "parts": [["4111111111111111"]]}))


# %% [markdown]
# With `scrub`, the log writer is one line longer than the careless one:

# %% nbgrader={"grade": false, "grade_id": "given_write_log", "locked": true, "schema_version": 3, "solution": false}
def write_log(path, messages):
    """One JSON line per message, every value scrubbed before it is written."""
    with open(path, "w", encoding="utf-8") as f:
        for message in messages:
            f.write(json.dumps(scrub(message), ensure_ascii=False) + "\n")


# %%
write_log(log, messages)
text = log.read_text(encoding="utf-8")
print(f"the card number appears {text.count(scenarios.memory.CARD)} times, "
      f"the e-mail {text.count(scenarios.memory.EMAIL)} times; "
      f"every line is JSON: {all(json.loads(line) for line in text.splitlines())}")

# %% [markdown]
# ## Part 8 · A first attempt against yours
#
# `naive_memory` is what a first version often looks like: the tools take a `customer_id`
# (defaulting to the logged-in customer, "for convenience"), write what they are sent, never trim,
# and recall bare sentences. The table runs the same scenarios against it and against your
# `memory_tools`.

# %% nbgrader={"grade": false, "grade_id": "given_naive_memory", "locked": true, "schema_version": 3, "solution": false}
def naive_memory(path, customer, clock):
    """A first attempt: the model may name the customer; no masking, no limit, no dates."""
    def remember_tool(fact, customer_id=customer):
        with contextlib.closing(open_memory(path)) as db:
            db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)",
                       (customer_id, clock().isoformat(), fact))
            db.commit()
        return "ok"

    def recall_tool(query, customer_id=customer):
        with contextlib.closing(open_memory(path)) as db:
            found = [f for (f,) in db.execute("SELECT fact FROM facts WHERE customer = ?", (customer_id,))]
        return [f for f, score in zip(found, kb.bm25(query, found), strict=True) if score > 0]

    def forget_tool(query, customer_id=customer):
        with contextlib.closing(open_memory(path)) as db:
            gone = db.execute("DELETE FROM facts WHERE customer = ? AND fact LIKE ?", (customer_id, f"%{query}%")).rowcount
            db.commit()
        return {"forgotten": gone}

    return {"remember": remember_tool, "recall": recall_tool, "forget": forget_tool}


# %%
def compare(make_tools):
    """What one memory implementation lets through, measured on the chapter's scenarios."""
    path = WORK / f"compare-{make_tools.__name__}.sqlite3"
    path.unlink(missing_ok=True)
    calendar = Calendar(datetime.date(2026, 6, 1))
    with contextlib.closing(open_memory(path)) as db:
        db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)",
                   ("C-002", "2026-06-01", "Prefers delivery to the neighbour."))
        db.commit()

    def talk(scenario):
        messages = [{"role": "user", "content": scenario.question}]
        result = run_agent(FakeLLM(scenario).client(), "fake-model", messages, scenario.openai_tools(),
                           make_tools(path, "C-001", calendar), max_steps=4)
        return result, messages

    def count(sql):
        with contextlib.closing(open_memory(path)) as db:
            return db.execute(sql).fetchone()[0]

    _, messages = talk(scenarios.recalls_other_customer())
    leaked = any("neighbour" in (m.get("content") or "") for m in messages if m["role"] == "tool")
    talk(scenarios.stores_card())
    card = count("SELECT COUNT(*) FROM facts WHERE fact LIKE '%4111%'") > 0
    talk(scenarios.remembers_preference())
    calendar.advance(200)
    stale, _ = talk(scenarios.resumes_tomorrow())
    tools = make_tools(path, "C-001", calendar)
    for i in range(100):
        tools["remember"](fact=f"Note number {i} about the order.")
    rows = count("SELECT COUNT(*) FROM facts WHERE customer = 'C-001'")
    return {"C-002's fact reached the model": leaked, "card number stored": card,
            "200-day-old fact checked with the customer": "still right" in (stale.answer or ""),
            "C-001's rows after 100 more remembers": rows}


table = {"naive_memory": compare(naive_memory), "memory_tools": compare(memory_tools)}
print(f"{'':45}{'naive_memory':>14}{'memory_tools':>14}")
for row in table["naive_memory"]:
    print(f"{row:45}{table['naive_memory'][row]!s:>14}{table['memory_tools'][row]!s:>14}")

# %% [markdown]
# Every difference in that table is a line of code in the tools, none is in the prompt. The system
# prompt above says "never store card numbers", and the model stored one anyway; the tool
# definitions have no `customer_id`, and the model sent one anyway. Memory is safe when the code
# that writes and reads it does not have to trust the model.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the tests catch.
#
# - **Memory keyed by a model-supplied id.** A `customer_id` parameter, even with the session's
#   customer as its default, lets a model (or a page it read) open anyone's memory. Bind the
#   customer in code; the tools take only `fact` or `query`.
# - **Secrets stored.** A line in the system prompt ("never store card numbers") does not stop a
#   model from passing one on; mask in code, in `remember` and in the log writer. A pattern for 16 digits in a row misses
#   `4111 1111 1111 1111`; a pattern for any number wipes order ids, amounts and dates.
# - **Unbounded growth.** No limit per customer: a model that remembers every turn fills the store
#   and every recall ranks more noise. Trimming the whole table instead erases other customers.
# - **A log that keeps what memory masks.** The trajectory records the customer's message and the
#   model's tool call word for word. Scrub every value — the tool call's arguments too, and card
#   numbers stored as JSON numbers — before the line is written; masking the finished line can break
#   its JSON, and masking the message in place rewrites the conversation the model still reads (that
#   last one is not graded: only your kernel can see it; the cell after the tests checks it).
# - **Stale facts recalled without their date.** A bare sentence looks like today's truth. Return
#   the date and `days_ago` with every fact.
# - **The real clock.** `datetime.date.today()` inside a tool cannot be tested, replayed or moved
#   to "tomorrow"; and reading the clock once when the tools are made freezes the session's day.
# - **Recall by date, not by relevance.** The newest facts are not the ones the question is
#   about: rank with BM25, and use the date only to break ties.
# - **Forgetting too much or too little.** Deleting every customer's matching facts, or all of
#   this customer's, is as wrong as deleting nothing.
# - **Duplicates.** The same fact remembered on five days is five rows; move its date instead.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("17_agent_memory")

# %% [markdown]
# ## Live cell (optional)
#
# Your memory tools with a real model. The first conversation asks it to remember a preference (and
# tempts it with a card number); the second, "tomorrow", asks a question it can answer only from
# memory. Watch which facts it chooses to store and what the table holds. It runs only when
# `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded. It needs your
# `memory_tools` and the chapter's code from the cells above: after a restart, run those first.

# %%
import contextlib
import datetime
import tempfile
from pathlib import Path

from workbook import scenarios
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        live_system = ("You are Northwind's support agent. Use remember for lasting preferences, recall "
                       "before answering, forget when asked. Never store card numbers, e-mails or keys.")
        live_calendar = Calendar(datetime.date(2026, 11, 30))
        with tempfile.TemporaryDirectory(prefix="17-live-") as live_folder:
            live_path = Path(live_folder) / "live.sqlite3"
            for question in ("Please remember: deliveries go to my office reception. My card is "
                             "4111 1111 1111 1111 if you need it.", "Where should my new order go?"):
                messages = [{"role": "system", "content": live_system}, {"role": "user", "content": question}]
                live = run_agent(live_client, live_model, messages, list(scenarios.memory.memory_tools()),
                                 memory_tools(live_path, "C-001", live_calendar), max_steps=4)
                print(live_calendar(), "|", live.answer)
                live_calendar.advance(1)
            with contextlib.closing(open_memory(live_path)) as live_db:
                print(live_db.execute("SELECT day, fact FROM facts").fetchall())
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# Memory decides what comes back into the context; the next part of the course is about what the
# model can be made to do with what comes in: tools from other processes (MCP) and the attacks
# that ride on their results.
