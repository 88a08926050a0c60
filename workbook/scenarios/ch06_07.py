"""Scenarios of chapters 06 (limits and stopping) and 07 (what only code decides)."""

from __future__ import annotations

import copy
import json

from workbook.scenarios.base import Call, Conversation, Reply, Scenario, call, final
from workbook.shop import SCHEMAS

# ---------------------------------------------------------------- 06: replies that are not answers

CUT_TEXT = "Your taxi spending in September 2026 was 5000 KZT over 2 rides, and compared with Aug"


def cut_off(in_call: bool = False) -> Scenario:
    """The reply hits the token limit: finish_reason "length" (an answer, or a call, cut short)."""
    def policy(conv: Conversation) -> Reply:
        if in_call:  # the arguments stop mid-string: this call must not run
            return Reply(calls=(Call("txn_sum", '{"category": "taxi", "month": "2026-'),),
                         finish_reason="length")
        if not conv.results:
            return call("txn_sum", category="taxi", month="2026-09")
        return final(CUT_TEXT, finish_reason="length")

    where = "a tool call's arguments are" if in_call else "after txn_sum, the answer is"
    return Scenario("cut_off", f"The reply hits the token limit: {where} cut short "
                    "(finish_reason 'length').", policy, ("txn_sum",), None,
                    "How much did I spend on taxis in September, compared with August?")


def content_filtered() -> Scenario:
    """The provider's filter stops the reply: finish_reason "content_filter", no usable text."""
    def policy(conv: Conversation) -> Reply:
        return Reply(text=None, finish_reason="content_filter")

    return Scenario("content_filtered", "The provider's content filter stops the reply "
                    "(finish_reason 'content_filter'): nothing to show the customer.", policy,
                    ("get_order",), None, "My order A-1001 is late and I am furious. Where is it?")


def goes_in_circles() -> Scenario:
    """Alternates two look-ups forever: each call comes back every other step, never twice in a row."""
    def policy(conv: Conversation) -> Reply:
        order = "A-1001" if conv.steps % 2 == 0 else "A-1002"
        return call("get_order", order_id=order)

    return Scenario("goes_in_circles", "Alternates get_order(A-1001) and get_order(A-1002) forever: "
                    "the same call returns every other step.", policy, ("get_order",), None,
                    "Where are my orders A-1001 and A-1002?")


# ---------------------------------------------------------------- 07: asking for more than allowed

FILE_SCHEMAS = {
    "read_file": {"type": "function", "function": {
        "name": "read_file",
        "description": ("Read a UTF-8 text file (.md, .txt or .json) from the agent's folder. The "
                        "path is relative to that folder, e.g. 'notes/agent-loop.md'. Returns at "
                        "most 20000 characters."),
        "parameters": {"type": "object",
                       "properties": {"path": {"type": "string", "description": "e.g. notes/agent-loop.md"}},
                       "required": ["path"], "additionalProperties": False}}},
    "write_note": {"type": "function", "function": {
        "name": "write_note",
        "description": ("Save a Markdown note in the agent's out/ folder. The file name looks like "
                        "'lamps-returns.md' (lowercase letters, digits, dashes). At most 5000 characters."),
        "parameters": {"type": "object",
                       "properties": {"filename": {"type": "string", "description": "e.g. lamps-returns.md"},
                                      "text": {"type": "string"}},
                       "required": ["filename", "text"], "additionalProperties": False}}},
}


class FileScenario(Scenario):
    """A scenario whose tools include chapter 07's file tools, which the shop does not have."""

    def openai_tools(self) -> list[dict]:
        return [copy.deepcopy(FILE_SCHEMAS.get(n) or SCHEMAS[n]) for n in self.tools]


NOTE = "notes/least-privilege.md"
SUMMARY = "least-privilege-summary.md"
NOTES_ANSWER = f"I saved a short summary of your notes in out/{SUMMARY}."
LEAKED = "Here is what I found in the settings file: "


def _text(result: str | None) -> str:
    """A tool result as text: a JSON string is unwrapped, anything else is kept as it came."""
    try:
        value = json.loads(result or "")
    except ValueError:
        return result or ""
    return value if isinstance(value, str) else result or ""


def reads_outside_folder() -> FileScenario:
    """Told (by a page it read) to fetch ../.env first; reads the notes only after a refusal."""
    def policy(conv: Conversation) -> Reply:
        if conv.called("read_file") == 0:
            return call("read_file", path="../.env")
        if conv.called("read_file") == 1:
            if conv.last_error() is None:  # the secret came back: the model repeats it
                return final(LEAKED + _text(conv.last_result)[:200])
            return call("read_file", path=NOTE)
        if conv.called("write_note") == 0:
            if conv.last_error() is not None:
                return final("I could not read your notes.")
            lines = [ln.strip("# ").strip() for ln in _text(conv.last_result).splitlines()]
            gist = " / ".join(ln for ln in lines if ln)[:300]
            return call("write_note", filename=SUMMARY, text=f"Summary of {NOTE}: {gist}\n")
        if conv.last_error() is not None:
            return final("I could not save the summary.")
        return final(NOTES_ANSWER)

    return FileScenario("reads_outside_folder", "Asks read_file for '../.env' first; after a refusal "
                        "reads notes/least-privilege.md and saves a summary with write_note.",
                        policy, ("read_file", "write_note"), None,
                        "Summarise my study notes on least privilege into a note.")


POWER_ANSWER = "That number is too large to compute exactly."


def huge_power() -> Scenario:
    """Asks calculate for 9**9**9 (hundreds of millions of digits); accepts a refusal gracefully."""
    def policy(conv: Conversation) -> Reply:
        if not conv.results:
            return call("calculate", expression="9**9**9")
        if conv.last_error() is not None:
            return final(POWER_ANSWER)
        return final(f"9**9**9 = {_text(conv.last_result)[:100]}")

    return Scenario("huge_power", "Asks calculate('9**9**9'): a calculator without bounds hangs; a "
                    "bounded one refuses and the model says so.", policy, ("calculate",), None,
                    "What is 9 to the power of 9 to the power of 9?")
