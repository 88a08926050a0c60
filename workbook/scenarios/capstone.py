"""The capstone's scenarios: a knowledge-base agent's tasks, played by two kinds of model.

    scenarios.capstone_lamps()                        # cloud-like, the default
    scenarios.capstone_payment("small", run=3)        # small-local-like, run 3 of an evaluation
    capstone.fake("cloud-like", "unknown")             # Parts 6-9's tasks: capstone_extra
    capstone.fake("small-local-like", "lamps", run=2)  # a FakeLLM with the matching dialect

Tools: rag_search(query, k), read_file(path), write_note(filename, text), calculate(expression).
Like a real model, a scenario reads the facts out of the tool results it gets back: a broken
tool gives a wrong or an "I could not find" answer.

The cloud-like model (DeepSeek dialect: reasoning, cache hits) calls tools in parallel and keeps
archived rules apart. The small-local-like model (Ollama dialect) makes one call per step, and
each run index scripts one typical small-model failure (run % 5):

    run  lamps                                  payment
    0    tool call written as text, recovers    wrong argument name ('expr'), recovers
    1    wrong argument name ('question')       tool call written as text, recovers
    2    archived rules presented as current    no failure
    3    bad note file name, recovers           forgets the fixed part of a fee (wrong answer)
    4    text call again after the nudge        wrong argument name ('filename'), recovers

It also presents archived rules as current whenever no system prompt in its context says that
archived pages hold old rules. (An Ollama context overflow never cuts the system prompt: it drops
the oldest other messages; see docs/SOURCES.md.)
"""

from __future__ import annotations

from workbook import schemas
from workbook.engine.client_face import FakeLLM
from workbook.engine.replies import Call, Reply, final
from workbook.engine.turns import number
from workbook.scenarios import capstone_extra as extra
from workbook.scenarios.base import Scenario
from workbook.scenarios.capstone_base import (  # the shared pieces
    FEE_ROW,
    KINDS,
    LAMPS_QUESTION,
    ORDER_TOTAL,
    PAYMENT_QUESTION,
    STYLES,
    TOOLS,
    WANDER_QUESTION,
    _call,
    _finish_lamps,
    _forgot_rules,
    _lamp_facts,
    _lamps_note,
    _mistake,
    _note_name,
    _ok,
    _text_call,
)
from workbook.scenarios.capstone_extra import CUT_QUESTION, UNKNOWN_QUESTION, checklist  # noqa: F401 (capstone.X)


def capstone_lamps(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)

    def cloud(conv):
        outcomes = conv.outcomes()
        facts = _lamp_facts(outcomes)
        searches = [n for n, *_ in outcomes if n == "rag_search"]
        if not searches:
            return Reply(calls=(Call("rag_search", {"query": "lamp return period days", "k": 3}),
                                Call("rag_search", {"query": "Svet lamp warranty months", "k": 4})),
                         thought="Two independent searches: the return period and the warranties.")
        missing = [k for k in ("Svet", "Svet mini") if facts[k] is None]
        if missing and len(searches) < 3:  # one targeted retry, then give up
            return _call("rag_search", {"query": f"{missing[0]} lamp warranty", "k": 4},
                         f"The {missing[0]} warranty is still missing.")
        return _finish_lamps(conv, outcomes, facts, archived_as_current=False)

    def small(conv):
        outcomes, r = conv.outcomes(), run % 5
        if r in (0, 4) and not outcomes and (r == 4 or conv.user_turns_after_assistant() == 0):
            return _text_call("rag_search", {"query": "lamp return period"})
        plan = [("lamp return period", 3), ("Svet desk lamp warranty", 4), ("Svet mini lamp warranty", 4)]
        done = [a for a, _ in _ok(outcomes, "rag_search")]
        for query, k in plan:
            good = Call("rag_search", {"query": query, "k": k})
            if good.args in done:
                continue
            if r == 1 and query == plan[0][0]:
                reply = _mistake(outcomes, Call("rag_search", {"question": query}), good, "query",
                                 "Search the knowledge base.")
                if reply is not None:
                    return reply
                continue
            return _call("rag_search", good.args, "Search the knowledge base.")
        facts = _lamp_facts(outcomes)
        if r == 3 and facts["old_days"] is not None:
            note = _note_name(conv.question)
            bad = Call("write_note", {"filename": "Lamps Returns.md", "text": "Lamps: see answer."})
            good = Call("write_note", {"filename": note,
                                       "text": _lamps_note(facts, _forgot_rules(conv))})
            reply = _mistake(outcomes, bad, good, "lowercase", "Save the note.")
            if reply is not None:
                return reply
        return _finish_lamps(conv, outcomes, facts, archived_as_current=r == 2 or _forgot_rules(conv))

    return _scenario("capstone_lamps", cloud if style == "cloud" else small, LAMPS_QUESTION,
                     "Capstone task 1: lamps' return period and warranties vs the archived rules, "
                     "written as a note.")


# ---------------------------------------------------------------- the payment task


def _fee_rules(outcomes) -> list[tuple[str, str, int]]:
    """(method, percent, fixed KZT) for every row of the payment page's fee table."""
    pages = [c for a, c in _ok(outcomes, "read_file") if "payment" in str((a or {}).get("path"))]
    return [(m, pct, int(fixed or 0)) for m, pct, fixed in FEE_ROW.findall(pages[-1])] if pages else []


def _expression(pct: str, fixed: int) -> str:
    return f"{ORDER_TOTAL} * {pct} / 100" + (f" + {fixed}" if fixed else "")


def _payment_answer(rules, outcomes) -> Reply:
    results = {(a or {}).get("expression"): number(c) for n, a, c in outcomes if n == "calculate"}
    lines = []
    for method, pct, fixed in rules:
        fee = results.get(_expression(pct, fixed))
        if fee is None:
            return final(f"I could not work out the fee for {method}.")
        rule = f"{pct}%" + (f" + {fixed} KZT" if fixed else "")
        lines.append(f"- {method}: {fee:.2f} KZT ({rule})")
    return final("Provider fees on a 2,450 KZT order (kb/payment.md § Methods and provider fees):\n"
                 + "\n".join(lines) + "\nThe shop pays these fees; the customer pays 2,450 KZT.")


def capstone_payment(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)
    page = {"path": "kb/payment.md"}

    def cloud(conv):
        outcomes = conv.outcomes()
        if not any(n == "read_file" for n, *_ in outcomes):
            return _call("read_file", page, "The fees are on the payment page.")
        rules = _fee_rules(outcomes)
        if not rules:
            return final("I could not read the payment methods from kb/payment.md.")
        if not any(n == "calculate" for n, *_ in outcomes):
            return Reply(calls=tuple(Call("calculate", {"expression": _expression(p, f)})
                                     for _, p, f in rules),
                         thought="One calculation per method, all at once.")
        return _payment_answer(rules, outcomes)

    def small(conv):
        outcomes, r = conv.outcomes(), run % 5
        if r == 1 and not outcomes and conv.user_turns_after_assistant() == 0:
            return _text_call("read_file", page)
        if not _ok(outcomes, "read_file"):
            if any(n == "read_file" and a == page for n, a, _ in outcomes):
                return final("I could not read kb/payment.md.")
            if r == 4:
                return _mistake(outcomes, Call("read_file", {"filename": page["path"]}),
                                Call("read_file", page), "path", "Read the page.")
            return _call("read_file", page, "Read the page.")
        rules = _fee_rules(outcomes)
        if r == 3:  # forgets the fixed part of the cash-on-delivery fee
            rules = [(m, p, 0) for m, p, _ in rules]
        done = [(a or {}).get("expression") for a, _ in _ok(outcomes, "calculate")]
        for _, pct, fixed in rules:
            expression = _expression(pct, fixed)
            if expression in done:
                continue
            if r == 0 and not done:
                reply = _mistake(outcomes, Call("calculate", {"expr": expression}),
                                 Call("calculate", {"expression": expression}), "expression",
                                 "Calculate the fee.")
                if reply is not None:
                    return reply
                continue
            return _call("calculate", {"expression": expression}, "Calculate the next fee.")
        if not rules:
            return final("I could not read the payment methods.")
        return _payment_answer(rules, outcomes)

    return _scenario("capstone_payment", cloud if style == "cloud" else small, PAYMENT_QUESTION,
                     "Capstone task 2: the payment provider's fee on a 2,450 KZT order for each "
                     "method, via calculate.")


# ---------------------------------------------------------------- the step limit


def capstone_wander(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)

    def policy(conv):
        return _call("rag_search", {"query": f"delivery, topic {conv.steps + 1}", "k": 2},
                     "Not enough yet; one more search.")

    return _scenario("capstone_wander", policy, WANDER_QUESTION, "Capstone task 3: keeps searching "
                     "the knowledge base and never answers; only the step limit stops it.")


def capstone_unknown(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)
    return _scenario("capstone_unknown", extra.unknown_policy, extra.UNKNOWN_QUESTION,
                     "Capstone, Part 9: a product the knowledge base lacks; the model says so only "
                     "when its system prompt tells it to, and invents a warranty otherwise.")


def capstone_cut(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)
    return _scenario("capstone_cut", extra.cut_policy, extra.CUT_QUESTION,
                     "Capstone, Part 6: the first reply is a write_note call cut at the token limit "
                     "(finish_reason length); run anyway, the model then claims the note is saved.")


# ---------------------------------------------------------------- making fakes for an evaluation

TASKS = {"lamps": capstone_lamps, "payment": capstone_payment, "wander": capstone_wander,
         "unknown": capstone_unknown, "cut": capstone_cut}


def _scenario(name: str, policy, question: str, description: str) -> Scenario:
    """A capstone scenario: its tools are sent bare, as the student's own definitions are."""
    return Scenario(name=name, description=description, policy=policy, tools=TOOLS,
                    question=question, tool_schemas=tuple(schemas.bare(TOOLS)))


def _check(style: str, run: int) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}")
    if isinstance(run, bool) or not isinstance(run, int) or run < 0:
        raise ValueError(f"run must be a whole number >= 0, got {run!r}")


def fake(kind: str, task: str, run: int = 0, context_window: int | None = None, dialect: str | None = None):
    """A fresh FakeLLM playing `task` (one of TASKS) as a "cloud-like" model (DeepSeek dialect, its
    own window by default) or a "small-local-like" one (Ollama dialect, a 16k context by default).
    `dialect` serves the same model through another provider's rules (chapter 11's strict-mode
    experiment: the small model behind a provider that enforces strict schemas)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
    style = KINDS[kind]
    if context_window is None and style != "cloud":
        context_window = 16_384
    return FakeLLM(TASKS[task](style, run), dialect=dialect or ("deepseek" if style == "cloud" else "ollama"),
                   context_window=context_window)
