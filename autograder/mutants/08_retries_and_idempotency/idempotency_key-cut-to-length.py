def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    # Mistake: cutting to the length limit loses the end of long inputs, where they may differ.
    return json.dumps([call_id, order_id, amount])[:255]
