"""Northwind, the small online shop the course's support agent works for: its data and its tools.

The tools are plain typed functions bound to one logged-in customer (the session). The model
never names the customer: identity comes from `Shop(customer_id=...)`, i.e. from the login.
"""

from __future__ import annotations

import copy
import re

from workbook import schemas

TRANSACTIONS = {  # customer -> (category, month, amount in KZT)
    "C-001": [("taxi", "2026-09", 3200), ("taxi", "2026-09", 1800),
              ("food", "2026-09", 5400), ("taxi", "2026-08", 2500)],
    "C-002": [("taxi", "2026-09", 9900)],
}
ORDERS = {
    "A-1001": {"customer": "C-001", "item": "Svet desk lamp", "total": 2450, "status": "shipped"},
    "A-1002": {"customer": "C-001", "item": "Green tea, 200 g", "total": 1290, "status": "processing"},
    "B-2001": {"customer": "C-002", "item": "Svet mini lamp", "total": 1990, "status": "delivered"},
}
WEATHER = {"almaty": {"temp_c": 21, "sky": "sunny"}, "astana": {"temp_c": 12, "sky": "windy"}}
MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


class Shop:
    """The shop as seen by one logged-in customer. Each instance has its own fresh state."""

    def __init__(self, customer_id: str = "C-001"):
        self.customer_id = customer_id
        self.orders = copy.deepcopy(ORDERS)
        self.card_blocked = False
        self.log: list[tuple[str, dict]] = []  # every tool run, so tests can see what happened

    def txn_sum(self, category: str, month: str) -> dict:
        """Total spending of the logged-in customer for one category and month (YYYY-MM)."""
        self.log.append(("txn_sum", {"category": category, "month": month}))
        if not MONTH.fullmatch(month):
            raise ValueError(f"'month' must look like YYYY-MM, e.g. 2026-09; got {month!r}")
        rows = [a for c, m, a in TRANSACTIONS.get(self.customer_id, [])
                if c == category and m == month]
        return {"category": category, "month": month, "count": len(rows), "total_kzt": sum(rows)}

    def get_order(self, order_id: str) -> dict:
        """Status, item and total of one of the logged-in customer's orders."""
        self.log.append(("get_order", {"order_id": order_id}))
        order = self.orders.get(order_id)
        if order is None or order["customer"] != self.customer_id:
            raise KeyError(f"no order {order_id!r} for this customer")  # never leak others' orders
        return {"order_id": order_id, **{k: v for k, v in order.items() if k != "customer"}}

    def card_block(self) -> dict:
        """Block the logged-in customer's card. Changes state: needs the customer's confirmation."""
        self.log.append(("card_block", {}))
        self.card_blocked = True
        return {"status": "blocked"}

    def get_weather(self, city: str) -> dict:
        """Current temperature (Celsius) and sky for a city."""
        self.log.append(("get_weather", {"city": city}))
        w = WEATHER.get(city.strip().lower())
        if w is None:
            raise KeyError(f"no weather for {city!r}; known cities: Almaty, Astana")
        return {"city": city, **w}

    def tools(self) -> dict:
        """Name -> bound function, the `impl` a loop dispatches to."""
        return {n: getattr(self, n) for n in ("txn_sum", "get_order", "card_block", "get_weather")}


# The shop's tools in the one registry (workbook.schemas), kept here by their old name.
SCHEMAS = {n: schemas.SCHEMAS[n] for n in ("txn_sum", "get_order", "card_block", "get_weather",
                                           "calculate", "refund", "search_kb", "fetch_report")}
openai_tools = schemas.openai_tools
