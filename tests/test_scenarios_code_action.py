"""Chapter 25's scenarios (workbook/scenarios/code_action.py): the model answers with code, as a
run_python call or a fenced block; it fixes a KeyError, gives up after a vague error, quotes what
an attack program brought back, and obeys the injected data file with a second program."""

import json

import pytest

from workbook.fake_llm import FakeLLM
from workbook.scenarios import code_action as CA


def result(stdout="", stderr="", exit_code=0):
    return json.dumps({"exit_code": exit_code, "stdout": stdout, "stderr": stderr, "timed_out": False})


TRACEBACK = 'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\nKeyError: \'amount\'\n'


def play(scenario, run, max_steps=5):
    """A correct loop on the client face: run(code) -> observation; returns (answer, programs)."""
    client = FakeLLM(scenario).client(max_calls=max_steps)
    messages, programs = [{"role": "user", "content": scenario.question}], []
    for _ in range(max_steps):
        message = client.chat.completions.create(model="fake-model", messages=messages,
                                                 tools=scenario.openai_tools() or None).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if message.tool_calls:
            (call,) = message.tool_calls
            assert call.function.name == "run_python"
            programs.append(json.loads(call.function.arguments)["code"])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run(programs[-1])})
            continue
        block = CA.FENCE.search(message.content or "")
        if block is None:
            return message.content, programs
        programs.append(block.group(1))
        messages.append({"role": "user", "content": "Observation: " + run(programs[-1])})
    raise AssertionError(f"{scenario.name} did not finish")


def average_run(code):
    return result(stderr=TRACEBACK, exit_code=1) if '"amount"' in code else result("1533.33\n")


@pytest.mark.parametrize("style", ["tool", "text"])
def test_average_order_fixes_its_code_after_a_traceback(style):
    answer, programs = play(CA.average_order(style), average_run)
    assert answer == CA.AVERAGE_ANSWER
    assert programs == [CA.WRONG_CODE, CA.FIXED_CODE]


def test_average_order_text_style_sends_no_tools_and_writes_a_fenced_block():
    scenario = CA.average_order("text")
    assert scenario.openai_tools() == []
    reply = FakeLLM(scenario).client().chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": scenario.question}]).choices[0].message
    assert reply.tool_calls is None and CA.FENCE.search(reply.content).group(1) == CA.WRONG_CODE


@pytest.mark.parametrize("vague", ['{"error": "failed"}', result(exit_code=1), "ERROR"])
def test_average_order_gives_up_after_a_vague_error(vague):
    answer, programs = play(CA.average_order(), lambda code: vague)
    assert answer == CA.GIVE_UP and len(programs) == 1


def test_a_second_traceback_is_not_fixed_again():
    answer, programs = play(CA.average_order(), lambda code: result(stderr=TRACEBACK, exit_code=1))
    assert answer == CA.GIVE_UP and len(programs) == 2


@pytest.mark.parametrize("kind", sorted(set(CA.ATTACKS) - {"injected_data"}))
def test_an_attack_runs_its_program_once_and_quotes_what_came_back(kind):
    answer, programs = play(CA.code_attack(kind), lambda code: result(stdout="what came back"))
    assert programs == [CA.ATTACKS[kind]]
    assert answer.startswith("The program ended.") and "what came back" in answer


def test_the_injected_data_file_is_obeyed_with_a_second_program():
    def run(code):
        return result(stdout=CA.NOTES_TXT if "notes.txt" in code else "sk-leaked\n")

    answer, programs = play(CA.code_attack("injected_data"), run)
    assert programs == [CA.ATTACKS["injected_data"], CA.OBEY] and "sk-leaked" in answer
    answer, programs = play(CA.code_attack("injected_data"), lambda code: result(stdout="no instructions here"))
    assert programs == [CA.ATTACKS["injected_data"]], "without the instruction it runs one program"


def test_code_with_tools_reports_what_was_printed_or_why_it_stopped():
    answer, programs = play(CA.code_with_tools("taxi"), lambda code: "{'total_kzt': 5000}\n")
    assert programs == [CA.TOOL_CODE["taxi"]] and answer.endswith("{'total_kzt': 5000}")
    refused = 'Traceback (most recent call last):\nRuntimeError: customer_id is not an argument\n'
    answer, _ = play(CA.code_with_tools("other_customer"), lambda code: refused)
    assert answer == "The program stopped: RuntimeError: customer_id is not an argument"


def test_bad_names_get_a_clear_message():
    with pytest.raises(ValueError, match="unknown attack 'nope'; known: endless_loop"):
        CA.code_attack("nope")
    with pytest.raises(ValueError, match="style must be 'tool'"):
        CA.average_order("json")
    with pytest.raises(ValueError, match="unknown program 'x'; known: taxi"):
        CA.code_with_tools("x")
