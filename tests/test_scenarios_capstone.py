"""The capstone scenarios reach the right answers with working tools, fail the scripted way for the
small-local-like model, and react to broken tools like a model that reads its results."""

import ast
import inspect
import json
import operator
import re

import pytest

from tests.reference_loop import run_agent
from workbook import kb, paths, scenarios
from workbook.fake_llm import prompt_tokens
from workbook.scenarios import capstone

LAMPS = ("Return period for both lamps: 14 days from delivery.\n"
         "Warranty: Svet 12 months, Svet mini 6 months.\n"
         "The archived 2025 rules allowed 30 days; they are no longer in force.\n"
         "Saved the note to out/lamps-returns.md.")
FEES = ["61.25", "24.50", "95.55", "174.50"]
OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def strict(fn):
    """Wrong argument names give an error that names the expected ones, as the chapter's execute does."""
    params = list(inspect.signature(fn).parameters)

    def wrapper(**kwargs):
        if set(kwargs) - set(params):
            raise TypeError(f"bad arguments for {fn.__name__}: expected {', '.join(params)}")
        return fn(**kwargs)

    return wrapper


def tools(out_dir):
    """Plain working tools (test-only); notes go to out_dir."""
    def rag_search(query: str, k: int = 4):
        return "\n\n".join(f"[{h.source} § {h.section}]\n{h.text}" for h in kb.search(query, k))

    def read_file(path: str):
        return (paths.AGENT_FILES / path).read_text(encoding="utf-8")

    def write_note(filename: str, text: str):
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,40}\.md", filename):
            raise ValueError("filename must be lowercase letters, digits and dashes, ending in .md")
        (out_dir / filename).write_text(text, encoding="utf-8")
        return f"saved out/{filename} ({len(text)} chars)"

    def calculate(expression: str):
        def ev(node):
            if isinstance(node, ast.Constant):
                return node.value
            return OPS[type(node.op)](ev(node.left), ev(node.right))
        return ev(ast.parse(expression, mode="eval").body)

    return {f.__name__: strict(f) for f in (rag_search, read_file, write_note, calculate)}


def run(kind, task, n=0, impl=None, tmp_path=None, max_steps=12, system=None, window=16_384, **kw):
    llm = capstone.fake(kind, task, n, context_window=window)
    sc = llm.scenario
    question = kw.pop("question", sc.question)
    system = "Archived pages hold old rules; never present them as current." if system is None else system
    r = run_agent(llm.client(), question, sc.openai_tools(), impl or tools(tmp_path),
                  max_steps=max_steps, system=system or None, **kw)
    return llm, r


def test_catalogue_lists_the_capstone_scenarios():
    for name in ("capstone_lamps", "capstone_payment", "capstone_wander"):
        sc = scenarios.get(name)
        assert sc.name == name and sc.question and sc.tools == capstone.TOOLS
        assert [t["function"]["name"] for t in sc.openai_tools()] == list(capstone.TOOLS)
    assert scenarios.get("capstone_payment", style="small", run=3).name == "capstone_payment"
    with pytest.raises(ValueError, match="style"):
        scenarios.capstone_lamps("medium")
    with pytest.raises(ValueError, match="run"):
        scenarios.capstone_lamps("small", -1)
    with pytest.raises(ValueError, match="kind"):
        capstone.fake("huge", "lamps")


def test_cloud_lamps_writes_the_note_and_marks_old_rules(tmp_path):
    llm, r = run("cloud-like", "lamps", tmp_path=tmp_path)
    assert (r.status, r.answer, r.steps) == ("done", LAMPS, 4)
    note = (tmp_path / "lamps-returns.md").read_text()
    assert "14 days" in note and "12-month" in note and "6-month" in note
    assert "Old rules (archived" in note and "30 days" in note
    assert "kb/returns.md § Return period" in note and "kb/products/svet-mini.md § Warranty" in note
    first = llm.requests[0]["messages"][-1]
    assert first["role"] == "user" and first["content"] == capstone.LAMPS_QUESTION
    calls = r.messages[2]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["rag_search", "rag_search"], "parallel searches"
    thoughts = [m for m in r.messages if m.get("reasoning_content")]
    assert len(thoughts) == 4, "the DeepSeek dialect sends reasoning with every reply"


def test_the_note_name_comes_from_the_question(tmp_path):
    question = capstone.LAMPS_QUESTION.replace("lamps-returns.md", "lamps-test-7f3.md")
    llm, r = run("cloud-like", "lamps", tmp_path=tmp_path, question=question)
    assert r.status == "done" and "out/lamps-test-7f3.md" in r.answer
    assert [p.name for p in tmp_path.iterdir()] == ["lamps-test-7f3.md"]


def test_cloud_payment_computes_every_fee_in_parallel(tmp_path):
    llm, r = run("cloud-like", "payment", tmp_path=tmp_path)
    assert r.status == "done" and r.steps == 3
    for fee in FEES:
        assert f"{fee} KZT" in r.answer
    calls = llm.requests[-1]["messages"][-5]["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["expression"] for c in calls] == [
        "2450 * 2.5 / 100", "2450 * 1 / 100", "2450 * 3.9 / 100", "2450 * 1 / 100 + 150"]


@pytest.mark.parametrize(("n", "status", "correct", "archived", "steps"), [
    (0, "done", True, False, 7),  # text call, nudge, then the plan
    (1, "done", True, False, 7),  # wrong argument name, fixed after the specific error
    (2, "done", False, True, 6),  # archived rules presented as current
    (3, "done", True, False, 7),  # bad file name, fixed
    (4, "STOPPED: text tool call", False, False, 2),
])
def test_small_lamps_runs(tmp_path, n, status, correct, archived, steps):
    llm, r = run("small-local-like", "lamps", n, tmp_path=tmp_path)
    assert (r.status, r.steps) == (status, steps), r
    answer = r.answer or ""
    assert (answer == LAMPS) == correct
    assert ("14 days" in answer and "12 months" in answer and "6 months" in answer) == correct
    assert ("within 30 days of delivery" in answer) == archived
    assert llm.dialect == "ollama"


def test_small_runs_are_deterministic_and_cycle_every_five(tmp_path):
    a = run("small-local-like", "lamps", 2, tmp_path=tmp_path)[1]
    b = run("small-local-like", "lamps", 7, tmp_path=tmp_path)[1]
    assert (a.answer, a.steps) == (b.answer, b.steps)


@pytest.mark.parametrize(("n", "correct", "steps"), [(0, True, 7), (1, True, 7), (2, True, 6),
                                                      (3, False, 5), (4, True, 7)])
def test_small_payment_runs(tmp_path, n, correct, steps):
    llm, r = run("small-local-like", "payment", n, tmp_path=tmp_path)
    assert (r.status, r.steps) == ("done", steps), r
    assert all(f"{fee} KZT" in r.answer for fee in FEES) == correct
    if n == 3:
        assert "Cash on delivery: 24.50 KZT" in r.answer


def test_small_model_without_its_system_prompt_presents_old_rules_as_current(tmp_path):
    llm, r = run("small-local-like", "lamps", 1, tmp_path=tmp_path, system="")
    assert r.status == "done" and "within 30 days of delivery" in r.answer
    llm, r = run("small-local-like", "lamps", 1, tmp_path=tmp_path)
    assert r.status == "done" and "14 days from delivery" in r.answer


def test_a_context_one_token_too_small_drops_the_task_and_keeps_the_system_prompt(tmp_path):
    # Ollama's chatPrompt drops the oldest non-system message (here the task itself), never the
    # system prompt, so the rule about archived pages still holds (docs/SOURCES.md).
    llm, r = run("small-local-like", "lamps", 1, tmp_path=tmp_path)
    window = prompt_tokens(llm.requests[-1]["messages"], llm.requests[-1]["tools"]) - 1
    llm, r = run("small-local-like", "lamps", 1, tmp_path=tmp_path, window=window)
    sent, seen = llm.requests[-1]["messages"], llm.seen[-1]
    assert llm.seen[-2] == llm.requests[-2]["messages"]  # the step before still fitted
    assert [m["role"] for m in sent[:2]] == ["system", "user"]
    assert seen == [sent[0], *sent[2:]]
    assert r.status == "done" and "14 days from delivery" in r.answer
    assert "within 30 days of delivery" not in r.answer


def test_wander_only_stops_at_the_step_limit(tmp_path):
    llm, r = run("cloud-like", "wander", tmp_path=tmp_path, max_steps=2)
    assert (r.status, r.steps, llm.calls) == ("STOPPED: step limit", 2, 2)
    queries = [json.loads(m["tool_calls"][0]["function"]["arguments"])["query"]
               for m in r.messages if m.get("tool_calls")]
    assert queries == ["delivery, topic 1", "delivery, topic 2"]


def test_lamps_step_limit(tmp_path):
    llm, r = run("cloud-like", "lamps", tmp_path=tmp_path, max_steps=2)
    assert (r.status, r.steps) == ("STOPPED: step limit", 2)
    assert not (tmp_path / "lamps-returns.md").exists()


def test_broken_tools_give_honest_failures(tmp_path):
    impl = tools(tmp_path)
    broken = dict(impl, rag_search=lambda query, k=4: "no results")
    llm, r = run("cloud-like", "lamps", impl=broken, tmp_path=tmp_path)
    assert r.status == "done" and r.answer.startswith("I could not find")
    assert llm.calls == 3  # two searches at once, one more for the missing warranty, then gives up

    def refuse(filename, text):
        raise PermissionError("outside out/")
    llm, r = run("cloud-like", "lamps", impl=dict(impl, write_note=refuse), tmp_path=tmp_path)
    assert r.answer.startswith("I could not save the note")

    def calc_error(expression):
        raise ValueError("unsupported expression")
    llm, r = run("cloud-like", "payment", impl=dict(impl, calculate=calc_error), tmp_path=tmp_path)
    assert r.answer.startswith("I could not work out the fee")
    llm, r = run("cloud-like", "payment", impl=dict(impl, read_file=lambda path: "nothing"),
                 tmp_path=tmp_path)
    assert r.answer.startswith("I could not read the payment methods")


def test_vague_argument_errors_make_the_small_model_give_up(tmp_path):
    impl = {name: (lambda **kw: (_ for _ in ()).throw(TypeError("bad call"))) if name == "rag_search"
            else fn for name, fn in tools(tmp_path).items()}
    llm, r = run("small-local-like", "lamps", 1, impl=impl, tmp_path=tmp_path)
    assert r.answer == "Sorry, the rag_search tool did not work for me."


def test_cloud_like_reports_cache_usage_and_small_local_like_does_not(tmp_path):
    class Recorder:
        """Passes requests through and keeps every response's usage."""

        def __init__(self, client):
            self.client, self.usage = client, []
            self.chat = self.completions = self

        def create(self, **kwargs):
            response = self.client.chat.completions.create(**kwargs)
            self.usage.append(response.usage)
            return response

    for kind, hits in (("cloud-like", True), ("small-local-like", False)):
        llm = capstone.fake(kind, "payment", 2)
        client = Recorder(llm.client())
        r = run_agent(client, llm.scenario.question, llm.scenario.openai_tools(), tools(tmp_path))
        assert r.status == "done"
        cached = [getattr(u, "prompt_cache_hit_tokens", None) for u in client.usage]
        if hits:  # the fake's rule (workbook/engine/caching.py): nothing cached below 1024 tokens
            misses = [u.prompt_cache_miss_tokens for u in client.usage]
            assert [h + m for h, m in zip(cached, misses, strict=True)] == [u.prompt_tokens for u in client.usage]
            assert cached == [0 if u.prompt_tokens < 1024 else c
                              for u, c in zip(client.usage, cached, strict=True)], cached
        else:
            assert cached == [None] * len(cached)
