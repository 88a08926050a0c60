def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    # Mistake: hash() of a str is randomised per Python process; a restarted run sends another key.
    return f"refund-{hash((call_id, order_id, amount)) & 0xFFFFFFFFFFFFFFFF:x}"
