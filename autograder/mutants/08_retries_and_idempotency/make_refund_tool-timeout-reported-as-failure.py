def make_refund_tool(payments, sleep=time.sleep, attempts=3):
    """The refund tool: at most one refund per order and amount, however often it is retried or re-asked."""

    def refund(order_id: str, amount: int, *, call_id: str) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        for earlier in payments.refunds_for(order_id):
            if earlier["amount"] == amount:
                return {**earlier, "status": "already refunded"}
        request = json.dumps([call_id, order_id, amount])
        key = "refund-" + hashlib.sha256(request.encode()).hexdigest()
        for attempt in range(attempts):
            try:
                return payments.refund(order_id, amount, idempotency_key=key)
            except TimeoutError:
                if attempt < attempts - 1:
                    sleep(0.5 * 2**attempt)
        return {"error": "the refund failed"}  # Mistake: a timeout is not a failure; the money may have moved

    return refund
