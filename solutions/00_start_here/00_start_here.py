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
# # 00 · Start here
#
# This workbook teaches one thing, thoroughly: the loop that turns a language model into an
# agent. You will write that loop yourself, one piece per chapter, and every piece is checked by
# tests that run on your machine in a second or two.
#
# **Learning goals.** After this chapter you can
# - check that your environment is ready and read what is missing;
# - call the workbook's fake model, read its reply, and see what it was sent;
# - tell visible tests from hidden ones, and check your work with the test cells, the
#   **Validate** button or `make check`;
# - find the self-check quiz, the optional live cells (`LLM_PROVIDER`) and the `agent_files/`
#   folder.
#
# **Time:** about 20 minutes.
#
# **Builds on:** basic Python (functions, lists, dicts). No earlier chapter, no API key.

# %% [markdown]
# ## How a chapter works
#
# Every chapter is one notebook with the same parts:
#
# 1. **Explanations** with short cells you can run and change. Run them in order, top to bottom.
# 2. **Exercises.** Each exercise is a function to write. Its cell holds the signature, a
#    docstring that says exactly what to return, and `raise NotImplementedError()`: replace that
#    line with your code.
# 3. **Test cells** under each exercise. The visible one you can read and run as often as you
#    like. It checks the shape of your answer and one obvious case. When the notebook is graded,
#    **hidden tests** are put back into the cell beneath it: they check exact values and the
#    tricky cases, and carry most of the points.
# 4. A **"common mistakes"** section: the wrong answers the hidden tests are built to catch.
# 5. A **self-check quiz**, an optional **live cell**, and **what's next**.
#
# First, check that your environment is ready. Run the next cell. Each line says ✓ or ✗, and
# every ✗ says what to do about it. (If the cell stops with `No module named 'workbook'`, the
# notebook runs in a Python outside the workbook's `.venv`: run `make lab` from the repository
# root and open the notebook there.)

# %%
import workbook

workbook.env_check()

# %% [markdown]
# ## The fake model, and why you start with it
#
# A real model lives behind an API: it needs a key, costs money, needs the network, and, worst
# for learning, it does not answer the same way twice. The same question can get a tool call
# today and a plain answer tomorrow, after the provider updates the model. A test written against
# it cannot say "the answer must be exactly this" or "the model must be called exactly twice".
#
# So every exercise here runs against a **fake model** that ships with the workbook
# (`workbook.fake_llm`). It is not a mock that returns canned strings: it reads the conversation
# you send, like a real model does, and follows a **scenario**, a short script such as "ask for
# the spending tool; once its result is in the conversation, answer from it". It gives you:
#
# - **no keys, no cost, no network**: everything runs offline;
# - **no drift**: the same messages get the same reply, every run, on every machine;
# - **failures on demand**: a rate limit, broken arguments, a model that repeats itself
#   forever. A real model shows those only now and then; the fake shows them when a chapter
#   needs them.
#
# In chapters 00–02 the fake is a plain Python function (from chapter 03 on it speaks the real
# OpenAI protocol):
#
# ```
# model(messages, tool_specs) -> {"tool": name, "args": {...}}   # "please run this tool for me"
#                              | {"final": text}                 # "here is my answer"
# ```
#
# `messages` is a list of dicts, each with a `role` (`"user"`, `"assistant"`, `"tool"`...) and
# a `content`. Here is the scenario this course starts with: a customer of Northwind, a small
# online shop, asks about their taxi spending.

# %%
from workbook import scenarios

scenario = scenarios.get("taxi_spending", lang="notebook")  # in the language this notebook is in
print(scenario.name, "—", scenario.description)
print("question:", scenario.question)

model = scenario.as_function()
messages = [{"role": "user", "content": scenario.question}]
reply = model(messages, [])
reply

# %% [markdown]
# The model did not answer. It cannot know the customer's spending, so it asked for a
# **tool call**: run `txn_sum` with these arguments. Running the tool and sending the result back
# is your code's job, and that is what chapter 01 is about.
#
# Ask again with the same messages and you get the same reply. The model also keeps a record of
# what it was sent: `model.requests` holds a copy of `messages` for every call, and `model.calls`
# counts them. Tests use that record to check what your code really sent.

# %%
print(model(messages, []) == reply)
print(model.calls, "calls")
model.requests[0]

# %% [markdown]
# There is a catalogue of scenarios, one per behaviour the course needs. A few of them:

# %%
for name, description in scenarios.catalogue()[:5]:
    print(f"{name:28} {description}")

# %% [markdown]
# ## Exercise 1 — `first_reply` (3 points)
#
# Write `first_reply(model, question)`:
#
# - build a message list holding exactly one message, the user's question:
#   `[{"role": "user", "content": question}]`;
# - call the model **once** with it, as `model(messages, [])`. The second argument lists the
#   tools the model may ask for. The scripted fake knows its own tools, so an empty list will do
#   here; chapter 01 fills it in;
# - **return** the reply dict unchanged (return it, not print it).

# %% nbgrader={"grade": false, "grade_id": "first_reply", "locked": false, "schema_version": 3, "solution": true}
def first_reply(model, question):
    """Ask the model one question and return its reply dict unchanged."""
    ### BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    return model(messages, [])
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "first_reply_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: first_reply sends the taxi model one user message holding the question, calls
it once and returns its reply, a dict."""
from workbook.checks import fresh

wb = fresh()
model = wb.scenarios.taxi_spending().as_function()
got = first_reply(model, "How much did I spend on taxis in September?")
assert got is not None, "first_reply returned None: return the model's reply instead of printing it"
assert type(got) is dict, f"first_reply must return the model's reply, a dict; got {type(got).__name__}"
assert model.calls == 1, f"call the model exactly once; it was called {model.calls} times"
sent = model.requests[0]
assert sent == [{"role": "user", "content": "How much did I spend on taxis in September?"}], (
    f"send a list holding one message, {{'role': 'user', 'content': question}}; the model was sent {sent!r}")
assert got == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}, (
    f"return the reply exactly as the model gave it; got {got!r}")
print("first_reply: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "first_reply_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: first_reply sends exactly one user message with the question and returns the
model's reply unchanged, whatever the question and the scenario."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
for factory, question in ((wb.scenarios.taxi_spending, "Taxi spending in September, please."),
                          (wb.scenarios.long_chat_small_context, "Where is my order A-1001?")):
    model = factory().as_function()
    got = first_reply(model, question)
    assert model.calls == 1, f"call the model exactly once; it was called {model.calls} times"
    sent = model.requests[0]
    assert sent == [{"role": "user", "content": question}], (
        "send a list holding one message, {'role': 'user', 'content': question}; "
        f"the model was sent {sent!r}")
    expected = factory().as_function()(sent, [])
    assert type(got) is dict and got == expected, (
        f"return the reply unchanged: expected {expected!r}, got {got!r}")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — `wanted_tool` (2 points)
#
# A reply is either a tool request or a final answer. Write `wanted_tool(reply)` that returns the
# **name** of the tool the reply asks for (a `str`), or `None` when the reply is a final answer.
#
# ```python
# wanted_tool({"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}})  # -> "txn_sum"
# wanted_tool({"final": "Taxi in September 2026: 2 rides, 5000 KZT."})               # -> None
# ```
#
# A tool request may come without `"args"` (a tool that takes no arguments).

# %% nbgrader={"grade": false, "grade_id": "wanted_tool", "locked": false, "schema_version": 3, "solution": true}
def wanted_tool(reply):
    """The name of the tool the reply asks for, or None for a final answer."""
    ### BEGIN SOLUTION
    if "tool" in reply:
        return reply["tool"]
    return None
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "wanted_tool_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: wanted_tool names the tool of a tool request (with or without "args") and gives
None for a final answer."""
got = wanted_tool({"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}})
assert got == "txn_sum", f"for a tool request, return the tool's name; got {got!r}"
got = wanted_tool({"tool": "card_block"})
assert got == "card_block", (
    f"a tool request without 'args' still names its tool; expected 'card_block', got {got!r}")
try:
    got = wanted_tool({"final": "Taxi in September 2026: 2 rides, 5000 KZT."})
except KeyError as e:
    raise AssertionError(f"wanted_tool raised KeyError {e} on a final answer: a final answer has no "
                         "'tool' key, so check whether the key is there first") from None
assert got is None, f"for a final answer, return None (not '' or False); got {got!r}"
print("wanted_tool: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "wanted_tool_hidden_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Hidden tests: wanted_tool on replies from the fake model, on a tool without arguments, and on
final answers whose text is empty or mentions a tool."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
weather = wb.scenarios.weather_and_math().as_function()
got = wanted_tool(weather([{"role": "user", "content": "Weather in Almaty?"}], []))
assert type(got) is str and got == "get_weather", (
    f"the weather model asks for 'get_weather'; wanted_tool returned {got!r}")
got = wanted_tool({"tool": "card_block"})
assert got == "card_block", (
    f"a tool request without 'args' still names its tool; expected 'card_block', got {got!r}")
answer = wb.scenarios.long_chat_small_context().as_function()([{"role": "user", "content": "Hi"}], [])
for final in (answer, {"final": ""}, {"final": "No tool is needed: your order has shipped."}):
    try:
        got = wanted_tool(final)
    except KeyError as e:
        raise AssertionError(f"wanted_tool({final!r}) raised KeyError {e}: a final answer has no "
                             "'tool' key; return None for it") from None
    assert got is None, f"{final!r} is a final answer: return None, got {got!r}"
### END HIDDEN TESTS

# %% [markdown]
# ## Checking your work
#
# - **Run the test cell** under an exercise. If it prints its "visible tests passed" line, they
#   pass. If not, the red error ends with a message that says what to fix. (A hidden test cell
#   shows only its docstring in your copy: its tests are added when the notebook is graded.)
# - **Validate**, a button in the notebook's toolbar, runs the whole notebook from the top in a
#   fresh kernel and lists the test cells that fail. That is how the grader sees your notebook:
#   a function you defined in a cell you later deleted does not exist for it.
# - **`make check NB=chapters/00_start_here/00_start_here.ipynb`** in a terminal, from the
#   repository root, does the same without opening Jupyter.
#
# Three habits keep the grade you expect:
#
# - Do not edit or delete test cells. The grader puts its own copies back, so an edited test
#   gains nothing.
# - Keep stderr quiet. nbgrader on its own gives 0 to a test cell that writes to stderr (a
#   warning, a `logging` message), even if every assert passed. This workbook's grader shows
#   such text as ordinary output and takes no points for it, but a tool such as the Validate
#   button may still report the cell as failed.
# - Before you hand in, run **Kernel → Restart Kernel and Run All Cells** once.
#
# "Run All" stops at the first cell that fails, which is the test of the first exercise you have
# not finished. That hides nothing you need: every exercise's cells and the self-check quiz at
# the end of each chapter run on their own, so click a cell further down and press Shift+Enter.

# %% [markdown]
# ## Live providers (optional)
#
# The exercises are graded against the fake model only. Each chapter also has an optional
# **live cell** that runs the same idea against a real model, so you can see how a real one
# behaves. The provider is chosen by the environment variable `LLM_PROVIDER`:
#
# | `LLM_PROVIDER` | what it talks to | needs |
# |---|---|---|
# | `fake` (default) | the fake model; live cells are skipped | nothing |
# | `ollama` | a local Ollama server | Ollama running, a model pulled |
# | `deepseek` | DeepSeek's API | `DEEPSEEK_API_KEY` |
# | `openai` | OpenAI's API | `OPENAI_API_KEY` |
# | `anthropic` | Anthropic's API (its OpenAI-compatible endpoint) | `ANTHROPIC_API_KEY` |
#
# Put the variables in a `.env` file at the repository root (git ignores it) or export them
# before `make lab`, then restart the kernel. Graded tests ignore `LLM_PROVIDER`: they always use
# the fake, so your score never depends on a provider.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        client, model_name = make_client()
        response = client.chat.completions.create(
            model=model_name, messages=[{"role": "user", "content": "Say hello in five words."}])
        choice = response.choices[0]  # show what came back, whatever it is
        print(f"{model_name} replied (finish_reason {choice.finish_reason!r}):")
        if choice.message.content:
            print("  text:", choice.message.content)
        if choice.message.refusal:
            print("  refusal:", choice.message.refusal)
        for call in choice.message.tool_calls or []:
            print(f"  tool call: {call.function.name}({call.function.arguments})")
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## Where the agent's files live
#
# Later chapters give the agent tools that read and write files. Those tools may touch one
# folder only, `agent_files/`, and the workbook tells you where it is:
#
# - `kb/`: the shop's knowledge-base pages, which the agent searches and reads;
# - `notes/`: study notes;
# - `out/`: the only folder the agent may write to.

# %%
from workbook.paths import AGENT_FILES

print(AGENT_FILES)
if AGENT_FILES.is_dir():
    print("folders:", sorted(p.name for p in AGENT_FILES.iterdir() if p.is_dir()))
else:
    print("missing: see the environment check at the top")

# %% [markdown]
# ## Common mistakes
#
# - **Printing instead of returning.** `print(reply)` shows the right thing, but the function
#   returns `None`, and the test gets `None`.
# - **Passing the question as a string.** The model takes a *list of messages*, not a string:
#   `model("How much...?")` fails. Wrap it: `[{"role": "user", "content": question}]`.
# - **The wrong role.** The customer's question is a `"user"` message. A `"system"` message is
#   for the rules the model must follow, and the scenario reads the question from the user
#   message.
# - **Calling the model more than once** "to be sure". Every call costs money with a real
#   provider, and the tests count calls.
# - **`""` or `False` instead of `None`** for "no tool". Return exactly what the docstring says.
# - **Cells run out of order.** A notebook remembers every cell you ran, including old
#   versions. If something makes no sense, restart the kernel and run all.

# %% [markdown]
# ## Self-check quiz
#
# Pick an answer and press **Check**: every option explains why it is right or wrong. The quiz
# is not graded. Its cell needs nothing above it, so you can run it even while an exercise is
# unfinished and "Run All" stops before it.

# %%
from workbook.quiz import show

show("00_start_here")

# %% [markdown]
# ## What's next
#
# You called the model once and read its reply: it asked for a tool. In
# **01 · One step** you do the rest of that step yourself: run the tool, send its result back to
# the model, and read the final answer.
