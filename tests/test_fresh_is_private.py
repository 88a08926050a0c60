"""A student's cell can replace anything in the real workbook; `fresh()` must not care.

The test does what such a cell can: it replaces every public callable of every real workbook
module (and the methods of their classes) with a trap, then uses the fresh copy the way hidden
tests do, and requires that no trap was reached. `workbook.checks` itself is left alone: it is
where a test starts (`from workbook.checks import fresh`), and when graded it is the judge's own
module, outside the kernel, which no student cell reaches (autograder/judge/).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types

import anthropic
import openai
import pytest

from tests.reference_loop import run_agent, tools_for
from tests.test_layering import modules
from workbook import checks

KEPT = {"workbook.checks", "workbook.fresh"}  # a test's entry point, and where its copy is made: the judge's own when graded
MISSING = object()


class Traps:
    """Replaces callables with traps that record who called them; `restore()` puts all back."""

    def __init__(self):
        self.hits: list[str] = []
        self.saved: list[tuple[object, str, object]] = []
        self.seen: set[int] = set()

    def trap(self, where: str):
        def trapped(*args, **kwargs):
            self.hits.append(where)
            raise AssertionError(f"the fresh copy reached the real {where}")
        return trapped

    def replace(self, owner, name: str, where: str) -> None:
        self.saved.append((owner, name, owner.__dict__.get(name, MISSING)))
        setattr(owner, name, self.trap(where))

    def module(self, name: str, module: types.ModuleType) -> None:
        for attr, value in list(vars(module).items()):
            if attr.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
                continue
            if inspect.isclass(value) and value.__module__.startswith("workbook") and value.__module__ not in KEPT:
                self.cls(value)
            self.replace(module, attr, f"{name}.{attr}")

    def cls(self, cls: type) -> None:
        if id(cls) in self.seen:
            return
        self.seen.add(id(cls))
        for attr, value in list(vars(cls).items()):
            public = not attr.startswith("_") or attr in ("__init__", "__call__", "__post_init__")
            if public and inspect.isfunction(value):
                self.replace(cls, attr, f"{cls.__module__}.{cls.__qualname__}.{attr}")

    def restore(self) -> None:
        for owner, name, value in reversed(self.saved):
            if value is MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


USER = [{"role": "user", "content": "go"}]


def _use_like_hidden_tests(wb) -> None:
    """What hidden tests do with a fresh copy: every scenario through every face, and more."""
    S = wb.scenarios
    for name in S.CATALOGUE:
        sc = S.get(name)
        model = sc.as_function(max_calls=2)
        assert type(model) is wb.engine.function_face.FunctionModel
        try:
            model([{"role": "user", "content": sc.question or "go"}], sc.openai_tools())
        except wb.fake_llm.ModelError:
            pass  # a fault, or parallel calls: the function face says so
        llm = wb.fake_llm.FakeLLM(name)  # by name
        assert llm.scenario.name == name
        client = llm.client(max_retries=0, max_calls=1, timeout=0.5)
        try:
            client.chat.completions.create(model="fake-model", tools=sc.openai_tools() or None,
                                           messages=[{"role": "user", "content": sc.question or "go"}])
        except (openai.APIError, openai.APITimeoutError):
            pass  # the scenario scripts a fault
    taxi = S.taxi_spending()
    shop = wb.shop.Shop("C-001")
    run = run_agent(wb.fake_llm.FakeLLM(taxi).client(max_calls=4), taxi.question,
                    taxi.openai_tools(), tools_for(shop))
    assert run.answer == taxi.answer, run
    with wb.fake_llm.FakeLLM(taxi).serve() as base_url:
        http = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        assert http.chat.completions.create(model="m", messages=USER).choices[0].message.tool_calls
        claude = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="k", max_retries=0)
        assert claude.messages.create(model="m", max_tokens=9, messages=USER).stop_reason == "tool_use"
    claude = wb.fake_llm.FakeLLM(taxi).anthropic_client(max_calls=1)
    reply = claude.messages.create(model="m", max_tokens=9, messages=USER,
                                   tools=wb.fake_llm.anthropic_tools(taxi.openai_tools()))
    assert reply.content[-1].name == "txn_sum"
    claude, _ = wb.providers.make_client("two_orders", env={}, dotenv={}, api="messages")
    assert claude.messages.create(model="m", max_tokens=9, messages=USER).stop_reason == "tool_use"
    asks = S.scripted(S.calls(S.Call("get_order", {"order_id": "A-1001"})), "done")
    assert asks.as_function()(USER, []) == {"tool": "get_order", "args": {"order_id": "A-1001"}}
    for kind in ("cloud-like", "small-local-like"):
        for task in ("lamps", "payment", "wander"):
            llm = S.capstone.fake(kind, task, 1)
            llm.client(max_calls=1).chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": llm.scenario.question}],
                tools=llm.scenario.openai_tools())
    client, _ = wb.providers.make_client("two_orders", env={}, dotenv={})
    assert client.chat.completions.create(model="m", messages=USER).choices[0].message.tool_calls
    traj = wb.trace.from_messages(run.messages, taxi.openai_tools())
    for t in (traj, wb.trace.sample(), wb.trace.read_jsonl(wb.trace.SAMPLES / "two_orders.jsonl"),
              wb.trace.as_trajectory(run.messages)):
        assert type(t) is wb.trace.Trajectory
        str(t), t._repr_html_(), wb.trace.table(t).text(), wb.trace.token_growth(t)
        wb.trace.plain(t), wb.trace.to_html(t)
    wb.trace.plot_tokens(traj)
    assert wb.kb.search("lamp return period", k=2)
    wb.payments.Payments().refund("A-1001", 2450, idempotency_key="k1")
    wb.quiz.check(wb.quiz.load("01_one_step")[0], 0)
    with wb.checks.no_raise("nothing"):
        wb.schemas.openai_tools(["txn_sum"])


@pytest.fixture
def traps():
    for name in modules():  # every workbook module is loaded, so every one gets its traps
        importlib.import_module(name)
    t = Traps()
    try:
        for name, module in sorted(sys.modules.items()):
            if (name == "workbook" or name.startswith("workbook.")) and name not in KEPT \
                    and isinstance(module, types.ModuleType):
                t.module(name, module)
        yield t
    finally:
        t.restore()


def test_the_fresh_copy_reaches_nothing_a_student_replaced(traps):
    fresh = checks.fresh
    assert len(traps.saved) > 200, "the traps must cover the workbook"
    _use_like_hidden_tests(fresh())
    assert traps.hits == []


def test_the_traps_work_and_are_removed(traps):
    import workbook.scenarios

    with pytest.raises(AssertionError, match="real workbook.scenarios.get"):
        workbook.scenarios.get("two_orders")
    traps.restore()
    traps.saved.clear()
    assert workbook.scenarios.get("two_orders").name == "two_orders"


def test_copies_made_ahead_are_each_handed_out_once(monkeypatch):
    """The judge's zygote makes copies ahead of time (`zygote.prepare`); `fresh()` hands out each
    once, then loads new ones: every test still gets a private copy."""
    from autograder.judge import zygote
    from workbook import checks, fresh

    monkeypatch.setattr(fresh, "_ready", [])
    zygote.prepare(2)
    a, b, c = checks.fresh(), checks.fresh(), checks.fresh()
    assert len({id(a), id(b), id(c)}) == 3 and not fresh._ready
    assert "workbook.fake_llm" in vars(a)["_modules"], "made ahead with the fake loaded"
    assert a.fake_llm is not b.fake_llm and a.fake_llm is not c.fake_llm, "each copy has modules of its own"
