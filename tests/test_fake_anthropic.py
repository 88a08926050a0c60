"""The fake's fourth face: Anthropic's Messages API through the real `anthropic` SDK, in-process and
over real HTTP, with the same scenarios and Anthropic's own 400s (docs/SOURCES.md)."""

import contextlib
import dataclasses
import json

import anthropic
import httpx2
import pytest

from tests.reference_loop import tools_for
from workbook import scenarios as S
from workbook.fake_llm import FakeLLM, anthropic_tools
from workbook.shop import Shop

MODEL = "claude-fake"


def messages_loop(client, sc, impl, max_steps=6, fail_as_error=True):
    """A reference loop on the Messages API: system apart, the whole content appended, every
    tool_use answered in one user message, is_error for failures, stop on end_turn."""
    messages = [{"role": "user", "content": sc.question}]
    extra = {"system": sc.system} if sc.system else {}
    for _ in range(max_steps):
        reply = client.messages.create(model=MODEL, max_tokens=512, messages=messages,
                                       tools=anthropic_tools(sc.openai_tools()), **extra)
        messages.append({"role": "assistant", "content": reply.content})
        if reply.stop_reason != "tool_use":
            return reply, messages
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            try:
                out, failed = json.dumps(impl[block.name](**block.input)), False
            except Exception as e:
                out, failed = f"{type(e).__name__}: {e}", fail_as_error
            results.append({"type": "tool_result", "tool_use_id": block.id, "content": out,
                            "is_error": failed})
        messages.append({"role": "user", "content": results})
    raise AssertionError("the loop did not stop")


@pytest.mark.parametrize("name", ["taxi_spending", "two_orders", "weather_and_math"])
def test_a_full_tool_exchange_through_the_anthropic_sdk(name):
    sc = S.get(name)
    llm = FakeLLM(sc)
    reply, messages = messages_loop(llm.anthropic_client(max_calls=6), sc, tools_for(Shop()))
    assert reply.stop_reason == "end_turn" and reply.content[-1].text == sc.answer
    first = llm.requests[0]
    assert first["max_tokens"] == 512 and first["tools"][0]["input_schema"]["type"] == "object"
    uses = [b for b in messages[1]["content"] if b.type == "tool_use"]
    assert uses and all(b.id.startswith("toolu_") and isinstance(b.input, dict) for b in uses)


def test_the_http_face_answers_v1_messages_with_the_real_sdk():
    sc = S.two_orders()
    llm = FakeLLM(sc)
    with llm.serve() as base_url:
        client = anthropic.Anthropic(api_key="k", base_url=base_url.removesuffix("/v1"), max_retries=0)
        reply, _ = messages_loop(client, sc, tools_for(Shop()))
        with pytest.raises(anthropic.BadRequestError, match="tool_result"):  # a rule, over HTTP
            client.messages.create(model=MODEL, max_tokens=10, tools=anthropic_tools(sc.openai_tools()),
                                   messages=[{"role": "user", "content": sc.question},
                                             {"role": "assistant", "content": [
                                                 {"type": "tool_use", "id": "toolu_1", "name": "get_order",
                                                  "input": {"order_id": "A-1001"}}]}])
        no_key = httpx2.post(base_url + "/messages", json={})
        missing = httpx2.post(base_url + "/messages", headers={"x-api-key": "k"},
                              json={"model": MODEL, "messages": [{"role": "user", "content": "hi"}]})
    assert reply.content[-1].text == sc.answer
    assert no_key.status_code == 401 and no_key.json() == {"type": "error", "error": {
        "type": "authentication_error", "message": "x-api-key header is required"}}
    assert missing.status_code == 400  # the SDK requires max_tokens; raw HTTP can forget it
    assert missing.json()["error"] == {"type": "invalid_request_error", "message": "max_tokens: Field required"}


def test_usage_and_ids_are_deterministic_and_grow_with_the_history():
    sc = S.taxi_spending()
    runs = [messages_loop(FakeLLM(sc).anthropic_client(), sc, tools_for(Shop())) for _ in range(2)]
    assert runs[0][0].model_dump() == runs[1][0].model_dump()
    llm = FakeLLM(sc)
    client = llm.anthropic_client()
    one = client.messages.create(model=MODEL, max_tokens=9, messages=[{"role": "user", "content": "hi"}])
    two = client.messages.create(model=MODEL, max_tokens=9, messages=[
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "hi again"}])
    assert 0 < one.usage.input_tokens < two.usage.input_tokens and one.usage.output_tokens > 0


# ------------------------------------------------------------------ the 400 rules

USE = {"type": "tool_use", "id": "toolu_a", "name": "get_order", "input": {"order_id": "A-1001"}}
USE_B = {**USE, "id": "toolu_b", "input": {"order_id": "A-1002"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "{\"status\": \"shipped\"}"}
RESULT_B = {**RESULT, "tool_use_id": "toolu_b"}
Q = {"role": "user", "content": "Where is A-1001?"}
TOOLS = anthropic_tools(S.two_orders().openai_tools())
RULES = [
    ("tool_use without its tool_result next",
     [Q, {"role": "assistant", "content": [USE, USE_B]}, {"role": "user", "content": [RESULT]}], TOOLS,
     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. "
     "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    ("results split over two user messages",
     [Q, {"role": "assistant", "content": [USE, USE_B]}, {"role": "user", "content": [RESULT]},
      {"role": "user", "content": [RESULT_B]}], TOOLS, "messages.1: `tool_use` ids were found without"),
    ("a tool_result for an id nobody asked",
     [Q, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [
         RESULT, {**RESULT, "tool_use_id": "toolu_zzz"}]}], TOOLS,
     "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz. Each "
     "`tool_result` block must have a corresponding `tool_use` block in the previous message."),
    ("text before the tool_result",
     [Q, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [
         {"type": "text", "text": "here you go"}, RESULT]}], TOOLS,
     "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages "
     "following `tool_use` blocks must begin with a matching number of `tool_result` blocks."),
    ("tool blocks but no tools",
     [Q, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [RESULT]}], None,
     "Requests which include `tool_use` or `tool_result` blocks must define tools."),
    ("an assistant turn last (prefill)",
     [Q, {"role": "assistant", "content": "Order A-1001 is"}], None,
     "This model does not support assistant message prefill. The conversation must end with a user "
     "message."),
    ("system as a message role",
     [{"role": "system", "content": "Be brief."}, Q], None,
     'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
     'not "system" as an input message role.'),
]


@pytest.mark.parametrize("face", ["in-process", "http"])
@pytest.mark.parametrize(("why", "messages", "tools", "message"), RULES, ids=[r[0] for r in RULES])
def test_each_rule_is_a_400_with_anthropics_wording(why, messages, tools, message, face):
    llm = FakeLLM(S.two_orders())
    with contextlib.ExitStack() as stack:
        if face == "http":
            base_url = stack.enter_context(llm.serve()).removesuffix("/v1")
            client = anthropic.Anthropic(api_key="k", base_url=base_url, max_retries=0)
        else:
            client = llm.anthropic_client(max_retries=0)
        with pytest.raises(anthropic.BadRequestError) as info:
            client.messages.create(model=MODEL, max_tokens=50, messages=messages,
                                   **({"tools": tools} if tools else {}))
    assert info.value.body["type"] == "error"
    assert info.value.body["error"]["type"] == "invalid_request_error"
    assert info.value.body["error"]["message"].startswith(message)


def test_consecutive_user_turns_are_accepted_as_the_api_combines_them():
    client = FakeLLM(S.scripted("ok")).anthropic_client()
    reply = client.messages.create(model=MODEL, max_tokens=5, messages=[
        {"role": "user", "content": "one"}, {"role": "user", "content": "two"}])
    assert reply.content[0].text == "ok"


def test_is_error_reaches_the_scenario_as_an_error_observation():
    def lookup(order_id):
        raise KeyError(f"order {order_id} not found")  # no "error" in the text itself

    sc = S.missing_order()
    honest, _ = messages_loop(FakeLLM(sc).anthropic_client(), sc, {"get_order": lookup})
    guess, _ = messages_loop(FakeLLM(sc).anthropic_client(), sc, {"get_order": lookup},
                             fail_as_error=False)
    assert honest.content[-1].text == sc.answer
    assert guess.content[-1].text != sc.answer  # without is_error the text alone did not say so


def test_stop_sequences_and_max_tokens_give_their_stop_reasons():
    sc = S.scripted("Thought: look it up\nObservation: invented", S.final("Partial ans", "length"))
    client = FakeLLM(sc).anthropic_client()
    cut = client.messages.create(model=MODEL, max_tokens=50, stop_sequences=["Observation:"],
                                 messages=[Q])
    assert (cut.content[0].text, cut.stop_reason, cut.stop_sequence) == \
        ("Thought: look it up\n", "stop_sequence", "Observation:")
    whole = client.messages.create(model=MODEL, max_tokens=50, messages=[Q])
    assert (whole.stop_reason, whole.stop_sequence) == ("end_turn", None)
    short = client.messages.create(model=MODEL, max_tokens=50, messages=[
        Q, {"role": "assistant", "content": "Thought"}, {"role": "user", "content": "go on"}])
    assert short.stop_reason == "max_tokens"


def test_scripted_faults_have_anthropics_statuses_and_types():
    overloaded = FakeLLM(S.scripted(S.server_error(503))).anthropic_client(max_retries=0)
    with pytest.raises(anthropic.InternalServerError) as info:
        overloaded.messages.create(model=MODEL, max_tokens=5, messages=[Q])
    assert info.value.status_code == 529
    assert info.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    limited = FakeLLM(S.rate_limited()).anthropic_client(max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as info:
        limited.messages.create(model=MODEL, max_tokens=5, messages=[Q])
    assert info.value.body["error"]["type"] == "rate_limit_error"
    retried = FakeLLM(S.rate_limited()).anthropic_client(max_retries=2)  # the SDK retries, 1 ms apart
    assert retried.messages.create(model=MODEL, max_tokens=5, messages=[Q]).content


GARBAGE = [[], "not json", {"model": MODEL, "max_tokens": 5, "messages": "hi"},
           {"model": MODEL, "max_tokens": 5, "messages": []},
           {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user"}]},
           {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": [1, 2]}]},
           {"model": MODEL, "max_tokens": 5, "messages": [{"role": "tool", "content": "x"}]},
           {"model": MODEL, "max_tokens": 5, "messages": [Q], "tools": {"name": "x"}},
           {"model": MODEL, "max_tokens": 5, "messages": [Q], "tools": [{"name": "x"}]},
           {"model": MODEL, "max_tokens": 5, "messages": [Q], "stop_sequences": "Observation:"},
           {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": [
               {"type": "tool_result", "content": {"odd": 1}}]}], "tools": TOOLS}]


@pytest.mark.parametrize("body", GARBAGE, ids=range(len(GARBAGE)))
def test_a_malformed_request_is_a_400_never_the_fakes_own_500(body):
    out = FakeLLM(S.two_orders()).handle(body, "messages")
    assert out.status == 400 and out.body["type"] == "error", out.body


@pytest.mark.parametrize("name", list(S.CATALOGUE))
def test_every_scenario_plays_through_the_messages_face_without_the_fakes_own_500(name):
    """Scripted faults and 400s are fine; the fake failing on its own (api_error 500 with
    x-should-retry false) is not: the same scenarios must read tool results from either API."""
    sc = S.get(name)
    if name == "support_desk":  # its policy plays the workflow step its system prompt names
        sc = dataclasses.replace(sc, system="Classify the customer's message.")
    impl = {t: (lambda **kw: {"ok": True, **kw}) for t in sc.tools}
    client = FakeLLM(sc, hang_seconds=0.1).anthropic_client(max_retries=0, timeout=2)
    try:
        messages_loop(client, sc, impl, max_steps=4)
    except (anthropic.RateLimitError, anthropic.APITimeoutError, AssertionError):
        pass  # a scripted 429 or timeout, or a scenario that never stops (the loop's own cap)
    except anthropic.InternalServerError as e:
        assert e.body["error"]["message"] in ("Overloaded", "Internal server error"), e.body
