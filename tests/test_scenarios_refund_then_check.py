"""The scenario of chapters 08-09: a three-tool errand with thoughts, and a simulated crash."""

import json

import pytest

from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.payments import Payments
from workbook.scenarios import errands
from workbook.shop import Shop


def impl_for(payments, shop):
    def refund(order_id: str, amount: int):
        return payments.refund(order_id, amount, idempotency_key=f"refund:{order_id}:{amount}")

    return {**shop.tools(), "refund": refund}


def run(llm, impl, messages, refuse=()):
    """A small loop over `messages`; tools named in `refuse` answer with an error.
    Returns (answer, messages, the thoughts seen before tool calls)."""
    client = llm.client(max_retries=0)
    tools = llm.scenario.openai_tools()
    thoughts = []
    for _ in range(6):
        message = client.chat.completions.create(model="m", messages=messages,
                                                 tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, messages, thoughts
        thoughts.append(message.content)
        for c in message.tool_calls:
            if c.function.name in refuse:
                result = {"error": "the customer did not approve this refund"}
            else:
                try:
                    result = impl[c.function.name](**json.loads(c.function.arguments))
                except Exception as e:
                    result = {"error": f"{type(e).__name__}: {e}"}
            messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(result)})
    raise AssertionError("the scenario did not finish")


def start(scenario):
    return [{"role": "user", "content": scenario.question}]


def test_refund_then_check_reaches_its_answer_with_one_refund_and_a_thought_per_call():
    sc = scenarios.get("refund_then_check")
    payments, shop = Payments(), Shop("C-001")
    llm = FakeLLM(sc)
    answer, messages, thoughts = run(llm, impl_for(payments, shop), start(sc))
    assert answer == sc.answer == errands.REFUND_CHECK_ANSWER
    assert llm.calls == 4
    assert [r["amount"] for r in payments.refunds] == [2450], "the amount is read from get_order"
    assert len(thoughts) == 3 and all(isinstance(t, str) and t.endswith(".") for t in thoughts)
    assert shop.log == [("get_order", {"order_id": "A-1001"}), ("get_order", {"order_id": "A-1002"})]
    assert sc.tools == ("get_order", "refund") and "refund_then_check" in scenarios.CATALOGUE


def test_a_failed_refund_is_reported_honestly():
    sc = errands.refund_then_check()
    payments = Payments()
    answer, _, _ = run(FakeLLM(sc), impl_for(payments, Shop()), start(sc), refuse=("refund",))
    assert answer == "Order A-1001 was not refunded; order A-1002 (Green tea, 200 g) is processing."
    assert payments.refunds == []


def test_the_model_does_not_refund_what_it_could_not_look_up():
    sc = errands.refund_then_check()
    answer, messages, _ = run(FakeLLM(sc), impl_for(Payments(), Shop("C-002")), start(sc))
    assert answer.startswith("Sorry, I could not look up order A-1001")
    assert not any(c["function"]["name"] == "refund" for m in messages for c in m.get("tool_calls", []))


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_crash_on_step_kills_exactly_that_model_call_and_a_resumed_run_finishes(step):
    sc = scenarios.get("refund_then_check", crash_on_step=step)
    assert f"model call {step}" in sc.description
    payments, shop = Payments(), Shop()
    llm = FakeLLM(sc)
    messages = start(sc)
    with pytest.raises(errands.Crash, match=f"model call {step}"):
        run(llm, impl_for(payments, shop), messages)
    assert llm.calls == step, "the crash is neither retried nor wrapped by the SDK"
    assert sum(m["role"] == "assistant" for m in messages) == step - 1
    healthy = FakeLLM(errands.refund_then_check())
    answer, _, _ = run(healthy, impl_for(payments, shop), messages)
    assert answer == errands.REFUND_CHECK_ANSWER and healthy.calls == 5 - step
    assert len(payments.refunds) == 1


def test_crash_is_not_an_exception_a_loop_would_swallow():
    assert issubclass(scenarios.Crash, BaseException) and not issubclass(scenarios.Crash, Exception)
    sc = errands.refund_then_check(crash_on_step=1)
    with pytest.raises(scenarios.Crash):  # even with the SDK's own retries on
        FakeLLM(sc).client().chat.completions.create(model="m", messages=start(sc))
