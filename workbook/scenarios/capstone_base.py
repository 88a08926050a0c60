"""What the capstone's scenarios share: the task texts, the facts they look for, reading helpers."""

from __future__ import annotations

import json
import re

from workbook.engine.replies import Call, Reply, final
from workbook.engine.turns import Conversation, error_of

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


# ---------------------------------------------------------------- reading the conversation


def _failed(text: str) -> bool:
    return error_of(text) is not None


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
    facts: dict = {}
    sources: list[str] = []
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
    note = _note_name(conv.question)
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


def _call(name: str, args: dict | str, thought: str) -> Reply:
    return Reply(calls=(Call(name, args),), thought=thought)


def _text_call(name: str, args: dict) -> Reply:
    return final("<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>")


def _mistake(outcomes, bad: Call, good: Call, hint: str, thought: str) -> Reply | None:
    """Send `bad` first; after an error mentioning `hint` send `good`; after a vague one give up.
    None once `good` has been sent: the caller goes on with its plan. A provider that enforces a
    strict schema may have sent `bad` fitted to it (engine/strict.py): that counts as `good` when it
    agrees with `good` wherever it is not null."""
    if any(n == good.name and _agrees(a, good.args) for n, a, _ in outcomes):
        return None
    tried = [c for n, a, c in outcomes if n == bad.name and a == bad.args]
    if not tried:
        return _call(bad.name, bad.args, thought)
    if hint in tried[-1]:
        return _call(good.name, good.args, thought)
    return final(f"Sorry, the {bad.name} tool did not work for me.")


def _agrees(sent, meant) -> bool:
    """`sent` is `meant`, but for arguments a strict provider filled with null."""
    if not isinstance(sent, dict) or not isinstance(meant, dict):
        return False
    return (all(sent.get(k) in (v, None) for k, v in meant.items())
            and all(k in meant for k, v in sent.items() if v is not None))
