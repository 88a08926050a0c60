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
    return 0.5 * (1 - 0.25 * rand())  # Mistake: the same wait every time, no doubling
