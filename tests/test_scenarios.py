"""Every scenario in the catalogue runs to its correct answer with the reference loop."""

import subprocess
import sys

import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.shop import Shop

DIALECT = {"deepseek_thinking": "deepseek", "long_chat_small_context": "ollama"}


@pytest.mark.parametrize("name", [n for n, f in scenarios.CATALOGUE.items()
                                  if f().answer and f().supports_tools])  # text models: test_scenarios_react
def test_scenario_reaches_its_answer(name):
    sc = scenarios.get(name)
    shop = Shop()
    llm = FakeLLM(sc, dialect=DIALECT.get(name, "openai"))
    result = run_agent(llm.client(), sc.question, sc.openai_tools(), tools_for(shop),
                       system=sc.system, max_steps=45)
    assert result.status == "done", result
    assert result.answer == sc.answer
    assert not shop.card_blocked  # no scenario gets a state change past the reference loop


def test_every_scenario_is_described_and_listed():
    out = subprocess.run([sys.executable, "-m", "workbook.fake_llm", "list"], capture_output=True,
                         text=True, check=True).stdout
    for name, description in scenarios.catalogue():
        assert name in out and description and len(description) < 140
        sc = scenarios.get(name)
        assert sc.name == name and sc.question
        assert set(sc.tools) <= {t["function"]["name"] for t in sc.openai_tools()} | {"calculate"}


def test_serve_command_prints_its_url_and_rejects_unknown_scenarios():
    bad = subprocess.run([sys.executable, "-m", "workbook.fake_llm", "serve", "--scenario", "nope"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown scenario 'nope'" in bad.stderr
    proc = subprocess.Popen([sys.executable, "-m", "workbook.fake_llm", "serve", "--scenario",
                             "taxi_spending"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "serving at http://127.0.0.1:" in line
        import openai

        base_url = line.split("serving at ")[1].strip()
        reply = openai.OpenAI(api_key="k", base_url=base_url).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "taxi?"}])
        assert reply.choices[0].message.tool_calls[0].function.name == "txn_sum"
    finally:
        proc.terminate()
        proc.wait(5)
