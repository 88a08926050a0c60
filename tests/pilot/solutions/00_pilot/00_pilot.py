# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 · Pilot chapter
#
# A tiny chapter that exists only to test the autograder and its gates before the real
# chapters do. It follows the authoring contract in `docs/CHAPTERS.md`: three exercises, each
# with an answer cell, a visible test cell and a hidden test cell, and a mutant per exercise in
# `tests/pilot/autograder/mutants/00_pilot/`.

# %% [markdown]
# ## Exercise 1 — `add`
#
# Return the sum of two integers, as an `int`.

# %% nbgrader={"grade": false, "grade_id": "add", "locked": false, "schema_version": 3, "solution": true}
def add(a, b):
    """The sum of a and b."""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "add_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: add returns the sum as an int."""
from workbook.checks import fresh

wb = fresh()
wb.checks.equal(add(2, 3), 5, "add(2, 3)")
print("add: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "add_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: add with negative numbers, zero and big integers."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
for a, b in ((-4, 1), (0, 0), (10**20, 1)):
    wb.checks.equal(add(a, b), a + b, f"add({a}, {b})")
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — `parse_reply`
#
# A model reply is `{"tool": name, "args": {...}}` (`"args"` may be missing) or
# `{"final": text}`. Return `("tool", name, args)` or `("final", text)`; raise `ValueError` for
# anything else.

# %% nbgrader={"grade": false, "grade_id": "parse_reply", "locked": false, "schema_version": 3, "solution": true}
def parse_reply(reply):
    """("tool", name, args) or ("final", text); ValueError for anything else."""
    ### BEGIN SOLUTION
    if isinstance(reply, dict) and isinstance(reply.get("tool"), str):
        return ("tool", reply["tool"], dict(reply.get("args") or {}))
    if isinstance(reply, dict) and isinstance(reply.get("final"), str):
        return ("final", reply["final"])
    raise ValueError(f"not a model reply: {reply!r}")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "parse_reply_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: parse_reply classifies a tool request (with or without args) and a final answer,
and raises ValueError for a reply that is neither."""
from workbook.checks import fresh

wb = fresh()
wb.checks.equal(parse_reply({"tool": "txn_sum", "args": {"month": "2026-09"}}),
                ("tool", "txn_sum", {"month": "2026-09"}), "parse_reply(tool request)")
wb.checks.equal(parse_reply({"tool": "card_block"}), ("tool", "card_block", {}), "parse_reply(no args)")
wb.checks.equal(parse_reply({"final": "Done."}), ("final", "Done."), "parse_reply(final answer)")
with wb.checks.raises(ValueError, what="parse_reply({'text': 'hi'})"):
    parse_reply({"text": "hi"})
print("parse_reply: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "parse_reply_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: a tool request without args, and replies that are neither kind."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
wb.checks.equal(parse_reply({"tool": "card_block"}), ("tool", "card_block", {}),
                "parse_reply({'tool': 'card_block'})", hint="a missing 'args' means no arguments")
for bad in ({}, {"text": "hi"}, "final", None):
    with wb.checks.raises(ValueError, what=f"parse_reply({bad!r})"):
        parse_reply(bad)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 — `one_step`
#
# Call `model(messages)` once. If it asks for a tool, run `tools[name](**args)`, append the
# assistant turn `{"role": "assistant", "content": None, "tool": name, "args": args}` and then
# the observation `{"role": "tool", "name": name, "content": str(result)}` to `messages`, and
# return `None`. If it gives a final answer, append `{"role": "assistant", "content": text}`
# and return the text.

# %% nbgrader={"grade": false, "grade_id": "one_step", "locked": false, "schema_version": 3, "solution": true}
def one_step(model, tools, messages):
    """Run one step of the loop; return the final text, or None after running a tool."""
    ### BEGIN SOLUTION
    reply = model(messages)
    if "tool" in reply:
        name, args = reply["tool"], reply.get("args") or {}
        result = tools[name](**args)
        messages.append({"role": "assistant", "content": None, "tool": name, "args": args})
        messages.append({"role": "tool", "name": name, "content": str(result)})
        return None
    messages.append({"role": "assistant", "content": reply["final"]})
    return reply["final"]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "one_step_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: one_step runs the requested tool and appends the assistant turn, then the
observation."""
from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
seen = []
messages = [{"role": "user", "content": "2 + 3?"}]
got = one_step(lambda m: seen.append(list(m)) or {"tool": "add", "args": {"a": 2, "b": 3}},
               {"add": lambda a, b: a + b}, messages)
messages = after(messages)
wb.checks.equal(got, None, "one_step after a tool request")
wb.checks.equal(messages[1:], [
    {"role": "assistant", "content": None, "tool": "add", "args": {"a": 2, "b": 3}},
    {"role": "tool", "name": "add", "content": "5"}], "the messages after one tool step",
    hint="append the assistant turn first, then the observation")
print("one_step: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "one_step_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: the assistant turn comes before the observation; a final answer is returned."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh
from workbook.notebook_side import after

wb = fresh()
messages = [{"role": "user", "content": "2 + 3?"}]
got = one_step(lambda m: {"tool": "add", "args": {"a": 2, "b": 3}}, {"add": lambda a, b: a + b},
               messages)
messages = after(messages)
wb.checks.equal(messages[1:], [
    {"role": "assistant", "content": None, "tool": "add", "args": {"a": 2, "b": 3}},
    {"role": "tool", "name": "add", "content": "5"}], "the messages after one tool step",
    hint="append the assistant turn first, then the observation")
got = one_step(lambda m: {"final": "It is 5."}, {}, messages)
messages = after(messages)
wb.checks.equal(got, "It is 5.", "one_step after a final answer")
wb.checks.equal(messages[-1], {"role": "assistant", "content": "It is 5."}, "the last message")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# - `add` returning a float or a string that looks right.
# - `parse_reply` failing on a tool request without `"args"`, or accepting anything.
# - `one_step` forgetting the assistant turn, or returning the observation.
