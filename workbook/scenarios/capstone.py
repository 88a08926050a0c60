"""The capstone's scenarios: a knowledge-base agent's tasks, played by two kinds of model.

    scenarios.capstone_lamps()                        # cloud-like, the default
    scenarios.capstone_payment("small", run=3)        # small-local-like, run 3 of an evaluation
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

It also presents archived rules as current whenever its system prompt (which must say that
archived pages hold old rules) has been cut from its context.
"""

from __future__ import annotations

import json
import re

from workbook.scenarios.base import Call, Conversation, Reply, Scenario, final

TOOLS = ("rag_search", "read_file", "write_note", "calculate")
STYLES = ("cloud", "small")
KINDS = {"cloud-like": "cloud", "small-local-like": "small"}

LAMPS_QUESTION = (
    "Find the return period and the warranty for the Svet and Svet mini lamps in the knowledge "
    "base. Compare the return period with the archived rules in kb/returns-2025.md and write a "
    "short note to lamps-returns.md: what applies now, what changed, and the sources you used.")
PAYMENT_QUESTION = ("Read kb/payment.md and work out the payment provider's fee on a 2,450 KZT "
                    "order for each payment method.")
WANDER_QUESTION = "Tell me everything the knowledge base says about delivery, one topic at a time."
ORDER_TOTAL = 2450

NOW_DAYS = re.compile(r"within (\d+) days of delivery")
WARRANTY = {"Svet": re.compile(r"Svet desk lamp comes with a (\d+)-month warranty"),
            "Svet mini": re.compile(r"Svet mini lamp comes with a (\d+)-month warranty")}
SOURCE = re.compile(r"kb/[\w/-]+\.md(?:\s*§\s*[^\]\n]+)?")
FEE_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*[^|]+?\s*\|\s*(\d+(?:\.\d+)?)%(?:\s*\+\s*(\d+)\s*KZT)?\s*\|",
                     re.M)
NOTE_NAME = re.compile(r"(?<![\w/.-])([a-z0-9][a-z0-9-]{0,40}\.md)\b")


class CapstoneScenario(Scenario):
    """A capstone scenario; its `openai_tools()` are bare definitions of the four tools."""

    def openai_tools(self) -> list[dict]:
        props = {"rag_search": {"query": "string", "k": "integer"}, "read_file": {"path": "string"},
                 "write_note": {"filename": "string", "text": "string"},
                 "calculate": {"expression": "string"}}
        return [{"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": {p: {"type": t} for p, t in props[name].items()},
            "required": [p for p in props[name] if p != "k"]}}} for name in TOOLS]


# ---------------------------------------------------------------- reading the conversation


def _question(conv: Conversation) -> str:
    """The task: the first user message (later ones may be the loop's nudges)."""
    return next((t.content or "" for t in conv.turns if t.role == "user"), "")


def _outcomes(conv: Conversation) -> list[tuple[str, dict | None, str]]:
    """(tool name, arguments or None when not a JSON object, result text) for every answered call."""
    calls, out = {}, []
    for t in conv.turns:
        for i, c in enumerate(t.tool_calls):
            calls[c.id or i] = c
        if t.role == "tool" and t.tool_call_id in calls:
            c = calls[t.tool_call_id]
            try:
                args = json.loads(c.arguments)
            except ValueError:
                args = None
            out.append((c.name, args if isinstance(args, dict) else None, _plain(t.content or "")))
    return out


def _plain(text: str) -> str:
    """A result sent as json.dumps(some_string) is read as that string."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def _failed(text: str) -> bool:
    return text.lstrip().lower().startswith(("error", '"error', '{"error'))


def _ok(outcomes, name: str) -> list[tuple[dict | None, str]]:
    return [(a, c) for n, a, c in outcomes if n == name and not _failed(c)]


def _note_name(question: str) -> str:
    names = NOTE_NAME.findall(question)
    return names[-1] if names else "lamps-returns.md"


def _found(texts: list[str], pattern: re.Pattern) -> tuple[int | None, str | None]:
    """The number the pattern captures in the first text holding it, and the source cited before it."""
    for text in texts:
        m = pattern.search(text)
        if m:
            sources = SOURCE.findall(text[: m.start()])
            return int(m.group(1)), (sources[-1].strip() if sources else None)
    return None, None


def _lamp_facts(outcomes) -> dict:
    found = [c for _, c in _ok(outcomes, "rag_search")]
    archived = [c for a, c in _ok(outcomes, "read_file") if "returns-2025" in str((a or {}).get("path"))]
    facts, sources = {}, []
    for key, pattern in (("days", NOW_DAYS), *WARRANTY.items()):
        facts[key], source = _found(found, pattern)
        sources += [source] if source and source not in sources else []
    facts["old_days"], _ = _found(archived, NOW_DAYS)
    facts["sources"] = sources
    return facts


def _forgot_rules(conv: Conversation) -> bool:
    """A small model follows the 'archived means old' rule only while its system prompt is in view."""
    return not (conv.system and "archived" in conv.system.lower())


# ---------------------------------------------------------------- the lamps task


def _lamps_note(f: dict, archived_as_current: bool) -> str:
    if archived_as_current:  # a small model's mistake: the archived period reported as in force
        return (f"# Lamps: returns and warranty\n\n- Return period: {f['old_days']} days.\n"
                f"- Svet: {f['Svet']} months warranty. Svet mini: {f['Svet mini']} months warranty.\n")
    cited = "; ".join(f["sources"]) or "the knowledge base"
    return (f"# Lamps: returns and warranty\n\n## Current rules\n"
            f"- Return period for both lamps: {f['days']} days from delivery.\n"
            f"- Svet: {f['Svet']}-month warranty. Svet mini: {f['Svet mini']}-month warranty.\n"
            f"- Sources: {cited}.\n\n## Old rules (archived, kb/returns-2025.md, no longer in force)\n"
            f"- The archived 2025 rules allowed returns within {f['old_days']} days.\n\n"
            f"## What changed\n- The return period went down from {f['old_days']} days (old) "
            f"to {f['days']} days.\n")


def _lamps_answer(f: dict, note: str, archived_as_current: bool) -> str:
    if archived_as_current:
        return (f"The lamps can be returned within {f['old_days']} days of delivery.\n"
                f"Svet has a {f['Svet']} months warranty, Svet mini {f['Svet mini']} months.\n"
                f"Saved the note to out/{note}.")
    return (f"Return period for both lamps: {f['days']} days from delivery.\n"
            f"Warranty: Svet {f['Svet']} months, Svet mini {f['Svet mini']} months.\n"
            f"The archived 2025 rules allowed {f['old_days']} days; they are no longer in force.\n"
            f"Saved the note to out/{note}.")


def _finish_lamps(conv, outcomes, facts, archived_as_current) -> Reply:
    """Read the archived page, write the note, answer: the same for both kinds of model."""
    note = _note_name(_question(conv))
    if None in (facts["days"], facts["Svet"], facts["Svet mini"]):
        return final("I could not find the return period and both warranties in the knowledge base.")
    if not any("returns-2025" in str((a or {}).get("path")) for n, a, _ in outcomes if n == "read_file"):
        return _call("read_file", {"path": "kb/returns-2025.md"}, "Now the archived rules, to compare.")
    if facts["old_days"] is None:
        return final(f"I could not read the archived rules: {outcomes[-1][2][:200]}")
    writes = [c for n, _, c in outcomes if n == "write_note"]
    if not writes:
        return _call("write_note", {"filename": note, "text": _lamps_note(facts, archived_as_current)},
                     "I have every fact; save the note.")
    if _failed(writes[-1]):
        return final(f"I could not save the note: {writes[-1][:200]}")
    return final(_lamps_answer(facts, note, archived_as_current))


def _call(name: str, args: dict, thought: str) -> Reply:
    return Reply(calls=(Call(name, args),), thought=thought)


def _text_call(name: str, args: dict) -> Reply:
    return final("<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>")


def _mistake(outcomes, bad: Call, good: Call, hint: str, thought: str) -> Reply | None:
    """Send `bad` first; after an error mentioning `hint` send `good`; after a vague one give up.
    None once `good` has been sent: the caller goes on with its plan."""
    if any(n == good.name and a == good.args for n, a, _ in outcomes):
        return None
    tried = [c for n, a, c in outcomes if n == bad.name and a == bad.args]
    if not tried:
        return _call(bad.name, bad.args, thought)
    if hint in tried[-1]:
        return _call(good.name, good.args, thought)
    return final(f"Sorry, the {bad.name} tool did not work for me.")


def capstone_lamps(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)

    def cloud(conv):
        outcomes = _outcomes(conv)
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
        outcomes, r = _outcomes(conv), run % 5
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
            note = _note_name(_question(conv))
            bad = Call("write_note", {"filename": "Lamps Returns.md", "text": "Lamps: see answer."})
            good = Call("write_note", {"filename": note,
                                       "text": _lamps_note(facts, _forgot_rules(conv))})
            reply = _mistake(outcomes, bad, good, "lowercase", "Save the note.")
            if reply is not None:
                return reply
        return _finish_lamps(conv, outcomes, facts, archived_as_current=r == 2 or _forgot_rules(conv))

    return CapstoneScenario(
        "capstone_lamps", "Capstone task 1: lamps' return period and warranties vs the archived rules, "
        "written as a note.", cloud if style == "cloud" else small, TOOLS, None, LAMPS_QUESTION)


# ---------------------------------------------------------------- the payment task


def _fee_rules(outcomes) -> list[tuple[str, str, int]]:
    """(method, percent, fixed KZT) for every row of the payment page's fee table."""
    pages = [c for a, c in _ok(outcomes, "read_file") if "payment" in str((a or {}).get("path"))]
    return [(m, pct, int(fixed or 0)) for m, pct, fixed in FEE_ROW.findall(pages[-1])] if pages else []


def _expression(pct: str, fixed: int) -> str:
    return f"{ORDER_TOTAL} * {pct} / 100" + (f" + {fixed}" if fixed else "")


def _number(text: str) -> float | None:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    return float(m.group()) if m and not _failed(text) else None


def _payment_answer(rules, outcomes) -> Reply:
    results = {(a or {}).get("expression"): _number(c) for n, a, c in outcomes if n == "calculate"}
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
        outcomes = _outcomes(conv)
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
        outcomes, r = _outcomes(conv), run % 5
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

    return CapstoneScenario(
        "capstone_payment", "Capstone task 2: the payment provider's fee on a 2,450 KZT order for each "
        "method, via calculate.", cloud if style == "cloud" else small, TOOLS, None, PAYMENT_QUESTION)


# ---------------------------------------------------------------- the step limit


def capstone_wander(style: str = "cloud", run: int = 0) -> Scenario:
    _check(style, run)

    def policy(conv):
        return _call("rag_search", {"query": f"delivery, topic {conv.steps + 1}", "k": 2},
                     "Not enough yet; one more search.")

    return CapstoneScenario(
        "capstone_wander", "Capstone task 3: keeps searching the knowledge base and never answers; "
        "only the step limit stops it.", policy, TOOLS, None, WANDER_QUESTION)


# ---------------------------------------------------------------- making fakes for an evaluation

TASKS = {"lamps": capstone_lamps, "payment": capstone_payment, "wander": capstone_wander}


def _check(style: str, run: int) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}")
    if isinstance(run, bool) or not isinstance(run, int) or run < 0:
        raise ValueError(f"run must be a whole number >= 0, got {run!r}")


def fake(kind: str, task: str, run: int = 0, context_window: int = 16_384):
    """A fresh FakeLLM playing `task` ("lamps", "payment", "wander") as a "cloud-like" model
    (DeepSeek dialect) or a "small-local-like" one (Ollama dialect, a 16k context by default)."""
    from workbook.fake_llm import FakeLLM

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
    style = KINDS[kind]
    return FakeLLM(TASKS[task](style, run), dialect="deepseek" if style == "cloud" else "ollama",
                   context_window=context_window)
