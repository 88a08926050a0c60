def retry_delay(attempt, error, rand=random.random):
    """Seconds to wait before retry number `attempt`: the server's retry-after, or backoff with jitter."""
    response = getattr(error, "response", None)
    if response is not None:
        # Mistake: no range check and no care for values that are not numbers.
        if "retry-after-ms" in response.headers:
            return float(response.headers["retry-after-ms"]) / 1000
        if "retry-after" in response.headers:
            return float(response.headers["retry-after"])
    return min(0.5 * 2**attempt, 8.0) * (1 - 0.25 * rand())
