"""`reasoning.effort` on the Responses face (`workbook/engine/reasoning.check_responses`): an effort
a reasoning model does not take, and any effort on a model that does not reason, are OpenAI's 400s
in its own words; Chat Completions keeps its own wording for `reasoning_effort`, and refuses it on a
model that does not reason. Texts and sources:
docs/SOURCES.md ("Reasoning models", "OpenAI Responses API")."""

from __future__ import annotations

import openai
import pytest

from tests.test_fake_responses import flat
from workbook.fake_llm import FakeLLM


def body(model: str, reasoning=None, **extra) -> dict:
    out = {"model": model, "input": "Where is my order A-1001?", **extra}
    if reasoning is not None:
        out["reasoning"] = reasoning
    return out


def refused(model: str, effort, **llm_options):
    return FakeLLM("two_orders", **llm_options).handle(body(model, {"effort": effort}), "responses")


@pytest.mark.parametrize(("model", "effort", "supported"), [
    ("gpt-5.1", "minimal", "'none', 'low', 'medium', and 'high'"),  # openai-agents-python#2089, verbatim
    ("gpt-5-mini", "none", "'minimal', 'low', 'medium', and 'high'"),
    ("gpt-5.4-mini", "minimal", "'none', 'low', 'medium', 'high', and 'xhigh'"),  # getzep/graphiti#1395
    ("gpt-5.5", "max", "'none', 'low', 'medium', 'high', and 'xhigh'"),
    ("o3", "xhigh", "'low', 'medium', and 'high'"),
    ("gpt-5-pro", "low", "'high'")])  # one value: no "and"
def test_an_effort_the_model_does_not_take_is_openais_400(model, effort, supported):
    out = refused(model, effort)
    assert out.status == 400 and out.body == {"error": {
        "message": f"Unsupported value: '{effort}' is not supported with the '{model}' model. "
                   f"Supported values are: {supported}.",
        "type": "invalid_request_error", "param": "reasoning.effort", "code": "unsupported_value"}}


@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-5-chat-latest", "fake-model"])
def test_an_effort_on_a_model_that_does_not_reason_is_an_unsupported_parameter(model):
    out = refused(model, "low")
    assert out.status == 400 and out.body == {"error": {
        "message": "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "type": "invalid_request_error", "param": "reasoning.effort", "code": "unsupported_parameter"}}


def test_the_sdk_raises_it_before_any_reply_and_nothing_is_stored():
    llm = FakeLLM("two_orders")
    client = llm.client(max_retries=2)
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="gpt-5.1", input=llm.scenario.question, reasoning={"effort": "minimal"},
                                tools=flat(llm.scenario.openai_tools()))
    assert (caught.value.status_code, caught.value.param, caught.value.code) == (
        400, "reasoning.effort", "unsupported_value")
    assert len(llm.requests) == 1, "a 400 is not retried"
    assert llm.responses_face.stored == {} and llm.responses_face.served == 0


def test_a_streamed_request_gets_the_400_not_a_stream():
    llm = FakeLLM("two_orders")
    with pytest.raises(openai.BadRequestError, match="is not supported with the 'gpt-5-mini' model"):
        llm.client(max_retries=0).responses.create(model="gpt-5-mini", input="hi", stream=True,
                                                   reasoning={"effort": "none"})


def test_over_http_the_same_400():
    llm = FakeLLM("two_orders")
    with llm.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        with pytest.raises(openai.BadRequestError) as caught:
            client.responses.create(model="gpt-4.1", input="hi", reasoning={"effort": "high"})
    assert caught.value.body["code"] == "unsupported_parameter"


@pytest.mark.parametrize(("model", "reasoning", "effort"), [
    ("gpt-5.1", {"effort": "none"}, "none"), ("gpt-5-mini", {"effort": "minimal"}, "minimal"),
    ("gpt-5.4", {"effort": "xhigh"}, "xhigh"), ("o4-mini", {"effort": "high"}, "high"),
    ("gpt-5-mini", {"effort": None}, "medium"),  # null: the model's default
    ("gpt-5-mini", {}, "medium"),
    ("gpt-4o", {"summary": "auto"}, None),  # no effort: OpenAI accepts it on gpt-4o (litellm#38842)
    ("gpt-4.1-mini", None, None)])
def test_what_the_model_takes_is_answered(model, reasoning, effort):
    llm = FakeLLM("two_orders")
    out = llm.handle(body(model, reasoning), "responses")
    assert out.status == 200 and out.body["reasoning"]["effort"] == effort


@pytest.mark.parametrize("dialect", ["deepseek", "ollama"])
def test_other_dialects_do_not_check_the_effort(dialect):
    assert refused("gpt-4.1", "turbo", dialect=dialect).status == 200


def test_an_effort_that_is_not_a_string_is_a_type_error_on_every_dialect():
    for dialect in ("openai", "ollama"):
        out = refused("gpt-5-mini", 3, dialect=dialect)
        assert out.status == 400 and out.body["error"] == {
            "message": "Invalid type for 'reasoning.effort': expected a string, but got an integer instead.",
            "type": "invalid_request_error", "param": "reasoning.effort", "code": "invalid_type"}


def test_chat_completions_keeps_its_own_wording_and_refuses_it_on_a_plain_model():
    llm = FakeLLM("two_orders")
    ask = [{"role": "user", "content": "hi"}]
    out = llm.handle({"model": "gpt-5.4-mini", "messages": ask, "reasoning_effort": "minimal"})
    assert out.status == 400 and out.body["error"]["message"] == (  # livekit/agents#6147, verbatim
        "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. "
        "Supported values are: 'none', 'low', 'medium', 'high', and 'xhigh'.")
    assert out.body["error"]["param"] == "reasoning_effort"
    one = llm.handle({"model": "gpt-5-pro", "messages": ask, "reasoning_effort": "low"})
    assert one.body["error"]["message"].endswith("Supported values are: 'high'.")
    for plain in ("gpt-4o", "gpt-4.1-nano", "gpt-5-chat-latest", "fake-model"):  # mellea#270, Psycheros#41
        out = llm.handle({"model": plain, "messages": ask, "reasoning_effort": "minimal"})
        assert out.status == 400 and out.body["error"] == {
            "message": "Unrecognized request argument supplied: reasoning_effort",
            "type": "invalid_request_error", "param": None, "code": None}, plain
    assert llm.handle({"model": "gpt-4o", "messages": ask, "reasoning_effort": None}).status == 200
    assert llm.handle({"model": "gpt-4o", "messages": ask}).status == 200


def test_a_plain_models_refusal_reaches_the_sdk_as_a_bad_request():
    client = FakeLLM("two_orders").client(max_retries=0)
    with pytest.raises(openai.BadRequestError, match="Unrecognized request argument supplied: reasoning_effort"):
        client.chat.completions.create(model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}],
                                       reasoning_effort="low")
