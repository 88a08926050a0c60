import uuid


def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    return f"refund-{uuid.uuid4()}"  # Mistake: a new key every time, so a retry is a new refund
