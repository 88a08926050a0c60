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
# # 20 · Evaluating an agent
#
# You changed the system prompt and the agent looks better. Does it? One run says little: a real
# model answers the same question differently from run to run, so one good run can be luck and
# one bad run can be bad luck. This chapter turns "looks better" into numbers you can defend:
# a **task set** with **checkers** that are code, many **runs** per task, **pass@k** and
# **pass^k**, a **paired** comparison of two prompts with an honest note on what the difference
# needs (more runs, and above all more tasks), an **LLM judge** for what a checker cannot decide —
# with its position bias removed and its verdicts checked against labels — and a **regression
# check** that could run in CI.
#
# The capstone (chapter 11) built one evaluation table for one agent. Here you build the parts
# that make any such table trustworthy.
#
# **Learning goals.** After this chapter you can
# - write a deterministic checker that fails a wrong answer, and refuses a task it cannot check;
# - compute pass@k (at least one of k runs right) and pass^k (all k runs right) from n runs;
# - compare two prompts run for run (paired: the same tasks, the same seeds) with a margin, and say
#   what a difference needs: more runs to be sure on these tasks, more tasks to be sure beyond them;
# - use an LLM judge fairly: both orders, averaged; checked against answers you labelled, with and
#   without a reference answer; and replaced by a checker wherever an exact answer exists;
# - write a regression check a CI job can run on every change;
# - count how the runs that did not answer ended: stopped by which limit, or crashed.
#
# **Time:** about 100 minutes.
#
# **Builds on:** 11 · Capstone: the knowledge-base agent (the evaluation table), and 06 · Limits
# and stopping for Part 6 (its loop is given there as code). Elsewhere the agent under test is a
# black box, a function from a question to an answer.

# %% [markdown]
# ## Given code: the task set and an agent that varies
#
# The fake plays a **whole agent run** in one reply, so a thousand runs take a second. Its answer
# depends on a **seed**: the same seed gives the same run (so a test is repeatable), another seed
# may give another answer, as a real model at temperature > 0 does. It also reads the system
# prompt: you will compare `PROMPT_A` with `PROMPT_B`.
#
# Each task has a `question`, the phrases a right answer must contain (`required`), phrases it
# must not contain (`forbidden`: the archived 30-day return period, "not shipped"), and a
# `reference` answer — one right wording among many.

# %% nbgrader={"grade": false, "grade_id": "given_evaluation", "locked": true, "schema_version": 3, "solution": false}
import math
import re
import statistics

from workbook import scenarios
from workbook.scenarios.evaluation import PROMPT_A, PROMPT_B, TASKS


def run_once(system, task, seed):
    """One run of the agent on `task` with this system prompt: its answer (a fresh model per run)."""
    model = scenarios.seeded_agent(seed).as_function()
    reply = model([{"role": "system", "content": system}, {"role": "user", "content": task.question}], [])
    return reply.get("final")


for task in TASKS:
    print(f"{task.name:8} {task.question!r:48} required={task.required} forbidden={task.forbidden}")

# %% [markdown]
# Twelve runs of the same task, same prompt, twelve seeds:

# %%
for seed in range(12):
    print(seed, run_once(PROMPT_A, TASKS[0], seed))

# %% [markdown]
# Most runs are right; seeds 6, 9 and 10 found no rides, and seed 11 says `15000 KZT` — which
# contains `5000 KZT`. A checker that looks for the text anywhere would call that run right.
#
# ## Part 1 · Checkers that are code
#
# A **checker** decides "right or wrong" for one answer, the same way every time. For answers
# with facts in them (an amount, an order number, a period) it is a few lines of code, and it
# beats any judge: it is free, instant and never changes its mind. Three things make it honest:
#
# - a fact must appear as a **whole phrase** (`5000 KZT` is not in `15000 KZT`), in any case;
# - some wrong answers contain every right fact and something wrong as well (`30 days, or 14 days
#   if it was on sale`): the checker also looks for **forbidden** phrases;
# - a checker with **nothing to check passes everything**. A task with no required facts is a bug
#   in the task set, and the checker must say so, not return `True` a thousand times.

# %% [markdown]
# ## Exercise 1 — `check` (3 points)
#
# Write `check(answer, task)` → `True` when the answer is right, else `False` (a `bool`):
#
# - `answer` that is not a `str` (a run that crashed gives `None`) → `False`;
# - `task.required` empty → raise `ValueError` with a message that says the task has no
#   **required** facts (a checker that passes everything);
# - every phrase of `task.required` appears in the answer as a **whole phrase**: not preceded and
#   not followed by a letter or digit (`re.escape` the phrase; `(?<!\w)` and `(?!\w)` around it),
#   **case-insensitive**;
# - no phrase of `task.forbidden` appears (the same way).

# %% nbgrader={"grade": false, "grade_id": "check", "locked": false, "schema_version": 3, "solution": true}
def check(answer, task):
    """True when `answer` says every required phrase and no forbidden one (whole phrases, any case)."""
    ### BEGIN SOLUTION
    if not task.required:
        raise ValueError(f"task {getattr(task, 'name', '?')!r} has no required facts: a checker with "
                         "nothing to check passes everything")
    if not isinstance(answer, str):
        return False

    def says(phrase):
        return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", answer, re.IGNORECASE) is not None

    return all(says(p) for p in task.required) and not any(says(p) for p in task.forbidden)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "check_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: check passes every right answer of the task set (any case) and fails every wrong
one (15000 for 5000, "not shipped", another order, the 30-day rule); a crashed run (None) and an
answer that is not a str are wrong; a phrase is text, not a regex; a task with no required facts
is refused with a ValueError."""
import types

from workbook.checks import fresh

wb = fresh()
E = wb.scenarios.evaluation
for t in E.TASKS:
    for answer in t.right:
        with wb.checks.no_raise(f"check({answer!r}, {t.name})", hint='check returns True or False for any answer text'):
            got = check(answer, t)
        wb.checks.equal(got, True, f"check({answer!r}) for task {t.name!r}",
                        hint="every required phrase is there, as a whole phrase, in some case")
    for answer in t.wrong:
        wb.checks.equal(check(answer, t), False, f"check({answer!r}) for task {t.name!r}",
                        hint="a whole phrase (5000 KZT is not in 15000 KZT), every required one, no forbidden one")
wb.checks.equal(check(None, E.TASKS[0]), False, "check(None, taxi)", hint="a crashed run has no answer: it is wrong")
wb.checks.equal(check(5000, E.TASKS[0]), False, "check(5000, taxi)", hint="an answer that is not a str is wrong")
fee = types.SimpleNamespace(name="fee", required=("2.5%",), forbidden=())
wb.checks.equal(check("The fee is 2.5%.", fee), True, "check('The fee is 2.5%.', required 2.5%)")
wb.checks.equal(check("The fee is 205%.", fee), False, "check('The fee is 205%.', required 2.5%)",
                hint="re.escape the phrase: in a regex '.' matches any character")
empty = types.SimpleNamespace(name="empty", required=(), forbidden=())
with wb.checks.raises(ValueError, match="required", what="check('anything', a task with no required facts)"):
    check("anything", empty)
print("check: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "check_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: references pass; punctuation around a phrase is fine, letters or digits are not;
regex characters in a phrase are literal; empty and non-str answers; a bool every time."""
### BEGIN HIDDEN TESTS
import types

from workbook.checks import fresh

wb = fresh()
E = wb.scenarios.evaluation


def task(required, forbidden=()):
    return types.SimpleNamespace(name="t", required=tuple(required), forbidden=tuple(forbidden))


for t in E.TASKS:
    wb.checks.equal(check(t.reference, t), True, f"check(reference of {t.name})")
cases = [("(5000 KZT).", ["5000 KZT"], [], True), ("5000 KZTs", ["5000 KZT"], [], False),
         ("x5000 KZT", ["5000 KZT"], [], False), ("Price: C++ 2.5", ["C++", "2.5"], [], True),
         ("Price: 215", ["2.5"], [], False), ("", ["a"], [], False),
         ("14 days. Not 30 DAYS.", ["14 days"], ["30 days"], False), ("14 days or 130 days", ["14 days"], ["30 days"], True),
         ("A-1001 shipped", ["a-1001", "SHIPPED"], [], True), ("A-1001", ["A-1001", "shipped"], [], False)]
for answer, required, forbidden, expected in cases:
    got = check(answer, task(required, forbidden))
    wb.checks.equal(got, expected, f"check({answer!r}) with required={required} forbidden={forbidden}")
for bad in (42, b"5000 KZT", ["5000 KZT"]):
    wb.checks.equal(check(bad, E.TASKS[0]), False, f"check({bad!r}, taxi)")
with wb.checks.raises(ValueError, match="required", what="check(None, a task with no required facts)"):
    check(None, task([], ["x"]))
print("check: hidden tests passed")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · Many runs: pass@k and pass^k
#
# Run a task **n** times and count **c** right runs. Two questions have different answers:
#
# - **pass@k** — if you let the agent try k times, is *at least one* try right? This is the
#   number for a setting where a human (or a checker) picks the good answer out of k.
#   From n runs, the unbiased estimate is `1 - C(n-c, k) / C(n, k)` (Chen et al., 2021).
# - **pass^k** ("pass hat k") — if k customers ask, is the agent right *every* time? This is the
#   number for an agent that acts on its own: a refund wrong one time in five is a broken agent.
#   From n runs: `C(c, k) / C(n, k)` (Yao et al., 2024, τ-bench).
#
# `C(n, k)` is `math.comb(n, k)`: the number of ways to pick k runs out of n. Both numbers equal
# c/n when k = 1. As k grows, pass@k goes up and pass^k goes down — the gap between them is how
# unreliable the agent is. Computing `(c/n) ** k` instead treats the n runs as the truth about the
# model; the formulas above only pick k of the runs you have.

# %% [markdown]
# ## Exercise 2 — `pass_k` (3 points)
#
# Write `pass_k(outcomes, k)`. `outcomes` is a list of `bool`, one per run of one task (n runs);
# return the tuple `(pass_at_k, pass_hat_k)` of two `float`s, by the formulas above.
#
# - no runs, or `k` not between 1 and n → raise `ValueError` whose message names `k` and n;
# - use **every** run: one run (or the first run) taken as the truth is the chapter's first
#   mistake.

# %% nbgrader={"grade": false, "grade_id": "pass_k", "locked": false, "schema_version": 3, "solution": true}
def pass_k(outcomes, k):
    """(pass@k, pass^k) estimated from n runs of one task: outcomes is a list of bools."""
    ### BEGIN SOLUTION
    n = len(outcomes)
    if n == 0 or not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of runs n={n}, got k={k}")
    c = sum(bool(o) for o in outcomes)
    total = math.comb(n, k)
    return 1.0 - math.comb(n - c, k) / total, math.comb(c, k) / total
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "pass_k_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: pass_k's two numbers on 4 runs with k=2 (not (c/n)**k), k=1 gives c/n for
both (every run counts, not the first), k larger than n, k=0 or no runs is a ValueError."""
from workbook.checks import fresh

wb = fresh()
with wb.checks.no_raise("pass_k([True, False, False, True], 2)", hint='k from 1 to the number of runs is valid'):
    got = pass_k([True, False, False, True], 2)
assert type(got) is tuple and len(got) == 2 and all(type(x) is float for x in got), (
    f"pass_k returns a tuple of two floats, got {got!r}")
assert abs(got[0] - 5 / 6) < 1e-9 and abs(got[1] - 1 / 6) < 1e-9, (
    "4 runs, 2 right, k=2: pass@2 = 1 - C(2,2)/C(4,2) = 5/6 and pass^2 = C(2,2)/C(4,2) = 1/6; "
    f"got {got} (0.75 and 0.25 are (c/n)**k formulas, which treat 4 runs as the truth)")
got = pass_k([False, True, False, False, False], 1)
assert abs(got[0] - 0.2) < 1e-9 and abs(got[1] - 0.2) < 1e-9, (
    f"k=1: both are c/n = 1/5 over all five runs, not the first run alone; got {got}")
with wb.checks.raises(ValueError, match="k", what="pass_k([True, False], 3)"):
    pass_k([True, False], 3)
with wb.checks.raises(ValueError, match="k", what="pass_k([], 1)"):
    pass_k([], 1)
with wb.checks.raises(ValueError, match="k", what="pass_k([True, False], 0) (k must be between 1 and n)"):
    pass_k([True, False], 0)
print("pass_k: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "pass_k_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: all right, all wrong, k = n, exact values on 10 runs, k = 0."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()


def near(got, expected, what):
    assert type(got) is tuple and len(got) == 2 and all(type(x) is float for x in got), f"{what}: {got!r}"
    assert all(abs(g - e) < 1e-9 for g, e in zip(got, expected)), f"{what}: expected {expected}, got {got}"


near(pass_k([True] * 5, 3), (1.0, 1.0), "all right")
near(pass_k([False] * 5, 3), (0.0, 0.0), "all wrong")
near(pass_k([True, True, False], 3), (1.0, 0.0), "k = n: pass@n is any right, pass^n is all right")
ten = [True] * 7 + [False] * 3
near(pass_k(ten, 3), (1 - 1 / 120, 35 / 120), "10 runs, 7 right, k=3")
near(pass_k(ten[::-1], 3), (1 - 1 / 120, 35 / 120), "the same runs in another order")
near(pass_k([False, True, True, True], 1), (0.75, 0.75), "k=1, the first run wrong")
pass_k(ten, 2)
for bad in (0, -1, 11):
    with wb.checks.raises(ValueError, match="k", what=f"pass_k(ten runs, {bad})"):
        pass_k(ten, bad)
print("pass_k: hidden tests passed")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 3 · Comparing two prompts, honestly
#
# `PROMPT_B` adds one sentence: "Quote amounts, order numbers and periods exactly as the tools
# give them." Is it better? First the way people usually decide — one run each:

# %%
verdicts = {}  # a checker is code: the same answer to the same task always gets the same verdict


def checked(answer, task):
    """check(answer, task), asked once per distinct answer (thousands of runs, a dozen answers)."""
    key = (answer, task.name)
    if key not in verdicts:
        verdicts[key] = check(answer, task)
    return verdicts[key]


def pass_table(system, seeds, k=1):
    """Per task: (pass@k, pass^k) over one run per seed, and the share of right runs overall."""
    rows, right = {}, []
    for task in TASKS:
        outcomes = [checked(run_once(system, task, seed), task) for seed in seeds]
        rows[task.name] = pass_k(outcomes, k)
        right += outcomes
    return rows, sum(right) / len(right)


def show(seeds, k=1):
    print(f"{len(seeds)} run(s) per task, k={k}")
    print(f"| {'task':8} | {'A pass@k':>9} | {'A pass^k':>9} | {'B pass@k':>9} | {'B pass^k':>9} |")
    print(f"|{'-' * 10}|" + "|".join("-" * 11 for _ in range(4)) + "|")
    (a, share_a), (b, share_b) = pass_table(PROMPT_A, seeds, k), pass_table(PROMPT_B, seeds, k)
    for name in a:
        print(f"| {name:8} | {a[name][0]:9.2f} | {a[name][1]:9.2f} | {b[name][0]:9.2f} | {b[name][1]:9.2f} |")
    print(f"share of right runs: A {share_a:.2f}, B {share_b:.2f}\n")
    return share_a, share_b


show([0])
show(range(10), k=3)
share_a, share_b = show(range(1000), k=3)

# %% [markdown]
# With one run, the verdict is whatever seed 0 happened to draw: here the prompts look the same,
# and the returns task looks impossible. Ten runs look like a trend — B ahead by more than ten
# points — and are still mostly noise. Only the thousand-run table shows the real difference:
# about five points.
#
# **How many runs does a difference need?** For two shares p₁ and p₂, the usual estimate of the
# runs per prompt that tell them apart (95% confidence, 80% power, two independent samples) is
# `n ≈ (1.96 + 0.84)² · (p₁(1-p₁) + p₂(1-p₂)) / (p₁ - p₂)²`. The uncertainty of one share
# measured on n runs is about `± 1.96 · sqrt(p(1-p)/n)`; the uncertainty of a **difference** of
# two shares adds both variants' noise, `± 1.96 · sqrt((p₁(1-p₁) + p₂(1-p₂))/n)` — and the
# difference is what decides:

# %%
def runs_needed(p1, p2):
    """Runs per prompt to tell share p1 from p2 (95% confidence, 80% power), rounded up."""
    return math.ceil((1.96 + 0.84) ** 2 * (p1 * (1 - p1) + p2 * (1 - p2)) / (p1 - p2) ** 2)


def margin(p, n):
    """The 95% margin of a share p measured on n runs."""
    return 1.96 * math.sqrt(p * (1 - p) / n)


def difference_margin(p1, p2, n):
    """The 95% margin of p2 - p1, two shares measured on n independent runs each."""
    return 1.96 * math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) / n)


print(f"A {share_a:.2f}, B {share_b:.2f}: a difference of {share_b - share_a:.2f}")
print(f"measured on 30 runs (10 per task): each share is ± {margin(share_a, 30):.2f}, "
      f"their difference ± {difference_margin(share_a, share_b, 30):.2f}")
print(f"to tell them apart: about {runs_needed(share_a, share_b)} runs per prompt")

# %% [markdown]
# That is the honest note every comparison table needs: *B is better by about 5 points; with our
# 30 runs per prompt the difference is ± 0.22, so 30 runs cannot show it; it takes more than a
# thousand.* (Not ± 0.16: that is one share's margin. Two noisy numbers make a noisier
# difference.) On a live model those runs cost money and time — which is why the first investment
# is a task set with checkers that run free, and why a difference of a few points on a handful of
# runs is not a result.
#
# **Pair the runs.** Both prompts ran on the same tasks with the same seeds, so the runs come in
# **pairs**: run i of A and run i of B answered the same question. Compare them pair by pair:
# `d = b - a` is +1 (only B right), -1 (only A right) or 0 (both right, or both wrong). The
# difference is the mean of d, and its margin is `1.96 · sd(d) / sqrt(n)`. A pair that agrees
# carries no evidence either way, and what a task does to both prompts — an easy task both get
# right, a hard one both get wrong — cancels out instead of counting as noise. (This fake draws
# A's and B's runs independently, so pairing gains little here; on a live model the same question
# is easy or hard for both prompts, and pairing removes that.) Pairing is one of the
# recommendations of *Adding Error Bars to Evals* (Miller, 2024).

# %% [markdown]
# ## Exercise 3 — `compare` (3 points)
#
# Write `compare(a, b)`: `a` and `b` are lists of `bool`, the runs of variant A and of variant B,
# **paired**: `a[i]` and `b[i]` ran the same task with the same seed. Return a dict:
#
# | key | value |
# |---|---|
# | `"a"`, `"b"` | the share of right runs of each, a `float` |
# | `"difference"` | `b - a` (positive: B is ahead) |
# | `"margin"` | the 95% margin of the paired difference: with `d = [int(y) - int(x) for x, y in zip(a, b)]`, `1.96 * statistics.pstdev(d) / math.sqrt(len(d))` |
# | `"verdict"` | `"B is better"` when the difference is larger than the margin, `"A is better"` when it is below minus the margin, else `"not enough runs"` |
#
# - fewer than `MIN_PAIRS` (30) pairs → the verdict is `"not enough runs"`, whatever the numbers.
#   The margin is a normal approximation to the mean of d, and about 30 is the usual rule of thumb
#   for a mean; below it the approximation claims more than the runs show (on 5 pairs with 4 for
#   B it says "B is better", though 4 of 4 disagreeing pairs for one side happen by chance one time
#   in 8). It is no rule for a share on its own: there the approximation needs about 10 right and
#   10 wrong runs (at 95% right, some 200 runs), and at 0 or 100% right it gives a margin of 0
#   whatever the number of runs;
# - no runs on a side → `ValueError` that says which side has no **runs**; lists of different
#   lengths → `ValueError` that says the runs must be **paired**.

# %% nbgrader={"grade": false, "grade_id": "compare", "locked": false, "schema_version": 3, "solution": true}
MIN_PAIRS = 30


def compare(a, b):
    """Shares of A and B over paired runs, their difference, its 95% margin, and a verdict."""
    ### BEGIN SOLUTION
    for name, runs in (("a", a), ("b", b)):
        if len(runs) == 0:
            raise ValueError(f"{name} has no runs: run each variant before you compare")
    if len(a) != len(b):
        raise ValueError(f"the runs must be paired (the same task and seed on both sides): "
                         f"a has {len(a)} runs, b has {len(b)}")
    pa, pb = sum(map(bool, a)) / len(a), sum(map(bool, b)) / len(b)
    difference = pb - pa
    d = [int(bool(y)) - int(bool(x)) for x, y in zip(a, b)]
    margin = 1.96 * statistics.pstdev(d) / math.sqrt(len(d))
    if len(d) < MIN_PAIRS:
        verdict = "not enough runs"
    elif difference > margin:
        verdict = "B is better"
    elif difference < -margin:
        verdict = "A is better"
    else:
        verdict = "not enough runs"
    return {"a": pa, "b": pb, "difference": difference, "margin": margin, "verdict": verdict}
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "compare_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: compare's shares, difference and margin on 40 paired runs (every run counts, the
margin of the pair-by-pair differences); a clear difference in either direction; 5 pairs and one
pair are not enough, 30 are; no runs (naming the side), or runs that are not paired, are a ValueError."""
from workbook.checks import fresh

wb = fresh()
a = [True] * 28 + [False] * 12
b = [True] * 24 + [False] * 4 + [True] * 6 + [False] * 6  # pairs: 24 both right, 4 only A, 6 only B, 6 neither
with wb.checks.no_raise("compare(40 runs, 40 runs)", hint='compare raises only for a side with no runs or runs that are not paired'):
    got = compare(a, b)
assert type(got) is dict and set(got) == {"a", "b", "difference", "margin", "verdict"}, (
    f"compare returns a dict with a, b, difference, margin and verdict; got {got!r}")
paired = 1.96 * (10 / 40 - 0.05 ** 2) ** 0.5 / 40 ** 0.5  # d: six +1, four -1, thirty 0
expected = {"a": 0.7, "b": 0.75, "difference": 0.05, "margin": paired}
for key, value in expected.items():
    assert type(got[key]) is float and abs(got[key] - value) < 1e-9, (
        f"compare(...)[{key!r}] should be {value:.4f} (b - a for the difference; for the margin, "
        f"1.96 * pstdev(d) / sqrt(n) over the pairs' d = b - a), got {got[key]!r}"
        + (" — 0.1954 is the margin of two independent samples: these runs are paired"
           if key == "margin" and abs(got[key] - 0.1954) < 1e-3 else ""))
wb.checks.equal(got["verdict"], "not enough runs", "the verdict on 0.70 vs 0.75 over 40 pairs",
                hint="a difference smaller than its margin is noise")
wb.checks.equal(compare([True] * 50 + [False] * 50, [True] * 90 + [False] * 10)["verdict"], "B is better",
                "the verdict on 0.5 vs 0.9 over 100 pairs")
wb.checks.equal(compare([True] * 90 + [False] * 10, [True] * 50 + [False] * 50)["verdict"], "A is better",
                "the verdict on 0.9 vs 0.5 over 100 pairs")
wb.checks.equal(compare([False] * 5, [True] * 4 + [False])["verdict"], "not enough runs",
                "the verdict on 5 pairs, 4 of them for B", hint="fewer than MIN_PAIRS pairs: the normal "
                "approximation's ± 0.35 claims more than 5 pairs show")
wb.checks.equal(compare([True], [False])["verdict"], "not enough runs", "the verdict on one pair",
                hint="fewer than MIN_PAIRS pairs: one run taken as the truth")
wb.checks.equal(compare([False] * 30, [True] * 30)["verdict"], "B is better", "the verdict on 30 pairs, all for B",
                hint="fewer than MIN_PAIRS pairs is not enough; MIN_PAIRS (30) pairs are")
with wb.checks.raises(ValueError, match="no runs", what="compare([], [])"):
    compare([], [])
for a, b, side in (([], [True], "a"), ([True], [], "b")):
    with wb.checks.raises(ValueError, match=rf"(?<!\w){side}(?!\w).*no runs|no runs.*(?<!\w){side}(?!\w)",
                          what=f"compare({a}, {b}) (the error says which side has no runs: {side})"):
        compare(a, b)
with wb.checks.raises(ValueError, match="paired", what="compare(30 runs, 31 runs)"):
    compare([True] * 30, [True] * 31)
print("compare: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "compare_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: exactly MIN_PAIRS pairs, 29 pairs, shares of 0 and 1, pairs that agree often and
rarely, b empty, lengths that differ by one."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
wb.checks.equal(compare([False] * 30, [True] * 30)["verdict"], "B is better", "0 vs 1 over 30 pairs")
wb.checks.equal(compare([False] * 29, [True] * 29)["verdict"], "not enough runs", "29 pairs")
wb.checks.equal(compare([True] * 30, [False] * 30)["verdict"], "A is better", "1 vs 0 over 30 pairs")
got = compare([True] * 30, [True] * 30)
wb.checks.equal((got["a"], got["b"], got["difference"], got["margin"], got["verdict"]),
                (1.0, 1.0, 0.0, 0.0, "not enough runs"), "all right on both sides")
a, b = [True] * 700 + [False] * 300, [True] * 760 + [False] * 240  # B right wherever A is, and 60 more
got = compare(a, b)
assert abs(got["difference"] - 0.06) < 1e-9 and abs(got["margin"] - 1.96 * 0.0564 ** 0.5 / 1000 ** 0.5) < 1e-9, got
wb.checks.equal(got["verdict"], "B is better", "0.70 vs 0.76 over 1000 pairs")
a2 = [True] * 70 + [False] * 30
b2 = [True] * 53 + [False] * 17 + [True] * 23 + [False] * 7  # 23 pairs for B, 17 for A
got = compare(a2, b2)
assert abs(got["margin"] - 1.96 * (0.40 - 0.06 ** 2) ** 0.5 / 10) < 1e-9, got
wb.checks.equal(got["verdict"], "not enough runs", "0.70 vs 0.76 over 100 pairs, 23 for B and 17 for A")
compare(a2, b2)
with wb.checks.raises(ValueError, match="runs", what="compare([True], [])"):
    compare([True], [])
with wb.checks.raises(ValueError, match="no runs", what="compare([], [])"):
    compare([], [])
with wb.checks.raises(ValueError, match="paired", what="compare(2 runs, 1 run)"):
    compare([True, False], [True])
print("compare: hidden tests passed")
### END HIDDEN TESTS

# %% [markdown]
# The verdicts on the runs above — 1, 10 and 1000 per task, all three tasks together, paired by
# task and seed:

# %%
def runs_of(system, seeds):
    return [checked(run_once(system, task, seed), task) for task in TASKS for seed in seeds]


for seeds in ([0], range(10), range(1000)):
    c = compare(runs_of(PROMPT_A, seeds), runs_of(PROMPT_B, seeds))
    print(f"{len(seeds):5} run(s) per task: A {c['a']:.2f}, B {c['b']:.2f}, B - A = {c['difference']:+.2f} "
          f"± {c['margin']:.2f} → {c['verdict']}")

# %% [markdown]
# **Runs are not tasks.** Three thousand pairs say B is better — on *these three questions*. They
# say nothing about a fourth: what you want to know is how B does on your customers' questions,
# and of those the task set is a sample of three. Look at the tasks one by one:

# %%
for task in TASKS:
    c = compare([checked(run_once(PROMPT_A, task, seed), task) for seed in range(1000)],
                [checked(run_once(PROMPT_B, task, seed), task) for seed in range(1000)])
    print(f"{task.name:8} B - A = {c['difference']:+.2f} ± {c['margin']:.2f} → {c['verdict']}")

# %% [markdown]
# B's lead comes from one task (`order`), a little from another, and nothing from `taxi`. With a
# fourth task the overall number could move either way, and no number of extra runs on these
# three would tell you which. The runs of one task are not independent draws from all questions:
# they are clustered by task. More runs shrink the margin *on the tasks you have*; only more tasks
# make a result hold beyond them — the evaluation's population is questions, as Miller (2024)
# puts it, and its error bars are clustered by question. So grow the task set first (every bug a
# customer reports becomes a task), run each task a few times, and compare the variants paired.

# %% [markdown]
# ## Part 4 · An LLM judge, and its position bias
#
# Some answers have no facts to check: is this reply polite, is this summary complete? Then a
# model judges: it reads the question and two answers and names the better one. Judges have
# known biases (Zheng et al., 2023): **position** (the first answer shown wins more often than it
# should) and **length** (the longer answer wins). The fake judge has a strong position bias: when
# the two answers are equally good it picks **Answer 1**. Watch it:

# %%
JUDGE_SYSTEM = ("You are a strict judge. Read the question and two answers. Reply with exactly "
                "'Winner: 1' or 'Winner: 2' for the better answer.")


def judge_prompt(question, one, two):
    """The judge's user message: the question and two answers, numbered, nothing else."""
    return f"Question: {question}\n\nAnswer 1:\n{one}\n\nAnswer 2:\n{two}"


def ask_judge(judge, question, one, two):
    reply = judge([{"role": "system", "content": JUDGE_SYSTEM},
                   {"role": "user", "content": judge_prompt(question, one, two)}], [])
    return reply.get("final")


judge = scenarios.biased_judge().as_function()
t = TASKS[2]
print("right vs wrong:", ask_judge(judge, t.question, t.right[0], t.wrong[0]),
      "| wrong vs right:", ask_judge(judge, t.question, t.wrong[0], t.right[0]))
print("two right answers:", ask_judge(judge, t.question, t.right[0], t.right[1]),
      "| the same, swapped:", ask_judge(judge, t.question, t.right[1], t.right[0]))

# %% [markdown]
# On a real difference it is right in either order. On a tie it says "Answer 1" both times:
# whichever answer you happen to show first wins. The fix is cheap: ask **twice**, the second
# time with the answers **swapped**, and average. A judge that agrees with itself gives 1 or 0;
# one that flips with the order gives 0.5 — a tie, which is the truth. (Swapping does nothing for
# the length bias: keep answers to the same length budget, and prefer a checker where you can.)
#
# **Should the judge see the expected answer?** For questions it cannot solve itself, often yes:
# Zheng et al. found their judge grades maths and reasoning answers much better with a reference
# answer in its prompt, and MT-Bench shows the judge one for its maths, reasoning and coding
# questions. But a reference helps only a judge that uses it well, and one that grades by
# closeness to one wording gets worse. Nothing tells you which kind you have except a
# measurement: answers you labelled by hand. Here the labels are the task set's right and wrong
# answers; each pair is judged in both orders, without and then with the reference:

# %%
def judge_prompt_with_reference(question, reference, one, two):
    """judge_prompt with a reference answer before the two answers (a reference-guided judge)."""
    return f"Question: {question}\n\nReference answer: {reference}\n\nAnswer 1:\n{one}\n\nAnswer 2:\n{two}"


def agreement(judge, with_reference):
    """The share of labelled pairs (a right and a wrong answer, both orders) the judge decides right."""
    hits = total = 0
    for t in TASKS:
        for good in t.right:
            for bad in t.wrong:
                for one, two, label in ((good, bad, 1), (bad, good, 2)):
                    prompt = (judge_prompt_with_reference(t.question, t.reference, one, two) if with_reference
                              else judge_prompt(t.question, one, two))
                    reply = judge([{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}], [])
                    hits += reply.get("final") == f"Winner: {label}"
                    total += 1
    return hits / total


print(f"agreement with the labels, without a reference: {agreement(judge, False):.2f}")
print(f"agreement with the labels, with the reference:  {agreement(judge, True):.2f}")

# %% [markdown]
# This fake judge is the bad kind, on purpose: shown a reference, it counts the words an answer
# shares with it, so `You spent 15000 KZT on taxis in September 2026` beats `You spent 5000 kzt on
# 2 taxi rides`. A real judge may be the good kind — measure it the same way before you decide,
# on a few dozen labelled pairs, and again when you change the judge's model or prompt. Two rules
# hold for every judge: where an exact answer decides what is right, a **checker** decides it
# better and for free; and a judge's verdicts count only after they agree with labels you made
# (report the agreement, and a chance-corrected one such as Cohen's kappa when the labels are
# unbalanced).

# %% [markdown]
# ## Exercise 4 — `judge_pair` (4 points)
#
# Write `judge_pair(judge, task, first, second)` → the score of `first` against `second`, a
# `float`: `1.0` (first is better), `0.0` (second is better) or `0.5` (a tie).
#
# - `judge(messages, tools)` is a model on the function face; its reply is `{"final": text}`.
#   Call it exactly **twice**, with `[{"role": "system", "content": JUDGE_SYSTEM}, {"role":
#   "user", "content": judge_prompt(task.question, x, y)}]` and `[]` as tools: first with
#   `(first, second)`, then with `(second, first)`.
# - Read the winner from the text: `Winner: 1` or `Winner: 2` (any case, spaces allowed after the
#   colon), wherever it stands in the text. A reply without one → `ValueError` that says the
#   judge's reply had no winner.
# - First's score: 1 for a win in the first call, 1 for a win in the second (where it is Answer
#   **2**), averaged.
# - The judge sees the question and the two answers only, never `task.reference`: the measurement
#   above shows this judge is worse with it (for another judge, measure again).

# %% nbgrader={"grade": false, "grade_id": "judge_pair", "locked": false, "schema_version": 3, "solution": true}
def judge_pair(judge, task, first, second):
    """First's score against second (1.0, 0.5 or 0.0): two judge calls, the order swapped, averaged."""
    ### BEGIN SOLUTION
    def winner(one, two):
        reply = judge([{"role": "system", "content": JUDGE_SYSTEM},
                       {"role": "user", "content": judge_prompt(task.question, one, two)}], [])
        text = reply.get("final") if isinstance(reply, dict) else None
        found = re.search(r"winner:\s*([12])\b", text or "", re.IGNORECASE)
        if found is None:
            raise ValueError(f"the judge's reply had no winner ('Winner: 1' or 'Winner: 2'): {text!r:.100}")
        return int(found.group(1))

    wins = (winner(first, second) == 1) + (winner(second, first) == 2)
    return wins / 2
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "judge_pair_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: judge_pair scores right vs wrong 1.0 and wrong vs right 0.0; two right answers
tie at 0.5 (the position bias removed); exactly two calls, the second with the answers swapped;
the reference answer is never shown; the messages are JUDGE_SYSTEM and judge_prompt; a winner is
read after other digits, in any case and spacing; no winner is a ValueError."""
from workbook.checks import fresh

wb = fresh()
# The test's own copies of the given code it expects: a notebook that rebinds these names changes nothing here.
#@include 20_evaluating_an_agent JUDGE_SYSTEM
#@include 20_evaluating_an_agent judge_prompt
E, S = wb.scenarios.evaluation, wb.scenarios
t = E.TASKS[0]
judge = S.biased_judge().as_function(max_calls=2)
with wb.checks.no_raise("judge_pair(judge, taxi, right, wrong)", hint="ask the judge twice, in both orders, and read 'Winner: 1' or 'Winner: 2' from each reply"):
    score = judge_pair(judge, t, t.right[0], t.wrong[0])
wb.checks.equal(score, 1.0, "judge_pair(judge, taxi, right answer, wrong answer)")
assert judge.calls == 2, f"call the judge exactly twice (once per order), it was called {judge.calls} times"
wb.checks.equal(judge.requests[0], [{"role": "system", "content": JUDGE_SYSTEM},
                                    {"role": "user", "content": judge_prompt(t.question, t.right[0], t.wrong[0])}],
                "the messages of the first judge call", hint="JUDGE_SYSTEM, then judge_prompt(task.question, first, second)")
shown = [r[-1]["content"] for r in judge.requests]
assert shown[0].index(t.right[0]) < shown[0].index(t.wrong[0]) and \
    shown[1].index(t.wrong[0]) < shown[1].index(t.right[0]), (
        "the first call shows (first, second), the second call the same answers swapped (second, first)")
wb.checks.equal(judge_pair(S.biased_judge().as_function(max_calls=2), t, t.wrong[0], t.right[0]), 0.0,
                "judge_pair(judge, taxi, wrong answer, right answer)")
r = E.TASKS[2]
wb.checks.equal(judge_pair(S.biased_judge().as_function(max_calls=2), r, r.right[0], r.right[1]), 0.5,
                "judge_pair on two right answers", hint="the judge picks Answer 1 on a tie: ask in both orders, average")
judge = S.biased_judge().as_function(max_calls=2)
score = judge_pair(judge, t, t.right[1], t.wrong[0])
assert not any(t.reference in m["content"] for req in judge.requests for m in req), (
    "the judge must not see task.reference: this judge then prefers the answer that copies the "
    "reference's words (Part 4 measured it: it agrees with the labels less often with the reference)")
wb.checks.equal(score, 1.0, f"judge_pair(judge, taxi, {t.right[1]!r}, {t.wrong[0]!r})")
biased = S.biased_judge().as_function(max_calls=2)


def chatty(messages, tools=None):
    """The fake judge, with a sentence before its verdict."""
    return {"final": f"Answer 1 and Answer 2 both name an amount. {biased(messages, tools)['final']}"}


wb.checks.equal(judge_pair(chatty, t, t.right[0], t.wrong[0]), 1.0, "judge_pair with a judge that writes "
                "'Answer 1 and Answer 2 ...' before its 'Winner:'", hint="search for 'Winner: <1 or 2>', not the first digit")
for text in ("winner:2", "WINNER:   2."):
    wb.checks.equal(judge_pair(S.scripted(text).as_function(max_calls=2), t, "a", "b"), 0.5,
                    f"judge_pair with a judge that always says {text!r}", hint="any case, any spaces after the colon")
with wb.checks.raises(ValueError, match="winner", what="judge_pair with a judge that replies 'Both are fine.'"):
    judge_pair(S.scripted("Both are fine.").as_function(max_calls=2), t, "a", "b")
print("judge_pair: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "judge_pair_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: every task both ways; a judge that always says 2 gives 0.5; case and spacing of
'Winner'; the system prompt and judge_prompt sent; no winner on the second call; a winner 3."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh

wb = fresh()
# The test's own copies of the given code it expects: a notebook that rebinds these names changes nothing here.
#@include 20_evaluating_an_agent JUDGE_SYSTEM
#@include 20_evaluating_an_agent judge_prompt
E, S = wb.scenarios.evaluation, wb.scenarios
for t in E.TASKS:
    for good in t.right:
        for bad in t.wrong:
            judge = S.biased_judge().as_function(max_calls=2)
            wb.checks.equal(judge_pair(judge, t, good, bad), 1.0, f"{t.name}: {good!r} vs {bad!r}")
            assert not any(t.reference in m["content"] for req in judge.requests for m in req), "no reference"
            wb.checks.equal(judge_pair(S.biased_judge().as_function(max_calls=2), t, bad, good), 0.0,
                            f"{t.name}: {bad!r} vs {good!r}")
    wb.checks.equal(judge_pair(S.biased_judge().as_function(max_calls=2), t, t.wrong[0], t.wrong[1]), 0.5,
                    f"{t.name}: two wrong answers tie")
for text, expected in (("Winner: 2", 0.5), ("winner:1", 0.5), ("WINNER:   2.", 0.5)):
    judge = S.scripted(text).as_function(max_calls=2)
    wb.checks.equal(judge_pair(judge, E.TASKS[1], "x", "y"), expected, f"a judge that always says {text!r}")
    req = judge.requests[0]
    assert req[0] == {"role": "system", "content": JUDGE_SYSTEM}, "the first message is the judge's system prompt"
    assert req[1] == {"role": "user", "content": judge_prompt(E.TASKS[1].question, "x", "y")}, "then judge_prompt"
flips = S.scripted("Winner: 1").as_function(max_calls=2)
wb.checks.equal(judge_pair(flips, E.TASKS[1], "x", "y"), 0.5, "a judge that always says 1")


class Second:
    """A judge whose second reply has no winner."""

    def __init__(self):
        self.calls = 0

    def __call__(self, messages, tools=None):
        self.calls += 1
        return {"final": "Winner: 1" if self.calls == 1 else "I cannot decide."}


with wb.checks.raises(ValueError, match="winner", what="judge_pair when the second reply has no winner"):
    judge_pair(Second(), E.TASKS[1], "x", "y")
with wb.checks.raises(ValueError, match="winner", what="judge_pair with 'Winner: 3'"):
    judge_pair(S.scripted("Winner: 3").as_function(max_calls=2), E.TASKS[1], "x", "y")
print("judge_pair: hidden tests passed")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 5 · A regression check for CI
#
# An evaluation you run once is a report; one that runs on every change is a **guard**. A CI job
# cannot pay for hundreds of live runs on every commit, but it can run the task set against a
# fake with fixed seeds — deterministic, free, a second — and fail the build when the share of
# right runs drops below a **baseline** by more than the noise. The baseline is measured once and
# committed; the seeds are fixed so the same code always gets the same number.

# %%
BASELINE = {"A": 0.71, "B": 0.76}  # measured on 1000 seeds per task, committed with the prompts


def regression_check(system, baseline, seeds=range(200), slack=None):
    """Raise AssertionError when the share of right runs falls below baseline minus the noise."""
    _, share = pass_table(system, seeds)
    n = len(seeds) * len(TASKS)
    slack = margin(baseline, n) if slack is None else slack
    assert share >= baseline - slack, (
        f"regression: {share:.2f} right over {n} runs, baseline {baseline:.2f} (allowed down to {baseline - slack:.2f})")
    return share


print("prompt B:", regression_check(PROMPT_B, BASELINE["B"]))
try:
    regression_check(PROMPT_A, BASELINE["B"])  # someone "simplified" the prompt back to A
except AssertionError as e:
    print("prompt A against B's baseline:", e)

# %% [markdown]
# In a repository this is a test file the CI job runs, e.g.
# `def test_prompt_has_not_regressed(): regression_check(PROMPT_B, BASELINE["B"])`. Two cautions:
# a fake checks your **code** (the loop, the checkers, the prompt plumbing), not the model; and a
# live-model version belongs in a nightly job with many runs, with the margin from Part 3 — never a
# single run that fails the build at random.
#
# The whole chapter in one table, as the notebook measured it:

# %%
def share(system, seeds):
    return pass_table(system, seeds)[1]


def passes(system):
    try:
        regression_check(system, BASELINE["B"])
        return "passes"
    except AssertionError:
        return "fails"


lines = [("right runs, 1 per task (seed 0)", lambda p: f"{share(p, [0]):.2f}"),
         ("right runs, 10 per task", lambda p: f"{share(p, range(10)):.2f}"),
         ("right runs, 1000 per task", lambda p: f"{share(p, range(1000)):.2f}"),
         ("pass^3 of returns, 1000 runs", lambda p: f"{pass_table(p, range(1000), k=3)[0]['returns'][1]:.2f}"),
         ("regression check, B's baseline", passes)]
print(f"| {'metric':32} | {'prompt A':>9} | {'prompt B':>9} |")
print(f"|{'-' * 34}|{'-' * 11}|{'-' * 11}|")
for label, value in lines:
    print(f"| {label:32} | {value(PROMPT_A):>9} | {value(PROMPT_B):>9} |")
print(f"runs per prompt needed to tell A from B: about {runs_needed(share_a, share_b)}")

# %% [markdown]
# ## Part 6 · How the runs ended: count the limits
#
# A share of right runs says how often the agent was right; it does not say how the other runs
# ended. A run can be wrong in its answer, or never answer at all: stopped by a limit (chapter 06)
# or crashed. Those are different failures with different fixes. A prompt that lifts the right
# share by two points while the step limit starts firing in one run of ten has made the agent
# slower, dearer and worse for the customers who wait for a person; a model that loops where the
# old one answered is a regression whatever its right share says. This is why chapter 06's loop
# returns a status for every stop: so an evaluation can **count** them.
#
# Here is a small evaluation of chapter 06's loop, given below with its `report_actions` (a stop
# after a tool that writes says `after refund ran`), over the limit scenarios. One task's provider
# fails with a 500 error and the run crashes (the client does not retry here): its result is `None`.

# %% nbgrader={"grade": false, "grade_id": "given_limited_loop", "locked": true, "schema_version": 3, "solution": false}
import json
import time
from collections import Counter
from dataclasses import dataclass

from workbook.fake_llm import FakeLLM
from workbook.shop import Shop


#@include 02_the_loop AgentResult


#@include 03_openai_format call_tool


#@include 06_limits tool_message


#@include 06_limits run_agent


#@include 06_limits report_actions


WRITES = {"refund", "card_block", "write_note"}


def refund(order_id, amount):
    """Chapter 06's refund whose payment provider never answers: it may or may not have paid."""
    raise TimeoutError(f"the payment provider did not answer on the refund of {order_id} within 30 s")


def tools():
    """The shop's tools, a knowledge base with no hits, a long report and a refund that times out."""
    return {**Shop("C-001").tools(), "search_kb": lambda query: {"hits": []}, "refund": refund,
            "fetch_report": lambda page: {"page": page, "text": "Taxi 2500 KZT; food 5400 KZT; " * 20}}


def limited_run(name, **limits):
    """One run of chapter 06's loop on a scenario; None when the run crashed."""
    scenario = scenarios.get(name)
    client = FakeLLM(scenario).client(max_retries=0)
    try:
        return report_actions(lambda impl: run_agent(client, "fake-model", scenario.question,
                                                     scenario.openai_tools(), impl, **limits),
                              tools(), WRITES)
    except Exception as e:  # the provider failed and the client did not retry
        print(f"{name}: crashed ({type(e).__name__})")
        return None


SUITE = [("taxi_spending", {}), ("two_orders", {}), ("never_finishes", {"max_steps": 4}),
         ("goes_in_circles", {}), ("token_hog", {"max_tokens": 3_000}), ("cut_off", {}),
         ("content_filtered", {}), ("refund_with_timeout", {}), ("repeat_forever", {}),
         ("flaky_server", {})]
limit_results = [limited_run(name, **limits) for name, limits in SUITE]
for (name, _), result in zip(SUITE, limit_results):
    print(f"{name:20} {result.status if result else 'crashed'}")

# %% [markdown]
# ## Exercise 5 — `stop_counts` (3 points)
#
# Write `stop_counts(results)`. `results` is a list with one entry per run: an `AgentResult` (read
# its `status`), or `None` for a run that crashed. Return a dict:
#
# | key | value |
# |---|---|
# | `"runs"` | the number of runs, crashed ones included |
# | `"done"` | the runs whose status is `"done"` |
# | `"crashed"` | the runs that are `None` |
# | `"stopped"` | a dict: for each limit, the number of runs it stopped |
#
# - the limit is what follows `"STOPPED: "`, up to `" after "` when the status has it:
#   `"STOPPED: loop after refund ran"` counts as `"loop"` (chapter 06 says what acted; the limit
#   is the same), `"STOPPED: step limit"` as `"step limit"`;
# - any other status (not a `str`, or neither `"done"` nor `"STOPPED: …"`) → `ValueError` that
#   names the **status**: an evaluation that skips what it cannot read hides failures;
# - no runs → every count 0, `"stopped"` empty.

# %% nbgrader={"grade": false, "grade_id": "stop_counts", "locked": false, "schema_version": 3, "solution": true}
def stop_counts(results):
    """How the runs ended: done, crashed, and how many each limit stopped."""
    ### BEGIN SOLUTION
    counts = {"runs": 0, "done": 0, "crashed": 0, "stopped": {}}
    for result in results:
        counts["runs"] += 1
        if result is None:
            counts["crashed"] += 1
            continue
        status = result.status
        if status == "done":
            counts["done"] += 1
        elif isinstance(status, str) and status.startswith("STOPPED: "):
            limit = status[len("STOPPED: "):].split(" after ")[0]
            counts["stopped"][limit] = counts["stopped"].get(limit, 0) + 1
        else:
            raise ValueError(f"unknown status {status!r}: a run is done, STOPPED: <limit>, or None (crashed)")
    return counts
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "stop_counts_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: stop_counts counts done, crashed (None) and stopped runs by limit on seven runs;
a stop "after refund ran" counts as its limit; a limit of two words is one limit; two stops by the
same limit are two; an unknown status is a ValueError that names it; no runs, all counts 0."""
from dataclasses import dataclass

from workbook.checks import fresh

#@include 02_the_loop AgentResult


wb = fresh()
runs = [AgentResult("5000 KZT.", "done", 2), None, AgentResult(None, "STOPPED: step limit", 8),
        AgentResult(None, "STOPPED: loop after refund ran", 3), AgentResult(None, "STOPPED: loop", 5),
        AgentResult(None, "STOPPED: token budget", 4), AgentResult("Shipped.", "done", 2)]
with wb.checks.no_raise("stop_counts(seven runs)", hint="a crashed run is None: count it, do not read its status"):
    got = stop_counts(runs)
wb.checks.equal(got, {"runs": 7, "done": 2, "crashed": 1,
                      "stopped": {"step limit": 1, "loop": 2, "token budget": 1}}, "stop_counts(seven runs)",
                hint="the limit is the text after 'STOPPED: ' up to ' after ' (a loop after a refund is a loop); "
                     "every run counts once, a crashed one (None) as crashed")
for status in ("error", "Done", 42):
    with wb.checks.raises(ValueError, match=str(status), what=f"stop_counts with a status {status!r}"):
        stop_counts([AgentResult(None, status, 1)])
wb.checks.equal(stop_counts([]), {"runs": 0, "done": 0, "crashed": 0, "stopped": {}}, "stop_counts([])")
print("stop_counts: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "stop_counts_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: the evaluation above; every limit of chapter 06; a status with several tools
after it; only crashes; the error names the status."""
### BEGIN HIDDEN TESTS
from dataclasses import dataclass

from workbook.checks import fresh

#@include 02_the_loop AgentResult


wb = fresh()
limits = ["step limit", "timeout", "token budget", "loop", "length", "content_filter", "empty answer"]
runs = [AgentResult(None, f"STOPPED: {limit}", 1) for limit in limits for _ in range(2)]
wb.checks.equal(stop_counts(runs), {"runs": 14, "done": 0, "crashed": 0, "stopped": {limit: 2 for limit in limits}},
                "two runs stopped by each limit of chapter 06")
runs = [AgentResult(None, "STOPPED: timeout after refund, write_note ran", 6),
        AgentResult(None, "STOPPED: timeout", 6), None, None, AgentResult("Refunded.", "done", 3)]
wb.checks.equal(stop_counts(runs), {"runs": 5, "done": 1, "crashed": 2, "stopped": {"timeout": 2}},
                "timeouts with and without writes, two crashes, one answer")
wb.checks.equal(stop_counts([None] * 3), {"runs": 3, "done": 0, "crashed": 3, "stopped": {}}, "three crashed runs")
for status in ("stopped: loop", "STOPPED:loop", None, ""):
    with wb.checks.raises(ValueError, match="status", what=f"stop_counts with a status {status!r}"):
        stop_counts([AgentResult("x", "done", 1), AgentResult(None, status, 1)])
got = stop_counts([AgentResult(None, "STOPPED: loop after refund ran", 3)] * 4)
wb.checks.equal(got, {"runs": 4, "done": 0, "crashed": 0, "stopped": {"loop": 4}}, "four loops after a refund")
### END HIDDEN TESTS

# %% [markdown]
# The evaluation above, counted:

# %%
counts = stop_counts(limit_results)
print(f"{counts['runs']} runs: {counts['done']} done, {counts['crashed']} crashed, stopped by "
      + ", ".join(f"{limit} {n}" for limit, n in sorted(counts["stopped"].items(), key=lambda kv: -kv[1])))

# %% [markdown]
# Put these counts next to the right share in every comparison table, and in the regression check
# of Part 5: a change that makes a limit fire more often is a regression even when the share of
# right runs holds. And read the runs a limit stopped before you raise the limit: a loop or a
# growing bill is usually a tool result the model cannot use, not a limit that is too tight.

# %% [markdown]
# ## Common mistakes
#
# - **One run taken as the truth.** One run per prompt, or the first of n, decides nothing; even
#   ten runs cannot show a difference of a few points. Count the runs a difference needs.
# - **A checker that passes everything.** A substring test (`"5000 KZT" in "15000 KZT"`), a
#   case-sensitive one that fails `SHIPPED`, one that ignores forbidden phrases, `any` where `all`
#   is meant, or a task with no required facts that returns `True` — each makes the numbers look
#   better than the agent is.
# - **A crash that breaks the checker.** A run that crashed has no answer: it is a wrong run, not
#   an exception that ends the evaluation.
# - **A verdict without a margin.** B ahead by a few points on a few runs is noise; so is one
#   share's margin quoted for a difference, or any verdict on fewer than 30 pairs.
# - **Unpaired runs.** Both variants ran the same tasks with the same seeds: compare them pair by
#   pair, so what a task does to both cancels out.
# - **Runs in place of tasks.** A thousand runs of three tasks say how B does on three questions.
#   Confidence beyond them comes from more tasks, not more runs.
# - **`(c/n) ** k` for pass^k.** It treats the runs you happened to get as the model's true
#   rate; the formulas with `math.comb` pick k of your n runs.
# - **A judge asked once.** Whichever answer is shown first wins the ties. Ask twice, swapped,
#   and average — and read the second verdict the other way round (Answer 2 is `first` there).
# - **A judge trusted untested.** With a reference answer or without one, a judge's verdicts count
#   after they agree with labels you made; and where an exact answer exists, use a checker.
# - **Reading the first digit of the judge's reply** instead of its `Winner:` line.
# - **Only the right share.** Runs that a limit stopped or that crashed vanish into "wrong". Count
#   them by limit, a crashed run (`None`) as crashed rather than skipped, and every run of a limit
#   (a count set to 1 each time says "it happened", not how often).
# - **The whole status as the limit.** `"STOPPED: loop after refund ran"` is a loop: cut at
#   `" after "`, and keep the limit's whole name (`"step limit"`, not `"step"`).
# - **Skipping a status you cannot read.** A new status is a bug in the loop or the evaluation:
#   raise, naming it.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show as show_quiz

show_quiz("20_evaluating_an_agent")

# %% [markdown]
# ## Live cell (optional): your model on the task set
#
# Ten runs of each task on the model you configured, checked by your `check`. It runs only when
# `LLM_PROVIDER` names a live provider (see chapter 00) and is never graded. A real model has no
# tools here and does not know the shop, so expect it to fail the facts: the point is to see a
# checker and pass@k on real, varying answers. That is 30 model calls.

# %%
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client

if live_enabled():
    try:
        live_client, live_model = make_client()
        for task in TASKS:
            outcomes = []
            for _ in range(10):
                reply = live_client.chat.completions.create(model=live_model, messages=[
                    {"role": "system", "content": PROMPT_B}, {"role": "user", "content": task.question}])
                outcomes.append(check(reply.choices[0].message.content, task))
            print(task.name, "pass@3, pass^3 =", pass_k(outcomes, 3))
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# You can now say how good an agent is, and how sure you are. Use it before every change you
# believe in: a new prompt, a new model, a new tool. Keep the task set growing — every bug a
# customer finds becomes a task with a checker — and keep the regression check in CI, so the
# numbers you measured today still hold tomorrow.
