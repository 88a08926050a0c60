def make_refund_tool(payments, sleep=time.sleep, attempts=3):
    """The refund tool: at most one refund per order and amount, however often it is retried or re-asked."""

    def refund(order_id: str, amount: int, *, call_id: str) -> dict:
        """Refund money for an order to the customer's card. Changes state."""
        for earlier in payments.refunds_for(order_id):
            if earlier["amount"] == amount:
                return {**earlier, "status": "already refunded"}
        for attempt in range(attempts):
            key = f"refund:{call_id}:{time.time_ns()}"  # Mistake: the clock makes a new key per attempt
            try:
                return payments.refund(order_id, amount, idempotency_key=key)
            except TimeoutError:
                if attempt < attempts - 1:
                    sleep(0.5 * 2**attempt)
        return {"error": f"the payment service did not answer after {attempts} attempts: the refund may "
                         "or may not have been made. Do not promise it; tell the customer we are checking."}

    return refund
