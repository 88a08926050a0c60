import hashlib


def idempotency_key(call_id, order_id, amount):
    """The idempotency key of one refund request, derived from the request alone."""
    # Mistake: the parts run together: ("call_1", "A-10", 12) and ("call_1", "A-101", 2) collide.
    return "refund-" + hashlib.sha256(f"{call_id}{order_id}{amount}".encode()).hexdigest()
