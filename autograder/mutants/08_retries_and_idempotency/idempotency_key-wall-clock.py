import time


def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    return f"refund:{call_id}:{order_id}:{amount}:{int(time.time())}"  # Mistake: the clock moves on
