"""The helpers test cells share: scripted models, call caps, raises / no_raise."""

from __future__ import annotations

import json

import pytest

from workbook import checks, scenarios
from workbook.checks import fresh
from workbook.fake_llm import FakeLLM, TooManyCalls

USER = [{"role": "user", "content": "go"}]


def test_scripted_plays_its_replies_in_order_then_repeats_the_last():
    model = scenarios.scripted(scenarios.call("txn_sum", category="taxi", month="2026-09"),
                               "5000 KZT.").as_function()
    first = model(USER, [])
    assert first == {"tool": "txn_sum", "args": {"category": "taxi", "month": "2026-09"}}
    history = USER + [{"role": "assistant", "content": json.dumps(first)},
                      {"role": "tool", "content": "{}"}]
    assert model(history, []) == {"final": "5000 KZT."}
    assert model(history + [{"role": "assistant", "content": "5000 KZT."}], []) == {"final": "5000 KZT."}


def test_scripted_through_the_sdk_face_gives_real_tool_calls():
    asks = scenarios.scripted(scenarios.calls(scenarios.Call("get_order", {"order_id": "A-1001"}),
                                              scenarios.Call("refund", {"order_id": "A-1002"})))
    reply = FakeLLM(asks).client().chat.completions.create(model="fake-model", messages=USER)
    calls = reply.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["get_order", "refund"]
    assert json.loads(calls[1].function.arguments) == {"order_id": "A-1002"}


def test_scripted_checks_its_replies():
    with pytest.raises(ValueError, match="at least one"):
        scenarios.scripted()
    with pytest.raises(TypeError, match="reply 2"):
        scenarios.scripted("ok", {"final": "no"})


def test_max_calls_on_the_function_face():
    model = scenarios.never_finishes().as_function(max_calls=2)
    model(USER, [])
    model(USER, [])
    with pytest.raises(TooManyCalls, match="more than 2 times"):
        model(USER, [])
    assert model.calls == 2, "the refused call is not recorded"


def test_max_calls_on_the_client_face_gets_past_except_exception():
    llm = FakeLLM(scenarios.never_finishes())
    client = llm.client(max_calls=3)

    def loop():  # a loop without a limit that swallows every error
        while True:
            try:
                client.chat.completions.create(model="fake-model", messages=USER)
            except Exception:
                pass

    with pytest.raises(TooManyCalls, match="more than 3 times"):
        loop()
    assert llm.calls == 3
    assert FakeLLM(scenarios.never_finishes()).client().max_retries >= 0  # no cap: a plain client


def test_no_raise_names_the_call_and_lets_unfinished_work_through():
    with checks.no_raise("f()"):
        pass
    with pytest.raises(AssertionError, match=r"f\(\) raised KeyError: 'x' — look it up"):
        with checks.no_raise("f()", hint="look it up"):
            raise KeyError("x")
    with pytest.raises(NotImplementedError):
        with checks.no_raise("f()"):
            raise NotImplementedError
    with pytest.raises(AssertionError, match="^mine$"):
        with checks.no_raise("f()"):
            raise AssertionError("mine")
    with pytest.raises(PermissionError):  # a refusal the exercise promises passes through
        with checks.no_raise("f()", allow=(PermissionError, FileNotFoundError)):
            raise PermissionError("outside")
    with pytest.raises(AssertionError, match=r"f\(\) raised ValueError: v"):
        with checks.no_raise("f()", allow=(PermissionError,)):
            raise ValueError("v")


def test_the_helpers_are_in_the_fresh_copy():
    wb = fresh()
    model = wb.scenarios.scripted("hi").as_function(max_calls=1)
    assert model(USER, []) == {"final": "hi"}
    with pytest.raises(wb.fake_llm.TooManyCalls, match="more than 1 time:"):
        model(USER, [])
    with wb.checks.raises(ValueError, match="bad"):
        raise ValueError("bad input")


def test_error_text_reads_the_one_shape_of_an_error_observation():
    assert checks.error_text('{"error": "unknown tool \'x\'"}') == "unknown tool 'x'"
    assert checks.error_text(json.dumps({"error": "Ünïcödé", "tool": "t"}, ensure_ascii=False)) == "Ünïcödé"
    for bad in ["ERROR: unknown tool", '"ERROR: x"', '{"error": ""}', '{"error": 1}', '{"result": 2}', "[",
                None, {"error": "a dict, not its JSON text"}]:
        with pytest.raises(AssertionError, match=r"execute\(\) should be an error observation"):
            checks.error_text(bad, "execute()")
