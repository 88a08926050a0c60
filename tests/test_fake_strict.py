"""Strict tool schemas on the fake's Chat Completions face (workbook/engine/strict.py): a strict tool
whose schema strict mode cannot enforce is a 400 on the openai and deepseek dialects, and is
accepted on ollama, which ignores `strict`; calls to a strict tool are fitted to its schema where
the provider enforces it."""

import json

import openai
import pytest

from workbook.engine import strict
from workbook.engine.replies import Call, Reply
from workbook.fake_llm import FakeLLM
from workbook.scenarios import capstone, scripted

QUERY = {"type": "string"}


def tool(params, name="rag_search", is_strict=True):
    fn = {"name": name, "description": "Search.", "parameters": params}
    if is_strict is not None:
        fn["strict"] = is_strict
    return {"type": "function", "function": fn}


CLOSED = {"type": "object", "properties": {"query": QUERY, "k": {"type": ["integer", "null"]}},
          "required": ["query", "k"], "additionalProperties": False}


def send(dialect, tools, scenario=None):
    llm = FakeLLM(scenario or scripted("ok"), dialect=dialect)
    return llm.client(max_retries=0).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)


@pytest.mark.parametrize("dialect", ["openai", "deepseek"])
def test_a_schema_strict_mode_cannot_enforce_is_refused(dialect):
    loose = dict(CLOSED, required=["query"])
    with pytest.raises(openai.BadRequestError) as e:
        send(dialect, [tool(CLOSED, "first"), tool(loose)])
    body = e.value.body
    assert body["message"] == ("Invalid schema for function 'rag_search': In context=(), 'required' is "
                               "required to be supplied and to be an array including every key in "
                               "properties. Missing 'k'.")
    assert (body["param"], body["code"]) == ("tools[1].function.parameters", "invalid_function_parameters")
    open_object = {k: v for k, v in CLOSED.items() if k != "additionalProperties"}
    with pytest.raises(openai.BadRequestError, match=r"In context=\(\), 'additionalProperties' is required"):
        send(dialect, [tool(open_object)])
    nested = dict(CLOSED, properties={"query": QUERY, "k": {"type": "object", "properties": {"a": QUERY}}})
    with pytest.raises(openai.BadRequestError, match=r"In context=\('properties', 'k'\), 'additionalProperties'"):
        send(dialect, [tool(nested)])


def test_ollama_ignores_strict_and_non_strict_tools_are_never_checked():
    loose = dict(CLOSED, required=["query"])
    assert send("ollama", [tool(loose)]).choices[0].message.content == "ok"
    for dialect in ("openai", "deepseek"):
        assert send(dialect, [tool(loose, is_strict=None)]).choices[0].message.content == "ok"
        assert send(dialect, [tool(loose, is_strict=False)]).choices[0].message.content == "ok"
        assert send(dialect, [tool(CLOSED)]).choices[0].message.content == "ok"


def test_calls_are_fitted_where_strict_is_enforced():
    asks = scripted(Reply(calls=(Call("rag_search", {"question": "lamps"}),)))
    sent = {d: json.loads(send(d, [tool(CLOSED)], asks).choices[0].message.tool_calls[0].function.arguments)
            for d in ("openai", "deepseek", "ollama")}
    assert sent["openai"] == sent["deepseek"] == {"query": "lamps", "k": None}
    assert sent["ollama"] == {"question": "lamps"}, "Ollama drops strict: the call goes out as written"
    plain = json.loads(send("openai", [tool(CLOSED, is_strict=None)], asks).choices[0].message.tool_calls[0]
                       .function.arguments)
    assert plain == {"question": "lamps"}, "a tool without strict is not fitted"


def test_the_fit_rule():
    schema = {"type": "object", "properties": {"path": QUERY, "n": {"type": "integer"}, "tags": {"type": "array"}},
              "required": ["path", "n", "tags"], "additionalProperties": False}
    tools = [tool(schema, "read_file")]
    fitted = strict.fit(Reply(calls=(Call("read_file", {"filename": "kb/a.md", "extra": 5}),)), tools, "openai")
    assert fitted.calls[0].args == {"path": "kb/a.md", "n": 5, "tags": []}
    broken = strict.fit(Reply(calls=(Call("read_file", '{"path": "kb/'),)), tools, "openai")
    assert broken.calls[0].args == {"path": "", "n": 0, "tags": []}, "cut JSON starts from {}"
    other = Reply(calls=(Call("calculate", {"expr": "1+1"}),))
    assert strict.fit(other, tools, "openai") == other, "only calls to strict tools are fitted"
    assert strict.fit("not a reply", tools, "openai") == "not a reply"


def test_the_small_capstone_model_makes_no_argument_error_behind_a_strict_provider():
    tools = [tool({"type": "object", "properties": {"path": QUERY}, "required": ["path"],
                   "additionalProperties": False}, "read_file")]
    for dialect, want in (("ollama", {"filename": "kb/payment.md"}), ("openai", {"path": "kb/payment.md"})):
        llm = capstone.fake("small-local-like", "payment", 4, dialect=dialect)
        reply = llm.client(max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": llm.scenario.question}], tools=tools)
        assert json.loads(reply.choices[0].message.tool_calls[0].function.arguments) == want, dialect
