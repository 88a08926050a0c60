"""The GPT-5.6 and GPT-6 tiers on the openai dialect (workbook/engine/reasoning.py): they reason by
default ("medium"), take "max" only on the Responses API, refuse `stop`, and on Chat Completions
take function tools only with reasoning off. Facts and sources: docs/SOURCES.md, "Reasoning models"."""

import openai
import pytest

from workbook import providers
from workbook import scenarios as S
from workbook.engine import reasoning
from workbook.fake_llm import FakeLLM

ASK = [{"role": "user", "content": "Where is my order?"}]
OPEN = ["gpt-5.6", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-6-sol", "gpt-6-luna", "gpt-6.1-terra"]
ALWAYS = ["gpt-6-astra", "gpt-6.1-sol", "gpt-6.2-sol", "gpt-6.2-astra"]
TOOLS = [{"type": "function", "function": {"name": "get_order", "description": "An order's status.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def chat(model, **options):
    return FakeLLM(S.scripted("It is shipped.")).handle({"model": model, "messages": ASK, **options})


def responses(model, effort, **extra):
    body = {"model": model, "input": "Where is my order?", "reasoning": {"effort": effort}, **extra}
    return FakeLLM(S.scripted("It is shipped.")).handle(body, "responses")


def error(out) -> tuple:
    e = out.body["error"]
    return out.status, e["message"], e["param"], e["code"]


@pytest.mark.parametrize("model", OPEN + ALWAYS + ["gpt-6.3-terra", "openai/gpt-6.1-terra"])
def test_the_tiers_reason_at_medium_by_default_and_refuse_stop(model):
    visible = chat("fake-model").body["usage"]["completion_tokens"]
    usage = chat(model).body["usage"]
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 2 * visible  # "medium"
    assert error(chat(model, stop=["Observation:"])) == (
        400, "Unsupported parameter: 'stop' is not supported with this model.", "stop", "unsupported_parameter")


@pytest.mark.parametrize(("models", "refused", "listed"), [
    (OPEN, ("minimal", "max"), "'none', 'low', 'medium', 'high', and 'xhigh'"),
    (ALWAYS, ("none", "minimal", "max"), "'low', 'medium', 'high', and 'xhigh'")])
def test_chat_completions_takes_up_to_xhigh_and_lists_what_it_takes(models, refused, listed):
    for model in models:
        for effort in listed.replace("and ", "").replace("'", "").split(", "):
            assert chat(model, reasoning_effort=effort).status == 200, (model, effort)
        for effort in refused:
            assert error(chat(model, reasoning_effort=effort)) == (
                400, f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model. "
                     f"Supported values are: {listed}.", "reasoning_effort", "unsupported_value"), (model, effort)


@pytest.mark.parametrize(("models", "refused", "listed"), [
    (OPEN, "minimal", "'none', 'low', 'medium', 'high', 'xhigh', and 'max'"),
    (ALWAYS, "none", "'low', 'medium', 'high', 'xhigh', and 'max'")])
def test_the_responses_api_also_takes_max(models, refused, listed):
    for model in models:
        out = responses(model, "max", tools=[{"type": "function", **TOOLS[0]["function"]}])
        assert out.status == 200 and out.body["reasoning"]["effort"] == "max", model
        assert responses(model, None).body["reasoning"]["effort"] == "medium"
        assert error(responses(model, refused)) == (
            400, f"Unsupported value: '{refused}' is not supported with the '{model}' model. "
                 f"Supported values are: {listed}.", "reasoning.effort", "unsupported_value"), model


@pytest.mark.parametrize("model", OPEN + ALWAYS)
def test_chat_completions_takes_function_tools_only_with_reasoning_off(model):
    refused = (400, f"Function tools with reasoning_effort are not supported for {model} in /v1/chat/completions. "
                    "To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
               "reasoning_effort", None)
    assert error(chat(model, tools=TOOLS)) == refused, "the default effort is on"
    assert error(chat(model, tools=TOOLS, reasoning_effort="low")) == refused
    assert chat(model, tools=[], reasoning_effort="low").status == 200, "no tools, no rule"
    assert chat(model, reasoning_effort="high").status == 200
    off = chat(model, tools=TOOLS, reasoning_effort="none")
    assert off.status == (200 if model in OPEN else 400), "none turns reasoning off where the model takes it"


def test_the_sdk_gets_the_tools_refusal_as_a_bad_request_that_is_not_retried():
    llm = FakeLLM(S.scripted(S.call("get_order")))
    with pytest.raises(openai.BadRequestError) as caught:
        llm.client(max_retries=2).chat.completions.create(model="gpt-6.1-terra", messages=ASK, tools=TOOLS)
    assert (caught.value.status_code, caught.value.param, caught.value.code) == (400, "reasoning_effort", None)
    assert len(llm.requests) == 1
    r = llm.client().chat.completions.create(model="gpt-6.1-terra", messages=ASK, tools=TOOLS, reasoning_effort="none")
    assert r.choices[0].message.tool_calls[0].function.name == "get_order"
    assert r.usage.completion_tokens_details.reasoning_tokens == 0


def test_a_learner_who_names_a_current_model_with_the_fake_gets_its_reasoning_not_a_400():
    client, model = providers.make_client(env={"LLM_MODEL": "gpt-6.1-terra"}, dotenv={})
    reply = client.chat.completions.create(model=model, messages=ASK, reasoning_effort="low")
    assert reply.usage.completion_tokens_details.reasoning_tokens == reply.usage.completion_tokens // 2


def test_other_names_keep_their_rules():
    assert reasoning.model("gpt-6.1-chat-latest") == reasoning.PLAIN  # a chat variant, as gpt-5-chat-latest
    assert reasoning.model("gpt-6-cyber") == reasoning.PLAIN  # not a tier the sources describe
    assert reasoning.model("gpt-5.5") == reasoning.Model(reasoning.LATER, "none")
