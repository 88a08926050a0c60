"""A small fake payments service: refunds, deduplicated by idempotency key, with scripted timeouts.

    from workbook.payments import Payments, PaymentTimeout
    pay = Payments(script=["timeout"])    # the 1st request is carried out, then times out for you
    pay.refund("A-1001", 2450, idempotency_key="k1")   # raises PaymentTimeout, but the money moved
    pay.refund("A-1001", 2450, idempotency_key="k1")   # same key: the stored result, no new refund
    pay.refunds                            # every refund actually made (count them for doubles)
    pay.requests                           # every request received, with what became of it

Like a real payment provider (Stripe, Adyen...), the service remembers each idempotency key with
the result of its first request: a retry with the same key gets that result back instead of a
second refund. A key reused with different parameters is refused. Nothing here sleeps.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterable

OUTCOMES = ("ok", "timeout", "lost")
MAX_KEY_LENGTH = 255  # Stripe's limit for an Idempotency-Key


# No answer in time: the refund may or may not have been made, and the caller cannot tell. It is
# the builtin TimeoutError itself, so `except TimeoutError` catches it whichever copy of the
# workbook raised it (test cells load their own private copy with workbook.checks.fresh()).
PaymentTimeout = TimeoutError


class IdempotencyError(ValueError):
    """An idempotency key was reused for a request with different parameters."""


class Payments:
    """The payment provider as one shop's server sees it. Each instance has its own fresh state.

    `script` decides, request by request, what the caller experiences; once it runs out every
    request is "ok":
      "ok"       the request is carried out and the result comes back;
      "timeout"  the request is carried out on the server, then the caller gets PaymentTimeout
                 (the ambiguous case: the money moved, the caller does not know it);
      "lost"     the request never reaches the server, and the caller gets PaymentTimeout.
    """

    def __init__(self, script: Iterable[str] = ()):
        script = list(script)
        if unknown := [s for s in script if s not in OUTCOMES]:
            raise ValueError(f"unknown outcome(s) {unknown} in the script; use {', '.join(OUTCOMES)}")
        self._script = deque(script)
        self.refunds: list[dict] = []  # every refund actually made, in order
        self.requests: list[dict] = []  # every refund request received, and what became of it
        self._by_key: dict[str, tuple[tuple, dict]] = {}  # key -> (parameters, first result)

    def refund(self, order_id: str, amount: int, idempotency_key: str) -> dict:
        """Refund `amount` KZT for `order_id`, at most once per idempotency key."""
        _check(order_id, amount, idempotency_key)
        request = {"order_id": order_id, "amount": amount, "idempotency_key": idempotency_key}
        self.requests.append(request)
        outcome = self._script.popleft() if self._script else "ok"
        if outcome == "lost":
            request["outcome"] = "lost"
            raise PaymentTimeout("the payment service did not answer in time (the request may "
                                 "or may not have been carried out)")
        params = (order_id, amount)
        if idempotency_key in self._by_key:
            first_params, result = self._by_key[idempotency_key]
            if first_params != params:
                request["outcome"] = "rejected"
                raise IdempotencyError(
                    f"idempotency key {idempotency_key!r} was already used for a refund of "
                    f"{first_params[1]} KZT on order {first_params[0]}; a key can only be reused "
                    "with the same parameters")
            request["outcome"] = "replayed"  # like Stripe's `Idempotent-Replayed: true`
        else:
            result = {"refund_id": f"rf_{len(self.refunds) + 1:04d}", "order_id": order_id,
                      "amount": amount, "status": "refunded"}
            self.refunds.append({**result, "idempotency_key": idempotency_key})
            self._by_key[idempotency_key] = (params, result)
            request["outcome"] = "refunded"
        if outcome == "timeout":
            raise PaymentTimeout("the payment service did not answer in time (the request may "
                                 "or may not have been carried out)")
        return copy.deepcopy(result)

    def refunds_for(self, order_id: str) -> list[dict]:
        """The refunds already made for one order (a look-up providers offer for reconciling)."""
        return [{k: v for k, v in r.items() if k != "idempotency_key"}
                for r in self.refunds if r["order_id"] == order_id]

    def refunded(self, order_id: str) -> int:
        """How much has been refunded for one order, in KZT."""
        return sum(r["amount"] for r in self.refunds if r["order_id"] == order_id)

    def __repr__(self) -> str:
        return (f"<Payments: {len(self.refunds)} refund(s) made, {len(self.requests)} request(s), "
                f"{len(self._script)} scripted outcome(s) left>")


def _check(order_id, amount, key) -> None:
    """Refuse a malformed request before anything happens, as a provider's API does."""
    if not isinstance(order_id, str) or not order_id:
        raise ValueError(f"order_id must be a non-empty string, got {order_id!r}")
    if type(amount) is not int or amount <= 0:
        raise ValueError(f"amount must be a whole number of KZT above 0, got {amount!r}")
    if not isinstance(key, str) or not key:
        raise ValueError(f"idempotency_key must be a non-empty string, got {key!r}")
    if len(key) > MAX_KEY_LENGTH:
        raise ValueError(f"idempotency_key is {len(key)} characters; at most {MAX_KEY_LENGTH} allowed")
