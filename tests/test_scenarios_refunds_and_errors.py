"""The scenarios of chapters 04-05 reward a correct loop and expose the mistakes the chapters name."""

import json

import openai
import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.scenarios import errands, recovery
from workbook.shop import Shop


def refund_tool(shop):
    def refund(order_id: str, amount: int):
        shop.log.append(("refund", {"order_id": order_id, "amount": amount}))
        return {"order_id": order_id, "refunded_kzt": amount, "status": "refunded"}

    return refund


# An error observation in the workbook's shape, and two other shapes a student may reasonably send.
SHAPES = {"json object": lambda text: json.dumps({"error": text}),
          "ERROR: text": lambda text: f"ERROR: {text}",
          "json string": lambda text: json.dumps(f"ERROR: {text}")}


def observe(impl, name, raw, vague=False, swallow=None, shape="json object"):
    """A tool result as the loop would send it; `vague` and `swallow` imitate the chapter's mistakes."""
    try:
        return json.dumps(impl[name](**json.loads(raw)))
    except Exception as e:
        if swallow is not None:
            return swallow
        return SHAPES[shape]("the call failed" if vague else f"{type(e).__name__}: {e}")


def run(scenario, impl, answer_ids=lambda calls: [c.id for c in calls], split=False, **kwargs):
    """A small loop: returns (llm, answer). `answer_ids` picks the id put on each result in turn;
    `split` rewrites a reply with several calls as one assistant turn per call."""
    llm = FakeLLM(scenario)
    client = llm.client(max_retries=0)
    messages = [{"role": "user", "content": scenario.question}]
    for _ in range(6):
        message = client.chat.completions.create(model="m", messages=messages,
                                                 tools=scenario.openai_tools()).choices[0].message
        if not message.tool_calls:
            return llm, message.content
        turn = message.model_dump(exclude_none=True)
        results = [observe(impl, c.function.name, c.function.arguments, **kwargs)
                   for c in message.tool_calls]
        if split:
            for raw_call, result in zip(turn["tool_calls"], results, strict=True):
                messages += [{**turn, "tool_calls": [raw_call]},
                             {"role": "tool", "tool_call_id": raw_call["id"], "content": result}]
            continue
        messages.append(turn)
        for tool_call_id, result in zip(answer_ids(message.tool_calls), results, strict=True):
            messages.append({"role": "tool", "tool_call_id": tool_call_id, "content": result})
    raise AssertionError("the scenario did not finish")


def shop_impl():
    shop = Shop("C-001")
    return shop, {**shop.tools(), "refund": refund_tool(shop)}


@pytest.mark.parametrize("name", ["two_refunds", "refund_and_status", "wrong_field_then_fix",
                                  "missing_order"])
def test_registered_with_a_question_and_an_answer(name):
    sc = scenarios.get(name)
    assert sc.name == name and sc.question and sc.answer
    assert name in dict(scenarios.catalogue())


def test_two_refunds_are_both_asked_in_one_reply_and_read_by_id():
    shop, impl = shop_impl()
    llm, answer = run(scenarios.two_refunds(), impl)
    assert answer == errands.REFUNDS_ANSWER and llm.calls == 2
    assert [args for name, args in shop.log] == [{"order_id": "A-1001", "amount": 2450},
                                                 {"order_id": "A-1002", "amount": 1290}]


def test_refund_and_status_needs_each_result_under_its_own_id():
    shop, impl = shop_impl()
    llm, answer = run(scenarios.refund_and_status(), impl)
    assert answer == errands.MIXED_ANSWER
    assert [n for n, _ in shop.log] == ["refund", "get_order"]
    _, swapped = run(scenarios.refund_and_status(), shop_impl()[1],
                     answer_ids=lambda cs: [c.id for c in cs][::-1])
    assert swapped != errands.MIXED_ANSWER


@pytest.mark.parametrize("name", ["two_refunds", "refund_and_status"])
def test_one_reply_split_into_several_turns_loses_a_result(name):
    _, answer = run(scenarios.get(name), shop_impl()[1], split=True)
    assert answer != scenarios.get(name).answer


def test_only_the_first_result_is_refused_by_the_provider():
    sc = scenarios.two_refunds()
    with pytest.raises(openai.BadRequestError, match="did not have response messages"):
        llm = FakeLLM(sc)
        client = llm.client(max_retries=0)
        messages = [{"role": "user", "content": sc.question}]
        message = client.chat.completions.create(model="m", messages=messages).choices[0].message
        messages += [message.model_dump(exclude_none=True),
                     {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "{}"}]
        client.chat.completions.create(model="m", messages=messages)


def test_wrong_field_is_fixed_only_when_the_error_names_it():
    sc = scenarios.wrong_field_then_fix()
    llm, answer = run(sc, shop_impl()[1])  # TypeError: unexpected keyword argument 'id'
    assert answer == sc.answer and llm.calls == 3
    llm, answer = run(sc, shop_impl()[1], vague=True)
    assert answer != sc.answer and llm.calls == 2


def test_missing_order_is_honest_only_when_told_about_the_error():
    sc = scenarios.missing_order()
    llm, answer = run(sc, shop_impl()[1])
    assert answer == recovery.MISSING_ANSWER and llm.calls == 2
    for swallowed in ("null", "{}", ""):
        _, answer = run(sc, shop_impl()[1], swallow=swallowed)
        assert answer != recovery.MISSING_ANSWER and "on its way" in answer


@pytest.mark.parametrize("shape", SHAPES)
def test_an_error_observation_is_recognised_in_each_reasonable_shape(shape):
    sc = scenarios.wrong_field_then_fix()
    llm, answer = run(sc, shop_impl()[1], shape=shape)
    assert answer == sc.answer and llm.calls == 3
    llm, answer = run(scenarios.missing_order(), shop_impl()[1], shape=shape)
    assert answer == recovery.MISSING_ANSWER and llm.calls == 2
