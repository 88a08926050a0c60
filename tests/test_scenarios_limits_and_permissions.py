"""The scenarios of chapters 06-07 behave as their chapters (and descriptions) say."""

import json

from tests.reference_loop import run_agent
from workbook import scenarios, schemas
from workbook.fake_llm import FakeLLM
from workbook.scenarios import limits, permissions
from workbook.shop import Shop

NEW = ("cut_off", "content_filtered", "goes_in_circles", "reads_outside_folder", "huge_power")


def first_reply(scenario, messages=None):
    llm = FakeLLM(scenario)
    messages = messages or [{"role": "user", "content": scenario.question}]
    response = llm.client().chat.completions.create(model="m", messages=messages,
                                                    tools=scenario.openai_tools())
    return response.choices[0]


def test_registered_and_described():
    for name in NEW:
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.description
        assert sc.answer is None  # no single answer: the chapters assert on statuses instead
        assert [t["function"]["name"] for t in sc.openai_tools()] == list(sc.tools)


def test_cut_off_answer_has_finish_reason_length():
    sc = scenarios.cut_off()
    shop = Shop()
    run = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), shop.tools())
    assert shop.log == [("txn_sum", {"category": "taxi", "month": "2026-09"})]
    # The reference loop treats any text as an answer; the chapter's loop must not.
    assert run.answer == limits.CUT_TEXT and run.steps == 2
    llm = FakeLLM(sc)
    client = llm.client()
    messages = run.messages[:-1]
    last = client.chat.completions.create(model="m", messages=messages, tools=sc.openai_tools())
    assert last.choices[0].finish_reason == "length"


def test_cut_off_in_call_sends_unfinished_arguments():
    choice = first_reply(scenarios.get("cut_off", in_call=True))
    assert choice.finish_reason == "length"
    (tc,) = choice.message.tool_calls
    assert tc.function.name == "txn_sum"
    try:
        json.loads(tc.function.arguments)
    except ValueError:
        pass
    else:
        raise AssertionError("the arguments of a cut call must not be valid JSON")


def test_content_filtered_has_no_text():
    choice = first_reply(scenarios.content_filtered())
    assert choice.finish_reason == "content_filter"
    assert choice.message.content is None and choice.message.tool_calls is None


def test_goes_in_circles_alternates_two_calls():
    sc = scenarios.goes_in_circles()
    run = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), Shop().tools(), max_steps=6)
    assert run.status == "STOPPED: step limit"
    asked = [json.loads(m["tool_calls"][0]["function"]["arguments"])["order_id"]
             for m in run.messages if m.get("tool_calls")]
    assert asked == ["A-1001", "A-1002"] * 3


def _file_tools(read):
    written = {}

    def write_note(filename, text):
        written[filename] = text
        return f"saved out/{filename}"

    return {"read_file": read, "write_note": write_note}, written


def test_reads_outside_folder_recovers_after_a_refusal():
    sc = scenarios.reads_outside_folder()
    asked = []

    def read_file(path):
        asked.append(path)
        if path.startswith(".."):
            raise PermissionError("outside the agent's folder")
        return "# Least privilege\n\n- Identity comes from the session.\n"

    impl, written = _file_tools(read_file)
    run = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), impl)
    assert (run.answer, run.status, run.steps) == (permissions.NOTES_ANSWER, "done", 4)
    assert asked == ["../.env", permissions.NOTE]
    assert list(written) == [permissions.SUMMARY]
    assert "Identity comes from the session." in written[permissions.SUMMARY]


def test_reads_outside_folder_repeats_a_leaked_secret():
    sc = scenarios.reads_outside_folder()
    impl, written = _file_tools(lambda path: "API_KEY=sk-not-a-real-key")
    run = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), impl)
    assert run.answer == permissions.LEAKED + "API_KEY=sk-not-a-real-key" and run.steps == 2
    assert written == {}


def test_huge_power_accepts_a_refusal():
    sc = scenarios.huge_power()

    def calculate(expression):
        assert expression == "9**9**9"
        raise ValueError("exponent too large")

    run = run_agent(FakeLLM(sc).client(), sc.question, sc.openai_tools(), {"calculate": calculate})
    assert (run.answer, run.status, run.steps) == (permissions.POWER_ANSWER, "done", 2)


def test_no_tool_definition_lets_the_model_choose_a_folder():
    """Chapters 07 and 11: code decides the folder (make_file_tools(base)); no schema takes one."""
    for name, schema in schemas.SCHEMAS.items():
        props = schema["function"]["parameters"]["properties"]
        assert not {"base", "folder", "root", "directory"} & set(props), f"{name} lets the model pick a folder"
    for scenario in (permissions.reads_outside_folder(), scenarios.capstone_payment()):
        for tool in scenario.openai_tools():
            assert "base" not in tool["function"]["parameters"]["properties"], tool["function"]["name"]
