"""The tool schemas, one registry: every tool a scenario or a chapter offers the model.

    from workbook import schemas
    schemas.openai_tools(["txn_sum", "get_order"])   # OpenAI tool definitions (fresh copies)
    schemas.bare(["read_file"])                      # the same without descriptions (capstone)

A scenario carries its tools' schemas (`Scenario.tool_schemas`, filled from here by name), so
`scenario.openai_tools()` needs nothing else. The shop's descriptions are its methods' docstrings
(`workbook.shop.Shop`; a test keeps them equal).
"""

from __future__ import annotations

import copy


def schema(name: str, description: str, props: dict, required: list[str] | None = None) -> dict:
    """An OpenAI tool definition; every property is required unless `required` says otherwise."""
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": props,
                       "required": list(props) if required is None else required,
                       "additionalProperties": False}}}


_STR = {"type": "string"}
SCHEMAS = {s["function"]["name"]: s for s in (
    # the shop (workbook.shop.Shop): descriptions are the methods' docstrings
    schema("txn_sum", "Total spending of the logged-in customer for one category and month (YYYY-MM).",
           {"category": {"type": "string", "description": "e.g. taxi, food"},
            "month": {"type": "string", "description": "YYYY-MM, e.g. 2026-09"}}),
    schema("get_order", "Status, item and total of one of the logged-in customer's orders.",
           {"order_id": {"type": "string", "description": "e.g. A-1001"}}),
    schema("card_block", "Block the logged-in customer's card. Changes state: needs the "
           "customer's confirmation.", {}),
    schema("get_weather", "Current temperature (Celsius) and sky for a city.", {"city": _STR}),
    # tools the chapters write themselves
    schema("calculate", "Evaluate an arithmetic expression: numbers, + - * / ** and brackets.",
           {"expression": {"type": "string", "description": "e.g. (21 * 9) / 5 + 32"}}),
    schema("refund", "Refund money for an order to the customer's card. Changes state.",
           {"order_id": _STR, "amount": {"type": "integer", "description": "in KZT"}}),
    schema("search_kb", "Search the shop's help pages.", {"query": _STR}),
    schema("fetch_report", "Fetch one page of the monthly spending report.", {"page": {"type": "integer"}}),
    # the agent's file tools (chapter 07, the capstone)
    schema("read_file", "Read a UTF-8 text file (.md, .txt or .json) from the agent's folder. The "
           "path is relative to that folder, e.g. 'notes/agent-loop.md'. Returns at most 20000 "
           "characters.", {"path": {"type": "string", "description": "e.g. notes/agent-loop.md"}}),
    schema("write_note", "Save a Markdown note in the agent's out/ folder. The file name looks like "
           "'lamps-returns.md' (lowercase letters, digits, dashes). At most 5000 characters.",
           {"filename": {"type": "string", "description": "e.g. lamps-returns.md"}, "text": _STR}),
    # the knowledge base (workbook.kb, the capstone)
    schema("rag_search", "Search the shop's knowledge base: the k best sections (at most 8).",
           {"query": _STR, "k": {"type": "integer"}}, ["query"]),
)}


def openai_tools(names) -> list[dict]:
    """OpenAI tool definitions for the given names (names the registry does not know are skipped)."""
    return [copy.deepcopy(SCHEMAS[n]) for n in names if n in SCHEMAS]


def bare(names) -> list[dict]:
    """The definitions as a student first writes them: names, parameter types, required; no
    descriptions and no additionalProperties (the capstone's scenarios send these)."""
    out = []
    for s in openai_tools(names):
        params = s["function"]["parameters"]
        out.append({"type": "function", "function": {"name": s["function"]["name"], "parameters": {
            "type": "object", "properties": {p: {"type": v["type"]} for p, v in params["properties"].items()},
            "required": params["required"]}}})
    return out
