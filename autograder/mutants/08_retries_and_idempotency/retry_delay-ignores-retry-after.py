def retry_delay(attempt, error, rand=random.random):
    """Seconds to wait before retry number `attempt`: the server's retry-after, or backoff with jitter."""
    # Mistake: the server said how long to wait; this ignores it.
    return min(0.5 * 2**attempt, 8.0) * (1 - 0.25 * rand())
