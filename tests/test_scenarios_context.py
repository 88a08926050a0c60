"""Chapter 16's scenario (workbook/scenarios/context.py) behaves as its docstring says: the long
task looks up every named order once and answers with the refund ids of early steps; a request
whose system prompt says "summarise the conversation" gets one summary of the fact sentences it
was sent (and only those); a lost question gets LOST; the plain loop meets the cloud 400 in a
3000-token window and Ollama's cut takes the question in its default 4096."""

import json

import openai
import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM, prompt_tokens
from workbook.scenarios import context

SCENARIO = context.returns_audit()
TOOLS = SCENARIO.openai_tools()


def opening():
    return [{"role": "system", "content": SCENARIO.system}, {"role": "user", "content": SCENARIO.question}]


def play(llm, messages, max_steps=20):
    """A plain loop; returns the final text (or None at the step limit)."""
    client = llm.client(max_calls=max_steps)
    for _ in range(max_steps):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=TOOLS).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for c in message.tool_calls:
            result = context.IMPL[c.function.name](**json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(result)})
    return None


def test_the_long_task_looks_every_order_up_once_and_answers_with_early_refund_ids():
    llm = FakeLLM(SCENARIO, context_window=128_000)
    messages = opening()
    assert play(llm, messages) == context.ANSWER == SCENARIO.answer
    asked = [json.loads(c["function"]["arguments"])["order_id"]
             for m in messages for c in m.get("tool_calls", ())]
    assert asked == list(context.ORDERS)
    assert "R-7731" in context.ANSWER and "19840 KZT" in context.ANSWER
    sizes = [prompt_tokens(r["messages"], r.get("tools")) for r in llm.requests]
    assert len(sizes) == 13 and max(sizes) == 4777 and sum(sizes) == 32271


def test_a_result_is_bulky_and_its_fact_sentence_comes_last():
    record = context.order_details("A-2003")
    text = json.dumps(record)
    assert len(text) > 1000 and text.rstrip("}").endswith('"Order A-2003: returned, refund R-7731, 4990 KZT refunded."')
    assert context.order_details("A-2001")["outcome"] == "Order A-2001: delivered, no refund."
    with pytest.raises(ValueError, match="A-2001"):
        context.order_details("A-9999")


def test_a_compaction_call_gets_the_fact_sentences_it_was_sent_and_nothing_else():
    results = [json.dumps(context.order_details(o)) for o in ("A-2001", "A-2003")]
    sent = [{"role": "system", "content": context.SUMMARY_PROMPT},
            {"role": "user", "content": "\n".join(json.dumps({"role": "tool", "content": r}) for r in results)}]
    reply = FakeLLM(SCENARIO).client().chat.completions.create(model="fake-model", messages=sent)
    text = reply.choices[0].message.content
    assert text == ("Summary of the earlier steps:\n- Order A-2001: delivered, no refund.\n"
                    "- Order A-2003: returned, refund R-7731, 4990 KZT refunded.")
    assert "SKU" not in text and "tracking" not in text


def test_the_summariser_reads_tool_messages_an_earlier_summary_and_any_case_of_the_prompt():
    earlier = context.summary([context.outcome("A-2001")])
    sent = [{"role": "system", "content": "Please SUMMARISE THE CONVERSATION briefly."},
            {"role": "user", "content": earlier},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "order_details", "arguments": '{"order_id": "A-2007"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(context.order_details("A-2007"))}]
    text = FakeLLM(SCENARIO).client().chat.completions.create(
        model="fake-model", messages=sent).choices[0].message.content
    assert text == context.summary([context.outcome("A-2001"), context.outcome("A-2007")])


def test_a_summary_of_what_holds_no_facts_says_so():
    sent = [{"role": "system", "content": context.SUMMARY_PROMPT},
            {"role": "user", "content": "the assistant asked for order A-2001"}]
    text = FakeLLM(SCENARIO).client().chat.completions.create(
        model="fake-model", messages=sent).choices[0].message.content
    assert text == "Summary of the earlier steps: nothing worth keeping."


def test_after_a_summary_the_model_goes_on_from_the_first_order_it_has_no_fact_for():
    summary = context.summary([context.outcome(o) for o in context.ORDERS[:5]])
    messages = opening() + [{"role": "user", "content": summary}]
    call = FakeLLM(SCENARIO).client().chat.completions.create(
        model="fake-model", messages=messages, tools=TOOLS).choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"order_id": "A-2006"}
    full = context.summary([context.outcome(o) for o in context.ORDERS])
    reply = FakeLLM(SCENARIO).client().chat.completions.create(
        model="fake-model", messages=opening() + [{"role": "user", "content": full}], tools=TOOLS)
    assert reply.choices[0].message.content == context.ANSWER


def test_without_the_question_the_model_asks_what_to_check():
    messages = [{"role": "system", "content": SCENARIO.system}, {"role": "user", "content": "hello"}]
    reply = FakeLLM(SCENARIO).client().chat.completions.create(model="fake-model", messages=messages, tools=TOOLS)
    assert reply.choices[0].message.content == context.LOST


def test_the_plain_loop_gets_the_cloud_400_in_a_3000_token_window():
    llm = FakeLLM(SCENARIO, context_window=3000)
    with pytest.raises(openai.BadRequestError) as caught:
        play(llm, opening())
    assert caught.value.code == "context_length_exceeded"
    assert len(llm.requests) == 9 and "3248 tokens" in str(caught.value)


def test_ollama_drops_the_question_and_the_model_asks_what_to_check():
    llm = FakeLLM(SCENARIO, dialect="ollama", context_window=4096)
    assert play(llm, opening()) == context.LOST
    assert not any(m["role"] == "user" for m in llm.seen[-1])
    assert llm.seen[-1][0]["role"] == "system"


def test_the_scenario_is_reachable_from_the_package():
    assert scenarios.context.returns_audit().name == "returns_audit"
    assert "summarise the conversation" in context.SUMMARY_PROMPT.lower()
