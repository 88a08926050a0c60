"""A plain reference agent loop, used only by the library's tests (never shipped to students)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from workbook import kb
from workbook.shop import Shop

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


@dataclass
class Run:
    answer: str | None
    status: str
    steps: int
    messages: list = field(default_factory=list)


def tools_for(shop: Shop) -> dict:
    """Reference tool implementations for every tool a core scenario uses."""
    def calculate(expression: str):
        if not re.fullmatch(r"[\d\s.+\-*/()]+", expression):
            raise ValueError("only numbers and + - * / ( ) are allowed")
        return eval(expression, {"__builtins__": {}})  # test-only helper on a whitelisted string

    def refund(order_id: str, amount: int):
        return {"order_id": order_id, "refunded": amount}

    def rag_search(query: str, k: int = 4):  # a Russian query searches the Russian knowledge base
        hits = kb.search(query, k, lang="ru" if CYRILLIC.search(query) else "en")
        return "\n\n".join(f"[{h.source} § {h.section}]\n{h.text}" for h in hits)

    return {**shop.tools(), "calculate": calculate, "refund": refund, "rag_search": rag_search,
            "search_kb": lambda query: {"hits": []},
            "fetch_report": lambda page: {"page": page, "text": "x" * 400}}


def execute(name: str, raw: str, impl: dict) -> str:
    if name not in impl:
        return f"ERROR: unknown tool {name!r}; available tools: {', '.join(sorted(impl))}"
    try:
        args = json.loads(raw)
    except ValueError as e:
        return f"ERROR: arguments are not valid JSON ({e}); send a JSON object"
    if name == "card_block" and args:
        return f"ERROR: card_block takes no arguments, got {sorted(args)}"
    if name == "card_block":
        return "ERROR: needs the customer's confirmation; ask the customer first"
    if "customer_id" in args:
        return "ERROR: unexpected argument 'customer_id': the customer comes from the session"
    try:
        return json.dumps(impl[name](**args), ensure_ascii=False)
    except Exception as e:  # the observation tells the model what went wrong
        return f"ERROR: {type(e).__name__}: {e}"


def run_agent(client, question: str, tools: list, impl: dict, max_steps: int = 8,
              system: str | None = None, history=(), model: str = "fake-model") -> Run:
    messages = ([{"role": "system", "content": system}] if system else []) + list(history)
    messages.append({"role": "user", "content": question})
    nudged = False
    for step in range(1, max_steps + 1):
        kwargs = {"tools": tools} if tools else {}
        reply = client.chat.completions.create(model=model, messages=messages, **kwargs)
        choice = reply.choices[0]
        msg = choice.message
        messages.append(msg.model_dump(exclude_none=True) | (
            {"reasoning_content": msg.model_extra["reasoning_content"]}
            if (msg.model_extra or {}).get("reasoning_content") else {}))
        if not msg.tool_calls:
            if "<tool_call>" in (msg.content or ""):
                if nudged:
                    return Run(None, "STOPPED: text tool call", step, messages)
                nudged = True
                messages.append({"role": "user", "content": "Call the tool through tool_calls."})
                continue
            return Run(msg.content, "done", step, messages)
        for tc in msg.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id,
                             "content": execute(tc.function.name, tc.function.arguments, impl)})
    return Run(None, "STOPPED: step limit", max_steps, messages)
