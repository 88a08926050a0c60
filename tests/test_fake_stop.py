"""Stop sequences on every face: the text is cut before the first stop string, finish "stop"."""

import openai
import pytest

from workbook import scenarios as S
from workbook.engine.replies import Call, Reply
from workbook.fake_llm import FakeLLM

REACT = ("Thought: I need the order.\nAction: get_order\nAction Input: {\"order_id\": \"A-1\"}\n"
         "Observation: shipped (invented)\nFinal Answer: it shipped")
CUT = REACT[:REACT.index("Observation:")]
ASK = [{"role": "user", "content": "Where is A-1?"}]


def create(client, **kw):
    return client.chat.completions.create(model="fake-model", messages=ASK, **kw)


def test_function_face_cuts_the_text_before_the_stop_string():
    model = S.scripted(REACT).as_function()
    assert model(ASK, None, stop=["Observation:"]) == {"final": CUT}
    assert model(ASK, None) == {"final": REACT}  # no stop: the whole text, invented part too


@pytest.mark.parametrize("stop", ["Observation:", ["Observation:"], ["Final", "Observation:"]])
def test_client_face_cuts_at_the_first_stop_string_and_finishes_with_stop(stop):
    reply = create(FakeLLM(S.scripted(REACT)).client(), stop=stop)
    assert reply.choices[0].message.content == CUT
    assert reply.choices[0].finish_reason == "stop"


def test_a_stop_string_that_does_not_occur_changes_nothing():
    llm = FakeLLM(S.scripted(S.final("Done. Observation: none", finish_reason="length")))
    reply = create(llm.client(), stop=["\nObservation:"])
    assert reply.choices[0].message.content == "Done. Observation: none"
    assert reply.choices[0].finish_reason == "length"


def test_generation_ends_at_the_stop_string_so_no_tool_call_follows():
    sc = S.scripted(Reply(calls=(Call("get_order", {"order_id": "A-1"}),), text=REACT),
                    tools=("get_order",))
    reply = create(FakeLLM(sc).client(), stop="Observation:", tools=sc.openai_tools())
    assert reply.choices[0].message.tool_calls is None
    assert (reply.choices[0].message.content, reply.choices[0].finish_reason) == (CUT, "stop")
    reply = create(FakeLLM(sc).client(), tools=sc.openai_tools())  # without stop: the call
    assert reply.choices[0].finish_reason == "tool_calls"


def test_http_face_honours_stop():
    llm = FakeLLM(S.scripted(REACT))
    with llm.serve() as base_url:
        client = openai.OpenAI(api_key="k", base_url=base_url, max_retries=0)
        reply = create(client, stop=["Observation:"])
    assert (reply.choices[0].message.content, reply.choices[0].finish_reason) == (CUT, "stop")
    assert llm.requests[0]["stop"] == ["Observation:"]


@pytest.mark.parametrize(("stop", "message", "code"), [
    (list("abcde"), "Invalid 'stop': array too long. Expected an array with maximum length 4, but got "
                    "an array with length 5 instead.", "array_above_max_length"),
    ([], "Invalid 'stop': empty array. Expected an array with minimum length 1, but got an empty "
         "array instead.", "empty_array"),
    (3, "Invalid type for 'stop': expected one of a string or array of strings, but got an integer "
        "instead.", "invalid_type"),
    (["ok", 7], "Invalid type for 'stop[1]': expected a string, but got an integer instead.",
     "invalid_type"),
])
def test_a_bad_stop_is_a_400_with_openais_wording(stop, message, code):
    client = FakeLLM(S.scripted(REACT)).client(max_retries=0)
    with pytest.raises(openai.BadRequestError) as info:
        create(client, stop=stop)
    assert info.value.body["message"] == message and info.value.body["code"] == code
    with pytest.raises(ValueError, match="Invalid"):  # the function face says the same
        S.scripted(REACT).as_function()(ASK, None, stop=stop)


def test_four_stop_strings_are_accepted():
    reply = create(FakeLLM(S.scripted(REACT)).client(), stop=["<1>", "<2>", "<3>", "Observation:"])
    assert reply.choices[0].message.content == CUT
