"""The demo cells of chapters 00-02 play Russian scenarios in the Russian edition
(docs/TRANSLATING.md, "Content in the language"; workbook/scenarios/russian*.py).

The code cells of the Russian edition are the English edition's, byte for byte (tests/
test_i18n_release.py). So a demo cell asks for its scenario with `scenarios.get(name,
lang="notebook")`: the twin in the language of the notebook the kernel runs (`_ru` in the Russian
edition), the English one in the English edition. Tests never ask for it: no score depends on the
edition.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from tests.reference_loop import run_agent, tools_for
from workbook import scenarios
from workbook.fake_llm import FakeLLM
from workbook.paths import ROOT
from workbook.shop import Shop

CHAPTERS = ("00_start_here", "01_one_step", "02_the_loop")
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def _cells(chapter: str, lang: str = "ru") -> list[dict]:
    folder = ROOT / "chapters" / (lang if lang != "en" else "") / chapter
    return json.loads((folder / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]


def _demos(chapter: str) -> list[str]:
    """The code of the Russian edition's demo cells: no nbgrader role (not given, answer or test)."""
    return ["".join(c["source"]) for c in _cells(chapter) if c["cell_type"] == "code"
            and "nbgrader" not in c.get("metadata", {}) and "live_enabled()" not in "".join(c["source"])]


def _lookups(source: str) -> tuple[list[str], set[str]]:
    """A cell's scenario look-ups that ignore the notebook's language, and the scenarios it names."""
    tree = ast.parse(source)
    plain = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "scenarios"):
            continue
        if node.func.attr in scenarios.CATALOGUE:
            plain.append(ast.unparse(node))
        elif node.func.attr == "get" and not any(
                k.arg == "lang" and isinstance(k.value, ast.Constant) and k.value.value == "notebook"
                for k in node.keywords):
            plain.append(ast.unparse(node))
    named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in scenarios.CATALOGUE}
    return plain, named


def _named_in_demos() -> set[str]:
    return {name for chapter in CHAPTERS for source in _demos(chapter) for name in _lookups(source)[1]}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_demo_cell_asks_for_its_scenario_in_the_notebooks_language(chapter):
    demos = _demos(chapter)
    assert any("scenarios" in d for d in demos), f"{chapter}: no demo cell plays a scenario"
    plain = [call for source in demos for call in _lookups(source)[0]]
    assert not plain, f"{chapter}: demo cells ask for English scenarios whatever the edition: {plain}"


def test_every_scenario_a_demo_plays_has_a_russian_twin(monkeypatch):
    named = _named_in_demos()
    assert {"taxi_spending", "asks_other_customer", "never_finishes"} <= named, named
    monkeypatch.setenv("AGENT_LOOP_LANG", "ru")  # the Russian edition's kernel (or `make lab LANG=ru`)
    for name in sorted(named):
        twin = scenarios.get(name, lang="notebook")
        assert twin.name == f"{name}_ru", f"{name} has no Russian twin for the Russian edition's demo"
        assert CYRILLIC.search(twin.question) and CYRILLIC.search(twin.description), twin
    monkeypatch.setenv("AGENT_LOOP_LANG", "en")
    assert all(scenarios.get(name, lang="notebook").name == name for name in named), "English stays English"
    assert scenarios.get("weather_and_math", lang="notebook").name == "weather_and_math", "no twin: English"


def test_the_notebooks_own_language_picks_the_twin(monkeypatch, tmp_path):
    """In a kernel the notebook's metadata decides (the server names the notebook)."""
    for meta, wanted in (({"workbook": {"language": "ru"}}, "taxi_spending_ru"), ({}, "taxi_spending")):
        nb = tmp_path / "x.ipynb"
        nb.write_text(json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5}))
        monkeypatch.delenv("AGENT_LOOP_LANG", raising=False)
        monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
        assert scenarios.get("taxi_spending", lang="notebook").name == wanted


@pytest.mark.parametrize("name", sorted(_named_in_demos()))
def test_a_twin_plays_as_its_english_scenario_and_answers_in_russian(name):
    """The same tools, calls, steps and status through a loop; only what the model says differs."""
    def play(sc):
        shop = Shop()
        llm = FakeLLM(sc)
        run = run_agent(llm.client(), sc.question, sc.openai_tools(), tools_for(shop), max_steps=6)
        called = [c["function"]["name"] for m in run.messages if m.get("role") == "assistant"
                  for c in m.get("tool_calls") or []]
        return run, called, shop.card_blocked

    english, twin = scenarios.get(name), scenarios.get(name, lang="ru")
    (e_run, e_called, e_blocked), (r_run, r_called, r_blocked) = play(english), play(twin)
    assert (r_run.status, r_run.steps, r_called, r_blocked) == (e_run.status, e_run.steps, e_called, e_blocked)
    assert set(twin.tools) == set(english.tools) and (twin.answer is None) == (english.answer is None)
    if twin.answer is not None:
        assert r_run.answer == twin.answer and CYRILLIC.search(twin.answer), r_run
