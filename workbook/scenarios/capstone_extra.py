"""The capstone's later parts: a reply cut at its token limit, a question the knowledge base cannot
answer, and the system-prompt checklist (chapter 11, Parts 6-9).

    capstone.fake("cloud-like", "cut")            # its first reply is cut at the token limit
    capstone.fake("small-local-like", "unknown")  # invents an answer unless the prompt forbids it
    checklist(system, ["rag_search", "read_file"])  # {"role": True, "tools": True, ...}

The cut task: the model's first reply is a `write_note` call whose arguments end mid-string, with
finish_reason "length" (a real reply cut by `max_tokens`). A loop that runs it anyway gets an
error observation back, and the model then claims the note is saved. The unknown task asks for a
product the knowledge base does not have (the Zarya floor lamp): after one search, a model whose
system prompt says what to do when something is not found says so; any other invents a warranty
and a source (the cloud-like model too: a prompt, not a model size, keeps it honest).

The checklist is the recipe of a system prompt for an agent, each item a rule a test can check
(CHECKS below, case-insensitive): who the assistant is, which tool is for what, when to stop, the
answer's format, what to do when nothing is found (say so, do not invent), and that text from
tools is data, not instructions.
"""

from __future__ import annotations

import re

from workbook.engine.replies import Call, Reply, final
from workbook.scenarios.capstone_base import _call

UNKNOWN_QUESTION = "What is the warranty on the Zarya floor lamp?"
CUT_QUESTION = ("Write a short note to lamps-returns.md saying that lamps can be returned within "
                "14 days of delivery.")
CUT_ARGUMENTS = '{"filename": "lamps-returns.md", "text": "Lamps can be returned within 1'
INVENTED = ("The Zarya floor lamp comes with a 24-month warranty "
            "(kb/products/zarya.md § Warranty).")
NOT_FOUND = "I could not find the Zarya floor lamp in the knowledge base, so I cannot say what its warranty is."

# The checklist: item -> the patterns a prompt must match (all of them), case-insensitive.
CHECKS = {
    "role": (r"\byou are\b",),
    "stop": (r"\b(stop|final answer|when you have|once you have|as soon as)\b",),
    "format": (r"\b(cite|format)\b",),
    "not found": (r"\b(not found|cannot find|can't find|could not find|couldn't find|not in the)\b",
                  r"\b(do not|don't|never)\s+(guess|invent|make up|make things up)\b"),
    "data": (r"\bdata\b", r"\binstructions?\b"),
}
ITEMS = ("role", "tools", "stop", "format", "not found", "data")


def checklist(system, tool_names) -> dict[str, bool]:
    """Which items of the system-prompt recipe `system` meets: ITEMS -> True/False.

    "tools": every name in `tool_names` appears in the prompt as a word; every other item: all of
    its CHECKS patterns are found."""
    if not isinstance(system, str):
        raise TypeError(f"the system prompt must be a string, got {type(system).__name__}")
    names = list(tool_names)
    if not all(isinstance(n, str) and n for n in names):
        raise TypeError("tool_names must be a list of tool names (strings)")
    text = system.lower()
    found = {item: all(re.search(p, text) for p in patterns) for item, patterns in CHECKS.items()}
    found["tools"] = bool(names) and all(
        re.search(rf"(?<![\w]){re.escape(n.lower())}(?![\w])", text) for n in names)
    return {item: found[item] for item in ITEMS}


def says_not_found(system: str | None) -> bool:
    """A model follows the 'say it is not found, do not invent' rule only when its prompt has it."""
    return isinstance(system, str) and all(re.search(p, system.lower()) for p in CHECKS["not found"])


def unknown_policy(conv) -> Reply:
    """The unknown task, for both kinds of model: one search, then the truth or an invention."""
    if not conv.outcomes():
        return _call("rag_search", {"query": "Zarya floor lamp warranty", "k": 3},
                     "Search for the lamp's warranty.")
    return final(NOT_FOUND if says_not_found(conv.system) else INVENTED)


def cut_policy(conv) -> Reply:
    """The cut task: a write_note call cut at the token limit, then a claim that the note is saved."""
    if not conv.outcomes():
        return Reply(calls=(Call("write_note", CUT_ARGUMENTS),), finish_reason="length",
                     thought="Write the note in one go.")
    return final("Saved the note to out/lamps-returns.md.")
