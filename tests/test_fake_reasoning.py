"""Reasoning models on the openai dialect (workbook/engine/reasoning.py): `stop` refused per model,
reasoning tokens billed as output and reported apart, and a small cap that leaves an empty reply."""

import openai
import pytest

from workbook import scenarios as S
from workbook.engine import reasoning
from workbook.fake_llm import FakeLLM

ASK = [{"role": "user", "content": "Where is my order?"}]


def create(model, dialect="openai", reply="It is shipped.", **options):
    return FakeLLM(S.scripted(reply), dialect=dialect).client(max_retries=0).chat.completions.create(
        model=model, messages=ASK, **options)


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-mini-2025-08-07", "gpt-5.1",
                                   "gpt-5.2", "gpt-5.4", "gpt-5.4-mini", "o3", "o4-mini"])
def test_models_without_stop_refuse_it_with_openai_400(model):
    with pytest.raises(openai.BadRequestError) as e:
        create(model, stop=["Observation:"])
    assert e.value.status_code == 400
    assert e.value.body == {"message": "Unsupported parameter: 'stop' is not supported with this model.",
                            "type": "invalid_request_error", "param": "stop", "code": "unsupported_parameter"}


@pytest.mark.parametrize("model", ["fake-model", "gpt-4o-mini", "gpt-4.1", "gpt-5-chat-latest", "gpt-5.5"])
def test_other_models_take_stop(model):
    r = create(model, reply="Thought: x\nObservation: made up", stop=["Observation:"])
    assert (r.choices[0].message.content, r.choices[0].finish_reason) == ("Thought: x\n", "stop")


def test_stop_is_refused_only_on_the_openai_dialect():
    for dialect in ("deepseek", "ollama"):
        assert create("gpt-5-mini", dialect, stop=["x"]).choices[0].finish_reason == "stop"


def test_reasoning_tokens_are_output_reported_apart_and_follow_the_effort():
    plain = create("fake-model").usage
    assert plain.completion_tokens_details is None  # a model that does not reason: no breakdown
    visible = plain.completion_tokens
    for effort, factor in (("minimal", 0), ("low", 1), (None, 2), ("medium", 2), ("high", 4)):
        options = {"reasoning_effort": effort} if effort else {}
        r = create("gpt-5-mini", **options)
        u = r.usage
        assert u.completion_tokens_details.reasoning_tokens == factor * visible, effort
        assert u.completion_tokens == (1 + factor) * visible and u.total_tokens == u.prompt_tokens + u.completion_tokens
        assert r.choices[0].message.content == "It is shipped."  # reasoning is never in the text
    assert create("gpt-5.1").usage.completion_tokens_details.reasoning_tokens == 0  # default "none"
    assert create("gpt-5.1", reasoning_effort="medium").usage.completion_tokens_details.reasoning_tokens == 2 * visible


def test_a_cap_the_reasoning_uses_up_leaves_an_empty_reply_with_length():
    r = create("gpt-5-mini", max_completion_tokens=5)
    assert (r.choices[0].message.content, r.choices[0].message.tool_calls, r.choices[0].finish_reason) == \
        ("", None, "length")
    assert (r.usage.completion_tokens, r.usage.completion_tokens_details.reasoning_tokens) == (5, 5)
    called = FakeLLM(S.scripted(S.call("get_order", order_id="A-1001"))).client().chat.completions.create(
        model="gpt-5-mini", messages=ASK, max_completion_tokens=5)
    assert (called.choices[0].message.tool_calls, called.choices[0].finish_reason) == (None, "length")
    # With reasoning off there is nothing to use the cap up; with room, the reply comes whole.
    assert create("gpt-5-mini", reasoning_effort="minimal", max_completion_tokens=5).choices[0].finish_reason == "stop"
    assert create("gpt-5-mini", max_completion_tokens=500).choices[0].message.content == "It is shipped."
    assert create("fake-model", max_completion_tokens=5).choices[0].finish_reason == "stop"


@pytest.mark.parametrize(("model", "effort", "supported"), [
    ("gpt-5-mini", "none", "'minimal', 'low', 'medium', and 'high'"),
    ("gpt-5.1", "minimal", "'none', 'low', 'medium', and 'high'"),
    ("o3", "minimal", "'low', 'medium', and 'high'"),
    ("gpt-5.1", None, "'none', 'low', 'medium', and 'high'")])
def test_an_effort_the_model_does_not_take_is_a_400_that_lists_the_ones_it_does(model, effort, supported):
    out = FakeLLM(S.scripted("ok")).handle({"model": model, "messages": ASK, "reasoning_effort": effort})
    shown = "null" if effort is None else f"'{effort}'"
    assert out.status == 400 and out.body["error"] == {
        "message": f"Unsupported value: 'reasoning_effort' does not support {shown} with this model. "
                   f"Supported values are: {supported}.",
        "type": "invalid_request_error", "param": "reasoning_effort", "code": "unsupported_value"}


def test_spend_is_one_rule_for_every_face():
    assert reasoning.spend("gpt-5-mini", None, None, 10) == reasoning.Spend(20, 10, False)
    assert reasoning.spend("gpt-5-mini", "high", 30, 10) == reasoning.Spend(30, 0, True)
    assert reasoning.spend("gpt-5-mini", "low", 30, 10) == reasoning.Spend(10, 10, False)
    assert reasoning.spend("fake-model", "high", 1, 10) == reasoning.Spend(0, 10, False)
    assert reasoning.spend("gpt-5-mini", None, None, 10).completion == 30
    assert [reasoning.model(n).reasons for n in ("gpt-5-pro", "o1", "gpt-5.5", "gpt-4o", "openai/gpt-5-mini")] == \
        [True, True, True, False, True]
