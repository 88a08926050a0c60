"""The fake never drops a connection: its own failures are a 500 in the student's terms, and its
scenarios read tool results as tolerantly as a model (issue 18). The fuzz is test_fake_fuzz.py."""

import json
import logging
from pathlib import Path

import openai
import pytest

from workbook import scenarios
from workbook.engine.turns import Conversation, Turn
from workbook.fake_llm import FakeLLM, ModelError
from workbook.scenarios import Scenario, call

RESULT = {"category": "taxi", "month": "2026-09", "total": 5000}  # 'total', not 'total_kzt'
EXPECTED = ("the fake model (scenario 'rigid') expected the txn_sum result to contain 'total_kzt'; "
            "it got " + json.dumps(RESULT))


def rigid() -> Scenario:
    """A scenario written carelessly: it indexes the result instead of reading it."""
    def policy(conv):
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return scenarios.final(f"{json.loads(conv.last_result)['total_kzt']} KZT")

    return Scenario(name="rigid", description="Indexes its tool result.", policy=policy,
                    tools=("txn_sum",), question="Taxi in September?")


def second_step(client) -> None:
    messages = [{"role": "user", "content": "Taxi in September?"}]
    first = client.chat.completions.create(model="m", messages=messages, tools=rigid().openai_tools())
    c = first.choices[0].message.tool_calls[0]
    messages += [{"role": "assistant", "content": None, "tool_calls": [c.model_dump()]},
                 {"role": "tool", "tool_call_id": c.id, "content": json.dumps(RESULT)}]
    client.chat.completions.create(model="m", messages=messages, tools=rigid().openai_tools())


def test_a_failing_scenario_is_a_500_the_sdk_raises_at_once():
    llm = FakeLLM(rigid())
    with pytest.raises(openai.InternalServerError) as info:
        second_step(llm.client())  # the SDK's default retries: x-should-retry false stops them
    assert info.value.body == {"message": EXPECTED, "type": "server_error", "param": None, "code": None}
    assert llm.calls == 2, "one request per step: a failure that would repeat is not retried"


def test_the_http_face_answers_500_and_logs_one_line(caplog, capfd):
    llm = FakeLLM(rigid())
    with caplog.at_level(logging.ERROR, logger="workbook.fake_llm"), llm.serve() as base_url:
        with pytest.raises(openai.InternalServerError, match="expected the txn_sum result"):
            second_step(openai.OpenAI(base_url=base_url, api_key="k"))
    assert llm.calls == 2
    assert [r.getMessage() for r in caplog.records] == [f"fake LLM: {EXPECTED}"]
    assert "Traceback" not in capfd.readouterr().err


def test_the_function_face_raises_model_error_with_the_same_words():
    model = rigid().as_function()
    model([{"role": "user", "content": "x"}])
    with pytest.raises(ModelError) as info:
        model([{"role": "user", "content": "x"}, {"role": "assistant", "content": json.dumps(
            {"tool": "txn_sum", "args": {}})}, {"role": "tool", "content": json.dumps(RESULT)}])
    assert str(info.value) == EXPECTED


def test_a_policy_that_returns_nonsense_is_a_500_too():
    llm = FakeLLM(Scenario(name="nonsense", description="-", policy=lambda conv: "not a reply"))
    with pytest.raises(openai.InternalServerError, match=r"scenario 'nonsense'\) failed on this "
                       r"request: AttributeError"):
        llm.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert llm.calls == 1


# ------------------------------------------------------------------ reading like a model


def conv(*results: str) -> Conversation:
    return Conversation([Turn("user", "q"), *(Turn("tool", r, (), "id") for r in results)])


@pytest.mark.parametrize("text, kinds, expected", [
    ('{"count": 2, "total_kzt": 5000}', {"count": int, "total_kzt": int}, {"count": 2, "total_kzt": 5000}),
    ('{"total_kzt": 5000, "currency": "KZT"}', {"total_kzt": int}, {"total_kzt": 5000}),
    ('{"total": 5000}', {"total_kzt": int}, {"total_kzt": 5000}),
    ('{"totalKzt": "5,000 KZT"}', {"total_kzt": int}, {"total_kzt": 5000}),
    ('{"temperature_c": "21.5"}', {"temp_c": float}, {"temp_c": 21.5}),
    ('{"state": "shipped"}', {"status": str}, {"status": "shipped"}),
    ('[{"status": "shipped"}]', {"status": str}, {"status": "shipped"}),
    ('{"result": {"status": "shipped"}}', {"status": str}, {"status": "shipped"}),
    ("order_id: A-1002, item: Green tea, 200 g, status: processing", {"status": str, "item": str},
     {"status": "processing", "item": "Green tea, 200 g"}),
    ('"count: 2\\ntotal_kzt: 5000"', {"total_kzt": int}, {"total_kzt": 5000}),
    ('{"country": "KZ", "count_rides": 2}', {"count": int}, {"count": 2}),  # the next candidate
    ('{"total_kzt": 1' + "0" * 400 + '}', {"total_kzt": int}, {"total_kzt": 10 ** 400}),
])
def test_read_takes_what_a_model_would(text, kinds, expected):
    got = conv(text).read(**kinds)
    assert got is not None and {k: got[k] for k in expected} == expected
    assert all(type(got[k]) is type(v) for k, v in expected.items())


@pytest.mark.parametrize("text", [
    '{"error": "no such month"}', "ERROR: 'month' must look like YYYY-MM", '{"count": 2}',
    '{"month": "2026-09", "category": "taxi"}', '{"rides": 2, "total_kzt": {"value": 5000}}',
    "{'total_kzt': 5000}",  # Python's repr is not JSON: chapter 01 teaches json.dumps
    '{"total_kzt": NaN}', '{"total_kzt": true}', "[" * 5000 + "]" * 5000, "", "[1, 2]", "OK",
])
def test_read_gives_none_when_a_model_could_not_use_the_result(text):
    assert conv(text).read(total_kzt=int) is None


def test_read_a_given_result_and_the_exact_record():
    c = conv('{"status": "shipped", "item": "Svet desk lamp"}', '{"count": 2, "total_kzt": 5000}')
    assert c.read() == {"count": 2, "total_kzt": 5000}
    assert c.read(c.results[0], status=str)["item"] == "Svet desk lamp"
    assert c.read(None, status=str) is None  # a call nobody answered
    with pytest.raises(TypeError, match="int, float or str"):
        c.read(total_kzt=list)


def test_deepseek_thinking_reads_a_total_named_differently_over_http():
    """The issue's case: the tool said 'total', the model still answers (no dropped connection)."""
    sc = scenarios.deepseek_thinking()
    llm = FakeLLM(sc, dialect="deepseek")
    with llm.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        messages = [{"role": "user", "content": sc.question}]
        for _ in range(3):
            msg = client.chat.completions.create(model="deepseek-chat", messages=messages,
                                                 tools=sc.openai_tools()).choices[0].message
            if not msg.tool_calls:
                break
            messages.append({"role": "assistant", "content": msg.content, "tool_calls": [
                c.model_dump() for c in msg.tool_calls], "reasoning_content": msg.reasoning_content})
            month = json.loads(msg.tool_calls[0].function.arguments)["month"]
            messages.append({"role": "tool", "tool_call_id": msg.tool_calls[0].id, "content": json.dumps(
                {"category": "taxi", "month": month, "total": 5000 if month == "2026-09" else 2500})})
    assert msg.content == sc.answer


def test_the_readme_example_runs_against_the_http_face(capsys):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The fake as a test double for your own agent", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    llm = FakeLLM("two_orders")
    with llm.serve() as base_url:
        exec(code.replace("http://127.0.0.1:8765/v1", base_url), {})
    assert capsys.readouterr().out.strip() == scenarios.two_orders().answer
    assert llm.calls == 2
