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
# # 08 · Timeouts, retries and idempotency keys
#
# Until now every request reached the provider and every answer came back. In production neither
# is guaranteed. The provider says **429** because you are sending too much, or **503** because it
# is overloaded; the network drops a connection; a request hangs until your timeout gives up.
# Most of these failures go away if you wait a moment and try again, so the agent should retry
# them instead of telling the customer "something went wrong".
#
# Retrying has a dark side. A request that timed out may still have been carried out: the payment
# service refunded the money, but its answer never reached you. Try again naively and the customer
# is refunded twice. This chapter builds retries that help, and the **idempotency keys** that make
# retrying an action that moves money safe.
#
# **Learning goals.** After this chapter you can
# - tell the failures worth retrying (408, 409, 429, 5xx, connection errors, timeouts) from the
#   ones that never are (400 and the other 4xx);
# - compute a retry delay: exponential **backoff** with **jitter**, or the server's `retry-after`;
# - say what the `openai` SDK already retries (`max_retries`), and switch it off where your own
#   retry loop runs, so exactly one layer retries;
# - explain why a timed-out action has an *unknown* outcome, not a failed one;
# - derive an **idempotency key** from the request, so a retry cannot refund twice, and catch a
#   refund the model asks for again in a later step with a **business key**.
#
# **Time:** about 90 minutes.
#
# **Builds on:** 03 · The OpenAI wire format (the loop on `chat.completions.create`, the 400s) and
# 07 · What only code decides (state-changing tools; what the model may and may not choose). What
# you need from them is restated below as given code.

# %% [markdown]
# ## Given code from chapters 03 and 07
#
# `AgentResult` and chapter 03's `run_agent`, with three small changes that this chapter needs:
#
# - `create=` chooses the function that makes the model call. It defaults to the client's own
#   `chat.completions.create`; later you pass your retrying version.
# - A model error that is still there after any retries ends the run with a **stop status**
#   (`"STOPPED: model error (RateLimitError)"`), never with a traceback.
# - A tool can ask for the id of the tool call that invoked it by declaring a keyword-only
#   parameter `call_id`. The **code** fills it in; a model that sends `call_id` as an argument gets
#   an error. (Chapter 07's rule: what identifies a request is decided by code, not by the model.)

# %% nbgrader={"grade": false, "grade_id": "given_chapter_03", "locked": true, "schema_version": 3, "solution": false}
import functools
import hashlib
import inspect
import json
import random
import time
from dataclasses import dataclass

import openai

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.payments import Payments, PaymentTimeout
from workbook.probes import elsewhere  # the tests run your idempotency_key "a year later", "in another process"
from workbook.shop import Shop


#@include 02_the_loop AgentResult


def call_tool(impl, name, args, call_id=None):
    """Run impl[name](**args), adding call_id= for tools that declare it: the result or {"error": ...}."""
    fn = impl.get(name)
    if fn is None:
        return {"error": f"unknown tool {name!r}; available tools: {', '.join(sorted(impl))}"}
    if "call_id" in args:
        return {"error": "'call_id' is not an argument you can send: the code sets it"}
    try:
        if "call_id" in inspect.signature(fn).parameters:
            return fn(**args, call_id=call_id)
        return fn(**args)
    except Exception as e:  # a failing tool is news for the model, not a crash
        return {"error": f"{type(e).__name__}: {e}"}


def run_agent(client, model, question, tools, impl, max_steps=8, create=None):
    """Chapter 03's loop; `create` makes the model call, and a model error becomes a stop status."""
    create = create or client.chat.completions.create
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        try:
            response = create(model=model, messages=messages, tools=tools)
        except openai.APIError as e:  # still failing after any retries: stop, and say why
            return AgentResult(None, f"STOPPED: model error ({type(e).__name__})", step)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
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
                result = call_tool(impl, call.function.name, args, call_id=call.id)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    return AgentResult(None, "STOPPED: step limit", max_steps)


# %% [markdown]
# ## Part 1 · What can fail, and what a retry can fix
#
# The fake provider can fail the way real ones do. `rate_limited` answers the first two attempts
# with **429 Too Many Requests**. The client below is made with `max_retries=0`, which switches
# off the SDK's own retries (more on those in Part 2), so you see the raw error:

# %%
llm = FakeLLM(scenarios.rate_limited())
client = llm.client(max_retries=0)
QUESTION = "How much did I spend on taxis in September?"
TOOLS = scenarios.rate_limited().openai_tools()

try:
    client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": QUESTION}],
                                   tools=TOOLS)
except openai.APIStatusError as e:
    print(type(e).__name__, e.status_code)
    print("message:    ", e.message)
    print("retry-after:", e.response.headers.get("retry-after"), "s;  retry-after-ms:",
          e.response.headers.get("retry-after-ms"))

# %% [markdown]
# The SDK turns every HTTP error into an exception whose class names the status, all under
# `openai.APIStatusError` (with `.status_code` and `.response`). Failures that never produced an
# HTTP answer are `openai.APIConnectionError`; a timeout is its subclass `openai.APITimeoutError`:

# %%
slow = FakeLLM(scenarios.slow_provider())
try:
    slow.client(max_retries=0).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": QUESTION}], tools=TOOLS)
except openai.APIConnectionError as e:
    print(type(e).__name__, "| is a connection error:", isinstance(e, openai.APIConnectionError),
          "| has a status code:", hasattr(e, "status_code"))

# %% [markdown]
# Whether to retry depends on **whose fault** the failure is, and whether it can change by itself:
#
# | failure | SDK exception | retry? | why |
# |---|---|---|---|
# | 400 Bad Request | `BadRequestError` | **never** | your request is wrong (chapter 03's broken pairing); sent again, it fails again |
# | 401, 403 | `AuthenticationError`, `PermissionDeniedError` | never | a wrong key stays wrong |
# | 404, 422 | `NotFoundError`, `UnprocessableEntityError` | never | no such model; a request the server cannot process |
# | 408 Request Timeout | `APIStatusError` | yes | the server gave up waiting; next time may be quicker |
# | 409 Conflict | `ConflictError` | yes | a lock or a concurrent request; it clears |
# | 429 Too Many Requests | `RateLimitError` | yes, **after the wait it asks for** | you are over your rate limit for now |
# | 500, 502, 503, 504 | `InternalServerError` | yes | the provider's fault, usually brief |
# | no connection, connection reset | `APIConnectionError` | yes | the network |
# | timeout | `APITimeoutError` | yes | but remember Part 5: it may have worked |
#
# A provider can also say it explicitly in the header `x-should-retry: true` or `false`; when it
# does, it knows better than the table.
#
# One 429 is special: `insufficient_quota` ("You exceeded your current quota") also comes as 429,
# but no wait fixes an empty account. A retry loop with a limited number of attempts stops on its
# own; a good one also logs the error code so a human notices.

# %% [markdown]
# ## Exercise 1 — `is_retryable` (3 points)
#
# Write `is_retryable(error)`: `True` when the failed model call is worth trying again, `False`
# otherwise. Return a real `bool`.
#
# - `openai.APIConnectionError`, including its subclass `openai.APITimeoutError` → `True`;
# - `openai.APIStatusError`:
#   - if the response has the header `x-should-retry` set to `"true"` or `"false"`, obey it;
#   - otherwise `True` for status 408, 409, 429 and every status ≥ 500, `False` for the rest;
# - anything else (a `ValueError` in your own code, a `KeyError`...) → `False`: a retry cannot
#   fix a bug.
#
# The header is in `error.response.headers` (a case-insensitive mapping with `.get`).

# %% nbgrader={"grade": false, "grade_id": "is_retryable", "locked": false, "schema_version": 3, "solution": true}
def is_retryable(error):
    """True when a failed model call is worth trying again."""
    ### BEGIN SOLUTION
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        should = error.response.headers.get("x-should-retry")
        if should in ("true", "false"):
            return should == "true"
        return error.status_code in (408, 409, 429) or error.status_code >= 500
    return False
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "is_retryable_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: is_retryable says True for the fake provider's 429 and False for its 400; True
for a 408, a 409, a 500, a connection error and a timeout (which have no status code); the
provider's x-should-retry wins both ways; False for an error that is not the API's."""
import httpx2
import openai

from workbook.checks import fresh

wb = fresh()


def error_from(scenario, messages):
    try:
        wb.fake_llm.FakeLLM(scenario).client(max_retries=0).chat.completions.create(
            model="fake-model", messages=messages)
    except openai.APIError as e:
        return e
    raise AssertionError("test set-up: the fake provider was expected to fail")


def says(error):
    """is_retryable(error), checked to be a bool before any test reads it."""
    with wb.checks.no_raise(f"is_retryable(<{type(error).__name__}>)",
                            hint="ask isinstance first: only an APIStatusError has status_code and response"):
        got = is_retryable(error)
    assert type(got) is bool, f"is_retryable must return True or False, got {got!r}"
    return got


rate_limited = error_from(wb.scenarios.rate_limited(), [{"role": "user", "content": "Taxi in September?"}])
bad_request = error_from(wb.scenarios.taxi_spending(), [{"role": "tool", "tool_call_id": "x", "content": "1"}])
assert says(rate_limited) is True, "a 429 (RateLimitError) goes away after a wait: retry it"
assert says(bad_request) is False, (
    "a 400 (BadRequestError) means the request itself is wrong: sending it again gives the same 400")
REQUEST = httpx2.Request("POST", "https://api.example.invalid/v1/chat/completions")
conflict = openai.ConflictError("Error code: 409", response=httpx2.Response(409, request=REQUEST), body=None)
assert says(conflict) is True, "409 is in the list of statuses worth a retry (408, 409, 429, >= 500)"
for status, cls in ((408, openai.APIStatusError), (500, openai.InternalServerError)):
    error = cls(f"Error code: {status}", response=httpx2.Response(status, request=REQUEST), body=None)
    assert says(error) is True, f"{status} is in the list of statuses worth a retry (408, 409, 429, >= 500)"
assert says(openai.APIConnectionError(request=REQUEST)) is True, (
    "an APIConnectionError (the network failed; it has no status code) is worth a retry: a check on status "
    "codes alone never retries it")
assert says(openai.APITimeoutError(request=REQUEST)) is True, (
    "an APITimeoutError (an APIConnectionError, with no status code) is worth a retry")
refused = openai.InternalServerError("Error code: 503", body=None, response=httpx2.Response(
    503, headers={"x-should-retry": "false"}, request=REQUEST))
assert says(refused) is False, "a 503 with the header x-should-retry: false must not be retried: obey it"
invited = openai.BadRequestError("Error code: 400", body=None, response=httpx2.Response(
    400, headers={"x-should-retry": "true"}, request=REQUEST))
assert says(invited) is True, "a 400 with the header x-should-retry: true may be retried: obey it"
got = says(ValueError("bad month"))
assert got is False, f"a ValueError from your own code is a bug, and a retry cannot fix it: expected False, got {got!r}"
print("is_retryable: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "is_retryable_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: is_retryable retries 408, 409, 429, every 5xx, connection errors and timeouts; never
400, 401, 403, 404 or 422; obeys x-should-retry; says False for errors that are not the API's; and
always returns a bool."""
### BEGIN HIDDEN TESTS
import json

import httpx2
import openai

from workbook.checks import fresh

wb = fresh()
REQUEST = httpx2.Request("POST", "https://api.example.invalid/v1/chat/completions")
CLASSES = {400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
           404: openai.NotFoundError, 409: openai.ConflictError, 422: openai.UnprocessableEntityError,
           429: openai.RateLimitError}


def status_error(status, headers=None):
    cls = CLASSES.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(f"Error code: {status}", response=httpx2.Response(status, headers=headers or {}, request=REQUEST),
               body=None)


def check(error, want, why):
    with wb.checks.no_raise(f"is_retryable({type(error).__name__})",
                            hint="ask isinstance first: only an APIStatusError has status_code and response"):
        got = is_retryable(error)
    assert type(got) is bool, f"is_retryable must return True or False, got {got!r} for {type(error).__name__}"
    assert got is want, f"expected {want} for {why}"


for status in (408, 409, 429, 500, 502, 503, 504, 529):
    check(status_error(status), True, f"HTTP {status}: retry 408, 409, 429 and every status from 500 up")
for status in (400, 401, 403, 404, 422):
    check(status_error(status), False, f"HTTP {status}: the request itself is wrong, a retry fails the same way")
check(openai.APIConnectionError(request=REQUEST), True,
      "an APIConnectionError: the network failed, and it has no status code to look at")
check(openai.APITimeoutError(request=REQUEST), True,
      "an APITimeoutError: the request timed out, and it has no status code to look at")

# The provider's own say, in the x-should-retry header.
check(status_error(503, {"x-should-retry": "false"}), False, "a 503 with x-should-retry false: obey the header")
check(status_error(400, {"x-should-retry": "true"}), True, "a 400 with x-should-retry true: obey the header")
check(status_error(429, {"x-should-retry": "maybe"}), True,
      "a 429 with an x-should-retry that is neither true nor false: ignore the header")

# Errors from the fake provider, as the SDK raises them.
try:
    wb.fake_llm.FakeLLM(wb.scenarios.flaky_server()).client(max_retries=0).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Taxi?"}])
except openai.InternalServerError as e:
    check(e, True, "the fake provider's 500: every status from 500 up is worth a retry")
try:
    wb.fake_llm.FakeLLM(wb.scenarios.slow_provider()).client(max_retries=0).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Taxi?"}])
except openai.APITimeoutError as e:
    check(e, True, "the fake provider's timeout: an APITimeoutError has no status code to look at")

# Not the API's errors: a retry cannot fix a bug.
for error in (ValueError("bad month"), KeyError("order_id"), TypeError("missing argument"),
              json.JSONDecodeError("Expecting value", "", 0)):
    check(error, False, f"a {type(error).__name__} from your own code: a retry cannot fix a bug")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 · The SDK already retries
#
# Before writing a retry loop, know that the `openai` package has one built in. Every client
# retries **twice** by default (`max_retries=2`, so up to three attempts), on exactly the failures
# in the table above, honouring `retry-after`. Watch it absorb the two 429s:

# %%
llm = FakeLLM(scenarios.rate_limited())
response = llm.client().chat.completions.create(  # default: max_retries=2
    model="fake-model", messages=[{"role": "user", "content": QUESTION}], tools=TOOLS)
print("finish_reason:", response.choices[0].finish_reason, "| requests the provider received:", llm.calls)

# %% [markdown]
# One call in your code, three requests on the wire, and no sign of it in your program. That is
# convenient for a script and a problem for an agent:
#
# - **Layers multiply.** If the SDK tries 3 times and your loop around it tries 4 times, one step
#   can send 12 requests to a provider that is already overloaded.
# - **Invisible waits.** The SDK sleeps with the real clock (up to 8 s between attempts, or as long
#   as `retry-after` says, up to 2 minutes). Your step limit and timeouts (chapter 06) cannot see
#   it, your trajectory log (chapter 09) does not record it, and tests cannot make it instant.
# - **No policy.** You cannot count retries, stop after a budget, or log the error code.
#
# So choose **one layer**. Where you run your own retry loop, switch the SDK's off for those
# calls. `with_options` returns a copy of the client with different settings; it does not change
# the original:

# %%
quiet = llm.client().with_options(max_retries=0)
print("default client:", llm.client().max_retries, "retries;  copy for our own loop:", quiet.max_retries)
print("default timeout:", llm.client().timeout)

# %% [markdown]
# The same goes for the timeout: 600 s by default, far longer than a customer waits.
# `client.with_options(timeout=30)` gives up sooner, and a timeout is retryable like any other
# transient failure.

# %% [markdown]
# ## Part 3 · How long to wait: backoff and jitter
#
# Retrying at once rarely helps: an overloaded server is still overloaded a millisecond later.
# **Exponential backoff** waits longer after each failure: 0.5 s, 1 s, 2 s, 4 s, then a cap
# (8 s), so a short hiccup costs half a second and a long outage does not turn into a flood.
#
# Backoff alone has a catch. When a provider fails, it fails for *everyone* at once. A thousand
# agents that all wait exactly 0.5 s, then 1 s, come back in synchronised waves and knock the
# server over again (the "thundering herd"). **Jitter** adds randomness to each wait so the
# retries spread out. The SDK shortens each wait by a random 0–25 %:
#
# ```
# delay(attempt) = min(0.5 · 2^attempt, 8) × (1 − 0.25 · random())        attempt = 0, 1, 2, ...
# ```
#
# Here are five clients that failed at the same moment, each with its own random numbers:

# %%
for client_no in range(1, 6):
    rand = random.Random(client_no).random
    waits = [min(0.5 * 2**attempt, 8) * (1 - 0.25 * rand()) for attempt in range(6)]
    print(f"client {client_no}: " + "  ".join(f"{w:5.2f}" for w in waits))

# %% [markdown]
# Passing `random` in as a parameter (`rand=`) is what makes this testable: a test hands in
# `lambda: 0.0` and knows the exact answer.
#
# **The server may know better.** A 429 usually says how long to wait: `retry-after: 20`
# (seconds) or, from OpenAI, `retry-after-ms: 350`. Waiting less wastes a request; waiting more
# wastes time. Use the server's number when it is sensible (above 0 and at most 120 s — the SDK
# ignores anything else and falls back to backoff; `retry-after` may also be an HTTP date, which
# you may ignore the same way).

# %% [markdown]
# ## Exercise 2 — `retry_delay` (3 points)
#
# Write `retry_delay(attempt, error, rand=random.random)`: how many seconds to wait before retry
# number `attempt` (0 before the first retry, 1 before the second, ...), as a `float`.
#
# 1. If `error` has a response (it is an `APIStatusError`) whose header `retry-after-ms` is a
#    number of milliseconds giving more than 0 and at most 120 seconds: return that (in seconds).
# 2. Otherwise, if its header `retry-after` is a number of seconds, more than 0 and at most 120:
#    return it.
# 3. Otherwise: `min(0.5 * 2**attempt, 8.0) * (1 - 0.25 * rand())`.
#
# A header that is missing, not a number, or out of range is simply not used; never raise. An
# `APIConnectionError` has no response: `getattr(error, "response", None)` is a safe way to ask.

# %% nbgrader={"grade": false, "grade_id": "retry_delay", "locked": false, "schema_version": 3, "solution": true}
def retry_delay(attempt, error, rand=random.random):
    """Seconds to wait before retry number `attempt`: the server's retry-after, or backoff with jitter."""
    ### BEGIN SOLUTION
    response = getattr(error, "response", None)
    headers = response.headers if response is not None else {}
    for name, per_second in (("retry-after-ms", 1000), ("retry-after", 1)):
        try:
            seconds = float(headers.get(name)) / per_second
        except (TypeError, ValueError):  # missing, or not a number (an HTTP date, say)
            continue
        if 0 < seconds <= 120:
            return seconds
    return min(0.5 * 2**attempt, 8.0) * (1 - 0.25 * rand())
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "retry_delay_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: without a retry-after, retry_delay doubles from 0.5 s up to 8 s (rand = 0) and is
up to 25 % shorter with rand = 1; the fake provider's 429 asks for 1 ms, and retry_delay returns
0.001; a retry-after of 20 s alone is used; a retry-after or retry-after-ms that is not a number of
seconds in range is not used."""
import httpx2
import openai

from workbook.checks import fresh

wb = fresh()
REQUEST = httpx2.Request("POST", "https://api.example.invalid/v1/chat/completions")
timeout = openai.APITimeoutError(request=REQUEST)  # a real request: newer SDKs read its headers


def delay(attempt, error, rand, what, hint="a timeout has no response: ask getattr with a default of None"):
    """retry_delay(attempt, error, rand=rand), checked to be a float before any test reads it."""
    with wb.checks.no_raise(f"retry_delay({attempt}, <{what}>)", hint=hint):
        got = retry_delay(attempt, error, rand=rand)
    assert type(got) is float, f"return a float number of seconds, got {got!r}"
    return got


got = [delay(attempt, timeout, lambda: 0.0, "a timeout") for attempt in range(6)]
assert got == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0], (
    f"without a retry-after, double the wait after each failure, up to 8 s: with rand() == 0 the waits "
    f"before retries 0..5 are [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]; got {got}")
try:
    wb.fake_llm.FakeLLM(wb.scenarios.rate_limited()).client(max_retries=0).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Taxi in September?"}])
except openai.RateLimitError as e:
    got = delay(0, e, lambda: 0.0, "the fake provider's 429", hint="read the headers of error.response")
    assert got == 0.001, (f"use the wait the server asks for: the 429 carries retry-after-ms: 1 (and "
                          f"retry-after: 1), and the milliseconds win: expected 0.001 s, got {got!r}")
got = delay(0, timeout, lambda: 1.0, "a timeout")
assert got == 0.375, (f"add the jitter, so clients that failed together do not retry together: "
                      f"0.5 * (1 - 0.25 * rand()) with rand() == 1 is 0.375; got {got!r}")
limited = openai.RateLimitError("Error code: 429", body=None,
                                response=httpx2.Response(429, headers={"retry-after": "20"}, request=REQUEST))
got = delay(3, limited, lambda: 0.0, "a 429 with retry-after: 20", hint="read the headers of error.response")
assert got == 20.0, (f"use the wait the server asks for: retry-after: 20 (and no retry-after-ms) means wait "
                     f"20 s, not the backoff; got {got!r}")
for headers in ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, {"retry-after": "3600"},
                {"retry-after-ms": "200000"}):
    limited = openai.RateLimitError("Error code: 429", body=None,
                                    response=httpx2.Response(429, headers=headers, request=REQUEST))
    got = delay(0, limited, lambda: 0.0, f"a 429 with {headers}",
                hint="a header that is not a number of seconds in range is ignored, never an error")
    assert got == 0.5, (f"{headers} is not a number of seconds in (0, 120]: ignore it and use the backoff, 0.5; "
                        f"got {got!r}")
print("retry_delay: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "retry_delay_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: retry_delay applies the jitter from rand(), honours retry-after-ms and retry-after in
range, ignores missing, zero, negative, huge and non-numeric values (HTTP dates too) without
raising, and uses backoff for connection errors."""
### BEGIN HIDDEN TESTS
import math
import random

import httpx2
import openai

from workbook.checks import fresh

wb = fresh()
REQUEST = httpx2.Request("POST", "https://api.example.invalid/v1/chat/completions")


def limited(headers):
    return openai.RateLimitError("Error code: 429", body=None,
                                 response=httpx2.Response(429, headers=headers, request=REQUEST))


def delay(attempt, error, rand=lambda: 0.0):
    with wb.checks.no_raise("retry_delay", hint="a header it cannot use is simply ignored, never an error"):
        got = retry_delay(attempt, error, rand=rand)
    assert type(got) in (float, int) and not isinstance(got, bool), f"return a number of seconds, got {got!r}"
    return got


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# Backoff: the wait doubles from 0.5 s, up to 8 s (rand() == 0: no jitter).
for attempt, base in ((0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)):
    got = delay(attempt, openai.APITimeoutError(request=REQUEST))
    assert close(got, base), (
        f"attempt {attempt} with rand() == 0: expected {base}, got {got}: double the wait after each failure, "
        "starting at half a second, up to 8 s")

# Jitter: up to 25 % shorter, decided by rand().
for r, factor in ((1.0, 0.75), (0.5, 0.875), (0.2, 0.95)):
    for attempt, base in ((0, 0.5), (2, 2.0), (3, 4.0), (9, 8.0)):
        got = delay(attempt, openai.APITimeoutError(request=REQUEST), rand=lambda r=r: r)
        assert close(got, base * factor), (
            f"attempt {attempt} with rand() == {r}: expected {base * factor}, got {got}: multiply the backoff by "
            "the jitter, one minus a quarter of rand()")
assert close(delay(40, openai.APIConnectionError(request=REQUEST)), 8.0), "the wait is capped at 8 s"
seeded = random.Random(3)
waits = {delay(1, openai.APITimeoutError(request=REQUEST), rand=lambda: seeded.random()) for _ in range(5)}
assert len(waits) == 5 and all(0.75 <= w <= 1.0 for w in waits), (
    f"use the rand you are given: five clients should get five different waits in [0.75, 1.0]; got {waits}")

# The server's wait, when it gives a usable one.
assert close(delay(3, limited({"retry-after": "20"})), 20.0), "retry-after: 20 means wait 20 s, not backoff"
assert close(delay(0, limited({"retry-after": "1.5"})), 1.5), "retry-after may be a decimal number of seconds"
assert close(delay(2, limited({"retry-after-ms": "350"})), 0.35), "retry-after-ms: 350 means 0.35 s"
assert close(delay(0, limited({"retry-after-ms": "250", "retry-after": "9"})), 0.25), (
    "retry-after-ms wins over retry-after")
assert close(delay(0, limited({"retry-after-ms": "soon", "retry-after": "2"})), 2.0), (
    "a retry-after-ms that is not a number is ignored; then retry-after applies")
assert close(delay(0, limited({"Retry-After": "4"})), 4.0), "header names are case-insensitive"
assert close(delay(1, limited({"retry-after": "120"})), 120.0), "up to 120 s is honoured"

# Unusable values fall back to backoff.
for headers in ({}, {"retry-after": "0"}, {"retry-after": "-3"}, {"retry-after": "121"},
                {"retry-after": "600"}, {"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"},
                {"retry-after": "nan"}, {"retry-after": "inf"}, {"retry-after-ms": "0"},
                {"retry-after-ms": "200000"}):
    got = delay(1, limited(headers), rand=lambda: 1.0)
    assert close(got, 0.75), f"with headers {headers} use backoff: min(0.5 * 2**1, 8) * 0.75 = 0.75; got {got}"
assert close(delay(0, openai.InternalServerError(
    "Error code: 500", body=None, response=httpx2.Response(500, request=REQUEST))), 0.5), (
    "a 500 without retry-after uses backoff")
### END HIDDEN TESTS

# %% [markdown]
# ## Part 4 · The retry loop
#
# Now the pieces fit together. One model call with retries:
#
# ```
# for attempt = 0, 1, ..., attempts - 1:
#     try the call (with the SDK's retries off)      → success: return the response
#     on an error:  not retryable, or no attempts left  → raise it, unchanged
#                   otherwise                         → sleep(delay(attempt, error)), try again
# ```
#
# Two details make it testable and honest. `sleep` is a parameter (default `time.sleep`), so a
# test passes a function that only *records* the waits and the whole test takes milliseconds.
# And when it gives up it raises the **last real error** (a `RateLimitError` stays a
# `RateLimitError`), so the caller can still tell a 429 from a 400.

# %% [markdown]
# ## Exercise 3 — `create_with_retries` (4 points)
#
# Write `create_with_retries(client, *, attempts=4, sleep=time.sleep, retryable=is_retryable,
# delay=retry_delay, **request)`. It makes the call `chat.completions.create(**request)` and
# returns its response, retrying failures:
#
# - call it on `client.with_options(max_retries=0)`: your loop is the only layer that retries;
# - make at most `attempts` calls in all;
# - when a call raises, ask `retryable(error)`. If it says no, or that was the last attempt,
#   re-raise the error itself. Otherwise call `sleep(delay(attempt, error))` with `attempt` = 0
#   after the first failure, 1 after the second, ..., and try again;
# - never sleep after the last attempt, or before the first.
#
# `retryable` and `delay` default to your functions from Exercises 1 and 2. The tests pass their
# own, so this exercise is graded on its own. (Defaults are taken when the `def` runs: after you
# change Exercise 1 or 2, run this cell again.)

# %% nbgrader={"grade": false, "grade_id": "create_with_retries", "locked": false, "schema_version": 3, "solution": true}
def create_with_retries(client, *, attempts=4, sleep=time.sleep, retryable=is_retryable,
                        delay=retry_delay, **request):
    """client.chat.completions.create(**request), retried on transient failures; one retry layer."""
    ### BEGIN SOLUTION
    client = client.with_options(max_retries=0)  # our loop is the only one that retries
    for attempt in range(attempts):
        try:
            return client.chat.completions.create(**request)
        except Exception as error:
            if attempt == attempts - 1 or not retryable(error):
                raise
            sleep(delay(attempt, error))
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "create_with_retries_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: create_with_retries gets through two 429s with its own retries (the SDK's are
switched off), asking `retryable` and `delay` about each error it caught and sleeping what `delay`
says between attempts, sends the request unchanged and returns the response; it re-raises the
provider's error at once when `retryable` says no, and never sleeps after the last attempt."""
import openai

from workbook.checks import fresh

wb = fresh()
scenario = wb.scenarios.rate_limited(failures=2)
llm = wb.fake_llm.FakeLLM(scenario)
sleeps, asked, caught = [], [], []


def note_delay(attempt, error):
    asked.append((attempt, type(error).__name__, getattr(error, "status_code", None)))
    return 0.25 * (attempt + 1)


with wb.checks.no_raise("create_with_retries(...) on a provider that answers 429 twice, then the reply",
                        hint="catch the error, ask retryable(error), sleep, and call again"):
    response = create_with_retries(
        llm.client(),  # a default client: max_retries=2
        sleep=sleeps.append, retryable=lambda error: caught.append(error) or True, delay=note_delay,
        model="fake-model-x", messages=[{"role": "user", "content": scenario.question}], tools=scenario.openai_tools())
assert caught != [] or asked != [] or llm.calls < 2, (
    f"the provider got {llm.calls} requests but your loop caught no error: the SDK retried by itself. "
    "Make the calls on the copy of the client that with_options gives, with max_retries=0")
assert llm.calls == 3, f"two 429s, then success: expected 3 requests, the provider got {llm.calls}"
assert sleeps != [], ("your loop tried again at once: between attempts call sleep with what delay(attempt, error) "
                      "returns, so an overloaded provider gets a rest")
assert sleeps == [0.25, 0.5], (
    f"sleep(delay(attempt, error)) after each failure, attempt = 0, 1: expected sleeps [0.25, 0.5], got {sleeps}")
assert asked == [(0, "RateLimitError", 429), (1, "RateLimitError", 429)], (
    f"call delay(attempt, error) with attempt 0, 1 and the error just caught; it was called with {asked}")
assert type(response).__name__ == "ChatCompletion" and response.choices[0].finish_reason == "tool_calls", (
    f"return the SDK's response, got {type(response).__name__}")
assert llm.requests[-1]["model"] == "fake-model-x" and llm.requests[-1]["tools"] == scenario.openai_tools(), (
    "pass **request to chat.completions.create unchanged (model, messages, tools)")


def gives_up(retryable, attempts):
    """(requests, sleeps) of create_with_retries on a provider that keeps answering 429."""
    llm, sleeps = wb.fake_llm.FakeLLM(wb.scenarios.rate_limited(failures=5)), []
    with wb.checks.raises(openai.RateLimitError, what=f"create_with_retries(attempts={attempts}) on a provider "
                          "that keeps failing"):
        create_with_retries(llm.client(), attempts=attempts, sleep=sleeps.append, retryable=retryable,
                            delay=lambda attempt, error: 0.25 * (attempt + 1), model="fake-model",
                            messages=[{"role": "user", "content": scenario.question}])
    return llm.calls, sleeps


calls, slept = gives_up(lambda error: False, 4)
assert (calls, slept) == (1, []), (
    f"when retryable(error) says False, raise that error at once: no retry, no sleep; got {calls} request(s) "
    f"and sleeps {slept}")
calls, slept = gives_up(lambda error: True, 3)
assert calls == 3, f"attempts=3 means 3 requests in all; the provider got {calls}"
assert slept == [0.25, 0.5], (
    f"sleep between attempts only, never after the last one: expected sleeps [0.25, 0.5], got {slept}")
print("create_with_retries: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "create_with_retries_hidden_tests", "locked": true, "points": 3, "schema_version": 3, "solution": false}
"""Hidden tests: create_with_retries passes the request through unchanged, asks `retryable` about
each error and never retries a 400, gives `delay` the attempt number and the error, stops after
`attempts` calls (4 by default) and re-raises the last error itself, never sleeps after the last
attempt, and retries timeouts and 5xx from the fake provider."""
### BEGIN HIDDEN TESTS
import openai

from workbook.checks import fresh

wb = fresh()


def reference_retryable(error):
    if isinstance(error, openai.APIConnectionError):
        return True
    return isinstance(error, openai.APIStatusError) and (
        error.status_code in (408, 409, 429) or error.status_code >= 500)


def attempt_run(scenario, messages=None, **kwargs):
    """(llm, response or the exception raised, sleeps, delay calls)."""
    llm = wb.fake_llm.FakeLLM(scenario)
    sleeps, asked = [], []

    def delay(attempt, error):
        asked.append((attempt, error))
        return 0.5 * 2**attempt

    kwargs.setdefault("retryable", reference_retryable)
    messages = messages or [{"role": "user", "content": scenario.question}]
    try:  # a provider error may escape (that is the point of some cases); nothing else may
        with wb.checks.no_raise("create_with_retries", allow=(openai.APIError,),
                                hint="only the provider's own error may come out, and only the last one"):
            out = create_with_retries(llm.client(), sleep=sleeps.append, delay=delay, model="fake-model-x",
                                      messages=messages, tools=scenario.openai_tools(), **kwargs)
    except openai.APIError as e:
        out = e
    return llm, out, sleeps, asked


# The request goes through unchanged.
taxi = wb.scenarios.taxi_spending()
llm, out, sleeps, _ = attempt_run(taxi)
assert type(out).__name__ == "ChatCompletion", f"a call that works returns its response; got {out!r}"
assert llm.calls == 1 and sleeps == [], f"no failure, no retry: {llm.calls} requests, sleeps {sleeps}"
sent = llm.requests[0]
assert sent["model"] == "fake-model-x" and sent["tools"] == taxi.openai_tools(), (
    "pass **request to chat.completions.create unchanged (model, messages, tools)")

# A 400 is never retried, and it arrives as itself.
asked_about = []
llm, out, sleeps, _ = attempt_run(taxi, [{"role": "tool", "tool_call_id": "x", "content": "1"}],
                                  retryable=lambda e: asked_about.append(e) or reference_retryable(e))
assert isinstance(out, openai.BadRequestError), f"re-raise the 400 itself; got {out!r}"
assert llm.calls == 1 and sleeps == [], (
    f"a 400 is not retried (ask retryable about each error you catch): expected 1 request and no sleep, got "
    f"{llm.calls} requests and sleeps {sleeps}")
def same_error(a, b):
    """The same provider error, by what it says (an exception that crossed a process is a copy)."""
    return (type(a) is type(b) and getattr(a, "status_code", None) == getattr(b, "status_code", None)
            and getattr(a, "message", None) == getattr(b, "message", None))


assert len(asked_about) == 1 and same_error(asked_about[0], out), (
    f"ask retryable(error) about the error you caught, then raise that error; retryable saw {asked_about!r}, "
    f"the call raised {out!r}")

# One layer of retries: the SDK's are off, so every 429 reaches retryable.
seen = []
llm, out, sleeps, asked = attempt_run(wb.scenarios.rate_limited(failures=2),
                                      retryable=lambda e: seen.append(e) or reference_retryable(e))
assert len(seen) == 2 or asked or llm.calls < 2, (
    f"two 429s reached your loop {len(seen)} times in {llm.calls} requests: the SDK retried by itself. "
    "Switch its own retries off, with_options and max_retries=0, where your loop retries")

# retryable decides, even for a 429.
llm, out, sleeps, _ = attempt_run(wb.scenarios.rate_limited(), retryable=lambda e: False)
assert isinstance(out, openai.RateLimitError) and llm.calls == 1 and sleeps == [], (
    "when retryable(error) says False, raise at once without sleeping")

# Giving up: `attempts` calls, no sleep after the last, the last error raised.
llm, out, sleeps, asked = attempt_run(wb.scenarios.rate_limited(failures=9), attempts=3)
assert isinstance(out, openai.RateLimitError), f"after the last attempt re-raise the error itself; got {out!r}"
assert llm.calls == 3, f"attempts=3 means 3 requests in all; the provider got {llm.calls}"
assert len(sleeps) >= 2, (f"3 attempts need 2 waits, and your loop slept {len(sleeps)} times: before each retry "
                          "call sleep with what delay returns")
assert sleeps == [0.5, 1.0], f"sleep between attempts only, never after the last: expected [0.5, 1.0], got {sleeps}"
assert [a for a, _ in asked] == [0, 1] and all(isinstance(e, openai.RateLimitError) for _, e in asked), (
    "call delay(attempt, error) with attempt 0, 1, ... and the error just caught")
llm, out, sleeps, _ = attempt_run(wb.scenarios.rate_limited(failures=9))
assert llm.calls == 4 and sleeps == [0.5, 1.0, 2.0], f"4 attempts by default; got {llm.calls} requests"
llm, out, sleeps, _ = attempt_run(wb.scenarios.rate_limited(failures=3))
assert type(out).__name__ == "ChatCompletion" and llm.calls == 4, "three 429s then success fits in 4 attempts"
llm, out, sleeps, _ = attempt_run(wb.scenarios.rate_limited(failures=1), attempts=1)
assert isinstance(out, openai.RateLimitError) and llm.calls == 1 and sleeps == [], "attempts=1: no retry"

# Timeouts and 5xx from the fake provider.
llm, out, sleeps, asked = attempt_run(wb.scenarios.slow_provider())
assert type(out).__name__ == "ChatCompletion" and llm.calls == 2 and sleeps == [0.5], (
    f"a timeout is retried: expected 2 requests and one sleep; got {llm.calls} requests, sleeps {sleeps}")
assert isinstance(asked[0][1], openai.APITimeoutError), "delay gets the timeout error"
llm, out, sleeps, _ = attempt_run(wb.scenarios.flaky_server())
assert type(out).__name__ == "ChatCompletion" and llm.calls == 3 and sleeps == [0.5, 1.0], (
    f"500 then 503 then success: expected 3 requests and sleeps [0.5, 1.0]; got {llm.calls}, {sleeps}")
### END HIDDEN TESTS

# %% [markdown]
# ### The loop at work
#
# Plug it into the loop: `create` is `create_with_retries` with the client filled in. The waits
# go into a list instead of the real clock, and the jitter comes from a seeded generator, so this
# cell prints the same every time.

# %%
for name, options in [("rate_limited", {}), ("flaky_server", {}), ("slow_provider", {}),
                      ("rate_limited", {"failures": 6})]:
    scenario = scenarios.get(name, **options)
    llm = FakeLLM(scenario)
    waits, jitter = [], random.Random(8)
    create = functools.partial(create_with_retries, llm.client(), sleep=waits.append,
                               delay=lambda attempt, error: retry_delay(attempt, error, rand=jitter.random))
    result = run_agent(llm.client(), "fake-model", scenario.question, scenario.openai_tools(),
                       Shop().tools(), create=create)
    print(f"{name} {options or ''}".ljust(28), f"{result.status:36} requests={llm.calls:<3}",
          "waits:", [round(w, 3) for w in waits])

# %% [markdown]
# The 429s and 5xx asked for 1 ms, so the loop waited 1 ms. The timeouts carry no header, so the
# loop used backoff. And six 429s in a row outlast four attempts: the run stops with a status
# that says why, instead of a traceback.

# %% [markdown]
# ## Part 5 · Tool timeouts: the outcome is unknown
#
# Tools need deadlines too. A tool that calls a payment service, a database or a web page can
# hang, and an agent that waits forever helps nobody. So every such call gets a timeout. But be
# precise about what a timeout tells you: **you stopped waiting**. It does not tell you that the
# other side stopped working.
#
# Here is a slow payment, run in a thread with a deadline. `result(timeout=0)` gives up at once
# (the worker is blocked, so it certainly has not finished); then the payment service gets
# through its queue:

# %%
import concurrent.futures
import threading

service_busy = threading.Event()
ledger = []


def slow_refund():
    service_busy.wait()  # the payment service is busy...
    ledger.append("refunded 2450 KZT")  # ...and then does the work anyway
    return "ok"


with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
    future = pool.submit(slow_refund)
    try:
        future.result(timeout=0)  # our deadline is already over
    except concurrent.futures.TimeoutError:
        print("the call timed out; the ledger says:", ledger)
    service_busy.set()  # the service catches up
print("a moment later the ledger says:", ledger)

# %% [markdown]
# The same happens over a network: the request reached the payment provider, the refund went
# through, and the answer was lost on the way back. From the caller's side, "it failed" and "it
# worked, but I did not hear" look exactly the same.
#
# The workbook's fake payments service makes that case scriptable. `Payments(script=["timeout"])`
# carries out the first request, then raises `PaymentTimeout` (which is Python's `TimeoutError`)
# instead of answering. It records every refund it really made in `.refunds`. Retrying the way
# most code does — a fresh request id on every attempt — refunds twice:

# %%
import uuid

payments = Payments(script=["timeout"])
for attempt in range(1, 4):
    try:
        print("attempt", attempt, "->", payments.refund("A-1001", 2450, idempotency_key=str(uuid.uuid4())))
        break
    except PaymentTimeout as e:
        print("attempt", attempt, "->", e)
print("refunds actually made:", [(r["refund_id"], r["amount"]) for r in payments.refunds])

# %% [markdown]
# ## Part 6 · Idempotency keys
#
# An operation is **idempotent** when doing it twice has the same effect as doing it once.
# "Set the card to blocked" is; "refund 2450 KZT" is not. Payment APIs make refunds idempotent
# with a key: the client sends an **idempotency key** with the request, and the server remembers
# each key with the result of its first request. A second request with the same key is not
# carried out again: the server replays the stored result. (Stripe calls the header
# `Idempotency-Key`; the `openai` SDK, by the way, sends none — chat completions have no side
# effects to protect.)
#
# So a retry is safe exactly when it sends **the same key** as the attempt it repeats:

# %%
payments = Payments(script=["timeout"])
key = "the same key for every attempt"
for attempt in range(1, 4):
    try:
        print("attempt", attempt, "->", payments.refund("A-1001", 2450, idempotency_key=key))
        break
    except PaymentTimeout as e:
        print("attempt", attempt, "->", e)
print("refunds actually made:", [(r["refund_id"], r["amount"]) for r in payments.refunds])
print("what the service saw: ", [r["outcome"] for r in payments.requests])

# %% [markdown]
# ### Where the key comes from
#
# The key must name **the intent** ("this refund, requested by this tool call"), not the attempt.
# So it is **derived from the request**:
#
# - the **tool call's id** (`call_...`): the model issued exactly one request with it, and every
#   retry of that request inside your tool sees the same id;
# - the **business key**: what the action is about — here the order and the amount.
#
# Everything else makes a key that changes between attempts, and then it protects nothing:
#
# | key made from | what goes wrong |
# |---|---|
# | `uuid.uuid4()` per attempt | every retry is a "new" refund: double refunds |
# | the clock (`time.time()`, today's date) | changes between attempts, or collides for two different refunds made in the same second |
# | Python's `hash(...)` | differs in every Python process (hash randomisation): a run resumed after a crash (chapter 09) sends a different key; and it is not unique: `hash(2450) == hash(2450 + 2**61 - 1)` |
# | an argument the model sends | the model decides, and it can repeat or invent one; keys are the code's job (chapter 07) |
#
# Two practical details. Join the parts so that different requests cannot run together: plain
# `call_id + order_id + str(amount)` makes `("call_1", "A-10", 12)` and `("call_1", "A-101", 2)`
# the same text. And respect the provider's length limit (Stripe: 255 characters; this service
# too): hashing the parts with `hashlib.sha256` gives a fixed-length key from inputs of any size.

# %% [markdown]
# ## Exercise 4 — `idempotency_key` (3 points)
#
# Write `idempotency_key(call_id, order_id, amount)`: a `str` that names this refund request,
# built from these three values and nothing else:
#
# - the same three values always give the same key — later in this process, in another Python
#   process, after a restart;
# - if any of the three differs, the key differs (beware of plain joins, see above);
# - at most 255 characters, whatever the length of the inputs.
#
# No randomness, no clock, no built-in `hash()`.
#
# When graded, "another Python process" is real: the chapter's code cells run again in a fresh
# Python a year later, with your answers in their answer cells (cells you added are not run
# there). So keep what `idempotency_key` needs in its own cell.

# %% nbgrader={"grade": false, "grade_id": "idempotency_key", "locked": false, "schema_version": 3, "solution": true}
def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    ### BEGIN SOLUTION
    parts = json.dumps([call_id, order_id, amount], ensure_ascii=False)  # unambiguous: quoted, separated
    return "refund-" + hashlib.sha256(parts.encode()).hexdigest()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "idempotency_key_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: idempotency_key returns a short str, the same for the same request (also when the
clock moves on, and in a process whose hash() differs) and different when the tool call, the
order or the amount differs (also when the parts would run together, differ only at the end of a
long id, or are two amounts Python's hash() cannot tell apart)."""
from workbook.checks import fresh
from workbook.notebook_side import another_process

wb = fresh()


def key_of(*parts):
    """idempotency_key(*parts), checked to be a str before any test reads it."""
    with wb.checks.no_raise(f"idempotency_key{parts}", hint="build a str from the three values; nothing else"):
        key = idempotency_key(*parts)
    assert type(key) is str, f"the key must be a str; got {key!r}"
    assert 0 < len(key) <= 255, (f"the key must have 1 to 255 characters, it has {len(key)}: hash the request "
                                 "(hashlib) for a key of a fixed length")
    return key


key = key_of("call_abc123", "A-1001", 2450)
assert key_of("call_abc123", "A-1001", 2450) == key, (
    "the same request must give the same key every time: no random values, no clock")
# a year later, in another Python process (its hash() differs: PYTHONHASHSEED): graded, the chapter's
# cells with your answers run again in a fresh process; here, `workbook.probes.elsewhere` moves the
# clock and salts hash()
with wb.checks.no_raise("idempotency_key in another process, a year later",
                        hint="there only the given code and your answer cells run again: keep what "
                             "idempotency_key needs in its own cell"):
    later = another_process(seconds=365 * 24 * 3600).idempotency_key("call_abc123", "A-1001", 2450)
assert later == key, ("the key changed a year later in another Python process: the clock or hash() went into it; "
                      "derive it from the request alone (hashlib)")
others = {"another tool call": key_of("call_xyz789", "A-1001", 2450),
          "another order": key_of("call_abc123", "A-1002", 2450),
          "another amount": key_of("call_abc123", "A-1001", 1290)}
for what, other in others.items():
    assert other != key, f"{what} is another request and needs another key; both gave {key!r}"
assert key_of("call_1", "A-10", 12) != key_of("call_1", "A-101", 2), (
    "('call_1', 'A-10', 12) and ('call_1', 'A-101', 2) are different requests: do not just join the parts")
long_a, long_b = key_of("c" * 300 + "1", "A-1001", 2450), key_of("c" * 300 + "2", "A-1001", 2450)
assert long_a != long_b, (
    "call ids of 301 characters that differ in their last one need different keys of at most 255 characters: "
    "hash the request (hashlib), do not cut it")
assert hash(2450) == hash(2450 + 2**61 - 1), "the setup: hash() of an int is taken modulo 2**61 - 1"
assert key_of("call_abc123", "A-1001", 2450) != key_of("call_abc123", "A-1001", 2450 + 2**61 - 1), (
    "two different amounts got the same key: Python's hash() is neither stable across processes nor unique "
    "(hash(2450) == hash(2450 + 2**61 - 1)); hash the request with hashlib")
print("idempotency_key: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "idempotency_key_hidden_tests", "locked": true, "points": 2, "schema_version": 3, "solution": false}
"""Hidden tests: idempotency_key does not depend on the clock or on Python's per-process hash()
(nor takes two requests that hash() confuses for one), tells apart requests whose parts merely run
together, stays within 255 characters for long inputs without losing their difference, and is
accepted by the payments service."""
### BEGIN HIDDEN TESTS
from workbook.checks import fresh
from workbook.notebook_side import another_process

wb = fresh()


def key_of(*parts, where=None):
    """idempotency_key(*parts), in this notebook's process or `where` (another process)."""
    with wb.checks.no_raise(f"idempotency_key{parts}", hint="build a str from the three values; nothing else, "
                            "and keep what it needs in its own cell"):
        key = (where.idempotency_key if where is not None else idempotency_key)(*parts)
    assert type(key) is str and 0 < len(key) <= 255, (
        f"the key must be a str of 1 to 255 characters; got {len(key) if isinstance(key, str) else key!r}")
    return key


parts = ("call_7Qd0m2", "A-1001", 2450)
before = key_of(*parts)

# A year later, in another process (another PYTHONHASHSEED): the same key. The notebook runs again
# there, outside the process your code can change (workbook.notebook_side.another_process).
later = another_process(seconds=365 * 24 * 3600)
assert key_of(*parts, where=later) == before, (
    "the key changed in another Python process a year later: build it from the request only, with no random "
    "value, not the time nor the built-in hash() (randomised per process); use hashlib")
assert len({key_of(*parts) for _ in range(20)}) == 1, "the same request must always give the same key: no random value"
for a, b in ((("call_7Qd0m2", "A-1001", 0), ("call_7Qd0m2", "A-1001", 2**61 - 1)),
             (("call_7Qd0m2", "A-1001", -1), ("call_7Qd0m2", "A-1001", -2))):
    assert hash(a) == hash(b), "the setup: Python's hash() takes these two requests for one value"
    assert key_of(*a) != key_of(*b), (
        f"{a} and {b} are different requests but got the same key: Python's hash() is neither stable across "
        "processes nor unique; use hashlib")

# Parts that run together are still different requests.
lookalikes = [(("call_1", "A-10", 12), ("call_1", "A-101", 2)),
              (("call_1", "A-1001", 5), ("call_1A", "-1001", 5)),
              (("call_1:A", "1001", 5), ("call_1", "A:1001", 5)),
              (("call_1|A", "1001", 5), ("call_1", "A|1001", 5)),
              (("call_1-A", "1001", 5), ("call_1", "A-1001", 5)),
              (("call_1 A", "1001", 5), ("call_1", "A 1001", 5)),
              (("call_1/A", "1001", 5), ("call_1", "A/1001", 5)),
              (("call_1_A", "1001", 5), ("call_1", "A_1001", 5)),
              (("call_1,A", "1001", 5), ("call_1", "A,1001", 5))]
for a, b in lookalikes:
    assert key_of(*a) != key_of(*b), (
        f"{a} and {b} are different requests but got the same key: joining the parts as plain text lets "
        "them run together; use a separator that cannot be confused, e.g. json.dumps of the parts")

# Long inputs: within the limit, and still different.
long_a, long_b = "ORD-" + "7" * 400 + "-a", "ORD-" + "7" * 400 + "-b"
assert key_of("call_1", long_a, 10) != key_of("call_1", long_b, 10), (
    "two long order ids that differ only at the end need different keys: hash the parts rather than cut them")

# The payments service takes it.
payments = wb.payments.Payments()
with wb.checks.no_raise("the payment service's refund with your key", hint="a key of at most 255 characters"):
    payments.refund("A-1001", 2450, idempotency_key=before)
assert payments.refunds[0]["idempotency_key"] == before, "the payment service keeps the key it was sent"
### END HIDDEN TESTS

# %% [markdown]
# ## Part 7 · A refund tool that cannot pay twice
#
# The key protects retries *inside* one tool call. There is a second way to pay twice, one level
# up. Your tool gave up after its retries and told the model "the payment service did not answer".
# The model, being helpful, asks for the refund **again in the next step** — a new tool call, with
# a **new id**, so a new key, and the payment service has no reason to refuse. The core scenario
# `refund_with_timeout` does exactly that: after an error it asks for the same refund again.
#
# The idempotency key cannot catch this; the **business key** can. Before refunding, look up what
# already happened to this order (providers offer that look-up for reconciling;
# `payments.refunds_for(order_id)` here). A refund of the same amount for the same order is
# already done: report it to the model instead of paying again. A different amount for the same
# order is a partial refund, which is allowed.
#
# Two layers, two questions:
#
# | layer | question | catches |
# |---|---|---|
# | idempotency key (tool call id + order + amount) | "is this a retry of a request I already sent?" | retries after an ambiguous timeout |
# | business key (order + amount) | "has this refund already happened?" | the model asking again in a later step |

# %% [markdown]
# ## Exercise 5 — `make_refund_tool` (5 points)
#
# Write `make_refund_tool(payments, sleep=time.sleep, attempts=3)`. It returns the tool
# function `refund(order_id, amount, *, call_id)` for the loop (which fills in `call_id`). The
# tool:
#
# 1. **business key first:** if `payments.refunds_for(order_id)` already holds a refund of this
#    `amount`, return that refund's dict with `"status"` set to `"already refunded"`, and do not
#    call `payments.refund`;
# 2. derives the idempotency key from `call_id`, `order_id` and `amount`, with the properties of
#    Exercise 4, **once**, and uses it for every attempt;
# 3. calls `payments.refund(order_id, amount, idempotency_key=key)` at most `attempts` times; on
#    `TimeoutError` (that is what `PaymentTimeout` is) it calls `sleep(0.5 * 2**attempt)`
#    (attempt = 0, 1, ...) and tries again — never sleeping after the last attempt. Other errors
#    are not retried: let them propagate (`call_tool` turns them into observations);
# 4. returns the payment service's result when an attempt succeeds, and
#    `{"error": "..."}` when every attempt timed out, with a message that says the refund **may or
#    may not** have been made (so the model does not promise it).
#
# Write the key derivation inside the tool (or call your `idempotency_key`): the reference does
# the former so this exercise is graded on its own.

# %% nbgrader={"grade": false, "grade_id": "make_refund_tool", "locked": false, "schema_version": 3, "solution": true}
def make_refund_tool(payments, sleep=time.sleep, attempts=3):
    """The refund tool: at most one refund per order and amount, however often it is retried or re-asked."""

    def refund(order_id: str, amount: int, *, call_id: str) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        ### BEGIN SOLUTION
        for earlier in payments.refunds_for(order_id):  # the business key: already done?
            if earlier["amount"] == amount:
                return {**earlier, "status": "already refunded"}
        request = json.dumps([call_id, order_id, amount])  # the idempotency key: same for every attempt
        key = "refund-" + hashlib.sha256(request.encode()).hexdigest()
        for attempt in range(attempts):
            try:
                return payments.refund(order_id, amount, idempotency_key=key)
            except TimeoutError:
                if attempt < attempts - 1:
                    sleep(0.5 * 2**attempt)
        return {"error": f"the payment service did not answer after {attempts} attempts: the refund may "
                         "or may not have been made. Do not promise it; tell the customer we are checking."}
        ### END SOLUTION

    return refund


# %% nbgrader={"grade": true, "grade_id": "make_refund_tool_tests", "locked": true, "points": 1, "schema_version": 3, "solution": false}
"""Visible tests: after an ambiguous timeout the refund tool retries with the same key, so the
payment service refunds once and the tool returns its result; the same refund asked for again in a
new tool call is reported, not paid again; a second partial refund of another amount is made;
when every attempt times out, the tool stops after `attempts` requests (sleeping between them, never
after the last) and its error says the refund may or may not have been made; an error that is not
a timeout (a refused amount) is not retried and propagates."""
from workbook.checks import fresh

wb = fresh()
payments = wb.payments.Payments(script=["timeout"])  # the first request succeeds, but times out for us
sleeps = []
with wb.checks.no_raise("make_refund_tool(payments, sleep=...)", hint="it only makes the tool; it calls nothing"):
    refund = make_refund_tool(payments, sleep=sleeps.append)
assert callable(refund), f"make_refund_tool must return the tool function, got {refund!r}"
with wb.checks.no_raise("refund('A-1001', 2450, call_id='call_abc123'), whose first request times out",
                        hint="catch the TimeoutError and try again with the same key"):
    result = refund("A-1001", 2450, call_id="call_abc123")
keys = [r["idempotency_key"] for r in payments.requests]
assert len(keys) == 2, f"one timeout, then success: expected 2 requests to the service, it got {len(keys)}"
assert keys[0] == keys[1], (f"a retry must send the same idempotency key as the attempt it repeats (make it once, "
                            f"from the request, before the first attempt); sent {keys}")
assert len(payments.refunds) == 1, f"one refund asked for, {len(payments.refunds)} made: {payments.refunds}"
assert type(result) is dict and result.get("status") == "refunded" and result.get("refund_id") == "rf_0001", (
    f"return the payment service's result; got {result!r}")
assert sleeps == [0.5], f"sleep(0.5 * 2**attempt) between attempts: expected [0.5], got {sleeps}"
with wb.checks.no_raise("the same refund asked for again in a new tool call",
                        hint="look for an earlier refund of this amount with payments.refunds_for(order_id)"):
    again = refund("A-1001", 2450, call_id="call_def456")  # the model asks again, in a new tool call
assert len(payments.refunds) == 1, (
    "the same refund asked for again in a new tool call (a new call id, so a new key) was paid a second "
    "time: check payments.refunds_for(order_id) for a refund of this amount first")
assert type(again) is dict and again.get("status") == "already refunded", (
    f"report the earlier refund with status 'already refunded'; got {again!r}")

payments = wb.payments.Payments()
refund = make_refund_tool(payments, sleep=lambda seconds: None)
with wb.checks.no_raise("two partial refunds of A-1001 (1000 KZT, then 1450 KZT)",
                        hint="the idempotency key comes from call_id, order_id and amount: a key of the order alone "
                             "is refused for another amount"):
    refund("A-1001", 1000, call_id="call_1")
    second = refund("A-1001", 1450, call_id="call_2")
assert [r["amount"] for r in payments.refunds] == [1000, 1450], (
    f"a refund of another amount is another request: the business key is order AND amount, the idempotency key "
    f"comes from call_id, order_id and amount; refunds made: {payments.refunds}, second result {second!r}")

payments, sleeps = wb.payments.Payments(script=["lost", "lost", "lost", "lost"]), []
with wb.checks.no_raise("refund('A-1002', 1290, call_id='call_3') when every attempt times out",
                        hint="after the last timeout, return an {'error': ...} observation; do not raise"):
    result = make_refund_tool(payments, sleep=sleeps.append)("A-1002", 1290, call_id="call_3")
assert type(result) is dict and "may" in str(result.get("error", "")).lower(), (
    "when every attempt timed out, return {'error': ...} saying the refund may or may not have been made "
    f"(a timeout is not a failure); got {result!r}")
assert (len(payments.requests), sleeps) == (3, [0.5, 1.0]), (
    "attempts=3 by default: 3 requests, sleep(0.5 * 2**attempt) between them and not after the last; "
    f"the service got {len(payments.requests)} requests, the sleeps were {sleeps}")

payments, sleeps = wb.payments.Payments(), []
with wb.checks.raises(ValueError, what="refund('A-1001', 0) (the service refuses an amount of 0)"):
    make_refund_tool(payments, sleep=sleeps.append)("A-1001", 0, call_id="call_0")
assert sleeps == [], f"only timeouts are retried: a refused request is not; the sleeps were {sleeps}"
print("make_refund_tool: visible tests passed")

# %% nbgrader={"grade": true, "grade_id": "make_refund_tool_hidden_tests", "locked": true, "points": 4, "schema_version": 3, "solution": false}
"""Hidden tests: the refund tool keeps one key per tool call, derived from the request (stable
across restarts, different for another call), gives up with an error that says the outcome is
unknown, catches the same refund asked again in a later step (a new call id) with the business key,
allows partial refunds of another amount, does not retry other errors, and in the loop with
refund_with_timeout refunds exactly once."""
### BEGIN HIDDEN TESTS
import inspect
import json

from workbook.checks import fresh

wb = fresh()


def tool(payments, attempts=None):
    sleeps = []
    kwargs = {} if attempts is None else {"attempts": attempts}
    fn = make_refund_tool(payments, sleep=sleeps.append, **kwargs)
    assert callable(fn), f"make_refund_tool must return the tool function, got {fn!r}"
    params = inspect.signature(fn).parameters
    assert "call_id" in params and params["call_id"].kind is inspect.Parameter.KEYWORD_ONLY, (
        "the tool takes call_id as a keyword-only parameter, so the loop (not the model) fills it in")
    return fn, sleeps


def use(fn, *args, hint="retry a timeout, then return an error observation; let any other error go up", **kwargs):
    with wb.checks.no_raise(f"refund{args}", hint=hint):
        return fn(*args, **kwargs)


# Every attempt times out: one refund made, one key, an honest error.
payments = wb.payments.Payments(script=["timeout"] * 3)
refund, sleeps = tool(payments)
result = use(refund, "A-1001", 2450, call_id="call_1")
assert len(payments.requests) == 3, f"3 attempts by default; the service got {len(payments.requests)} requests"
assert len({r["idempotency_key"] for r in payments.requests}) == 1, (
    "every attempt of one tool call must send the same key: make it once, before the first attempt")
assert len(payments.refunds) == 1, f"the retries refunded {len(payments.refunds)} times; they must not refund again"
assert sleeps == [0.5, 1.0], f"sleep(0.5 * 2**attempt) between attempts, not after the last: got {sleeps}"
assert type(result) is dict and isinstance(result.get("error"), str), (
    f"when every attempt timed out, return {{'error': ...}}; got {result!r}")
text = result["error"].lower()
assert "may" in text or "unknown" in text or "not sure" in text or "unclear" in text, (
    f"say that the refund may or may not have been made (the outcome is unknown); got {result['error']!r}")

# The model asks again in a later step: a new tool call, a new id. The business key catches it.
again = use(refund, "A-1001", 2450, call_id="call_2")
assert len(payments.refunds) == 1, (
    "the model asked for the same refund again with a new tool call id and the tool refunded a second "
    "time: check payments.refunds_for(order_id) for a refund of this amount first")
assert type(again) is dict and "error" not in again and again.get("refund_id") == "rf_0001", (
    f"report the refund that was already made (its dict, status 'already refunded'); got {again!r}")
assert again.get("status") == "already refunded", f"set status to 'already refunded'; got {again.get('status')!r}"
assert payments.refunded("A-1001") == 2450, "one refund of 2450 KZT in all, however often it was asked for"

# A partial refund of another amount is a new refund; other orders are independent.
payments = wb.payments.Payments()
refund, _ = tool(payments)
partial = "a partial refund of another amount is a new request: its key comes from call_id, order_id and amount"
use(refund, "A-1001", 1000, call_id="call_a", hint=partial)
use(refund, "A-1001", 1450, call_id="call_b", hint=partial)
use(refund, "A-1002", 1000, call_id="call_c", hint=partial)
assert [(r["order_id"], r["amount"]) for r in payments.refunds] == [("A-1001", 1000), ("A-1001", 1450),
                                                                   ("A-1002", 1000)], (
    "the business key is the order and the amount: another amount, or another order, is another refund; "
    f"made: {[(r['order_id'], r['amount']) for r in payments.refunds]}")

# The key comes from the request: the same after a restart, different for another call.
first, restarted, other = (wb.payments.Payments() for _ in range(3))
use(tool(first)[0], "A-1001", 2450, call_id="call_same")
use(tool(restarted)[0], "A-1001", 2450, call_id="call_same")
use(tool(other)[0], "A-1001", 2450, call_id="call_other")
k1, k2, k3 = (p.requests[0]["idempotency_key"] for p in (first, restarted, other))
assert k1 == k2, "the same tool call must give the same key after a restart: derive it from the request"
assert k1 != k3, "another tool call is another request: put the call id into the key"

# A lost request, then an ambiguous timeout, then success: still one refund.
payments = wb.payments.Payments(script=["lost", "timeout"])
refund, sleeps = tool(payments, attempts=4)
result = use(refund, "A-1002", 1290, call_id="call_9")
assert [r["outcome"] for r in payments.requests] == ["lost", "refunded", "replayed"], (
    f"expected lost, refunded, replayed (one key for every attempt); the service saw "
    f"{[r['outcome'] for r in payments.requests]}")
assert type(result) is dict and result.get("refund_id") == "rf_0001" and len(payments.refunds) == 1, (
    f"a lost request, a timeout, then the replayed refund: return the one refund the service made; got {result!r}")

# Other errors are not retried.
payments = wb.payments.Payments()
refund, sleeps = tool(payments)
try:
    with wb.checks.no_raise("refund('A-1001', 0)", allow=(ValueError,),
                            hint="retry only a timeout: the service's ValueError for a refused amount goes up"):
        out = refund("A-1001", 0, call_id="call_0")
except ValueError:
    out = None
assert sleeps == [] and len(payments.requests) == 0 and payments.refunds == [], (
    "only timeouts are retried; a refused request (amount 0) is not")

# In the loop: refund_with_timeout asks again after an error; one refund in the end.
scenario = wb.scenarios.refund_with_timeout()
llm = wb.fake_llm.FakeLLM(scenario)
client = llm.client(max_retries=0)
payments = wb.payments.Payments(script=["timeout"] * 3)
refund, _ = tool(payments)
messages = [{"role": "user", "content": scenario.question}]
for _ in range(5):
    message = client.chat.completions.create(model="fake-model", messages=messages,
                                             tools=scenario.openai_tools()).choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    if not message.tool_calls:
        break
    for call in message.tool_calls:
        result = use(refund, **json.loads(call.function.arguments), call_id=call.id)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, default=str)})
assert len(payments.refunds) == 1, (
    f"in the loop the customer was refunded {len(payments.refunds)} times: the model asked again after the "
    "error, and only the business key can catch that")
assert message.content == scenario.answer, f"the run should end with {scenario.answer!r}; got {message.content!r}"
### END HIDDEN TESTS

# %% [markdown]
# ### The loop at work
#
# The same conversation twice. First with a naive refund tool that makes a fresh key per attempt
# (the usual habit), then with yours. Every refund request times out three times in a row, like a
# payment provider having a bad minute:

# %%
def naive_refund_tool(payments):
    def refund(order_id: str, amount: int) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        for attempt in range(3):
            try:
                return payments.refund(order_id, amount, idempotency_key=str(uuid.uuid4()))
            except PaymentTimeout:
                continue
        return {"error": "the payment service did not answer"}
    return refund


scenario = scenarios.refund_with_timeout()
for label, make in [("naive tool", naive_refund_tool),
                    ("your tool", lambda p: make_refund_tool(p, sleep=lambda seconds: None))]:
    payments = Payments(script=["timeout"] * 3)
    llm = FakeLLM(scenario)
    result = run_agent(llm.client(max_retries=0), "fake-model", scenario.question, scenario.openai_tools(),
                       {"refund": make(payments)})
    print(f"{label:11} {result.status}  answer={result.answer!r}")
    print(f"{'':11} refunds made: {[(r['refund_id'], r['amount']) for r in payments.refunds]}")

# %% [markdown]
# Both runs end with the same friendly answer. Only the payment service's records show the
# difference: the naive tool refunded the customer **four** times — once per attempt of the first
# tool call (each fresh key looked like a new refund, and each was carried out before it timed
# out), and once more when the model asked again. Your tool's retries reused one key, and the
# model's second request was caught by the business key.

# %% [markdown]
# ## Common mistakes
#
# Each of these is a wrong answer the hidden tests catch.
#
# - **Retrying a 400.** `except openai.APIStatusError: retry` sends a broken request again and
#   again. Fix the request; retry only 408, 409, 429, 5xx, connection errors and timeouts.
# - **Forgetting connection errors.** They have no `status_code`; a check on status codes alone
#   never retries a dropped connection or a timeout.
# - **No backoff.** Retrying at once, or after a fixed delay, hammers a provider that is already
#   overloaded. Double the wait each time, cap it, add jitter.
# - **Ignoring `retry-after`.** The server said when to come back; backoff is the fallback.
# - **Two layers of retries.** The SDK's `max_retries=2` inside your own loop of 4 gives up to 12
#   requests and hidden sleeps. Use `client.with_options(max_retries=0)` where you retry.
# - **Sleeping after the last attempt**, or swallowing the last error: the caller waits for
#   nothing, then cannot tell a 429 from a 400.
# - **A fresh key per attempt** (`uuid4()` inside the retry loop): every retry is a new refund.
# - **A key from the clock or from `hash()`**: it changes with time or between processes.
# - **Plain string joins** in a key: different requests run together into the same text.
# - **Treating a timeout as a failure.** "It timed out" means "I do not know". Say so to the
#   model; never report it as "not refunded".
# - **Only one layer of protection.** The idempotency key stops retries of one request; a new
#   tool call for the same refund needs the business key check.

# %% [markdown]
# ## Self-check quiz

# %%
from workbook.quiz import show

show("08_retries_and_idempotency")

# %% [markdown]
# ## Live cell (optional)
#
# Your retries against a real provider. Real rate limits come with real `retry-after` values, so
# this cell really sleeps when it has to. It runs when `LLM_PROVIDER` names a live provider (see
# chapter 00) and is never graded.

# %%
import functools
import time

from workbook import scenarios
from workbook.providers import SKIP_HINT, ProviderError, live_enabled, live_failure, make_client
from workbook.shop import Shop

if live_enabled():
    try:
        live_client, live_model = make_client()
        waited = []

        def sleep_and_note(seconds):
            waited.append(round(seconds, 2))
            time.sleep(seconds)

        live_create = functools.partial(create_with_retries, live_client.with_options(timeout=60),
                                        sleep=sleep_and_note)
        live = run_agent(live_client, live_model, "How much did I spend on taxis in September?",
                         scenarios.taxi_spending().openai_tools(), Shop("C-001").tools(), max_steps=5,
                         create=live_create)
        print(live, "| waits:", waited)
    except ProviderError as e:  # a set-up problem, explained in one line
        print(e)
    except Exception as e:  # its own text (no key), and whose failure it is: the provider's or this notebook's
        print(live_failure(e))
else:
    print(SKIP_HINT)

# %% [markdown]
# ## What's next
#
# **09 · Trajectories, checkpoints and a human in the loop**: write down every step of a run as one
# JSON line, save the messages after every step so a run that crashed can resume, and pause before
# a refund until a human says yes. A resumed step runs again — which is safe only because of what
# you built here.
