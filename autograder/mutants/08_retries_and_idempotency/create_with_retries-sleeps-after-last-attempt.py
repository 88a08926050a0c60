def create_with_retries(client, *, attempts=4, sleep=time.sleep, retryable=is_retryable,
                        delay=retry_delay, **request):
    """client.chat.completions.create(**request), retried on transient failures; one retry layer."""
    client = client.with_options(max_retries=0)
    last = None
    for attempt in range(attempts):
        try:
            return client.chat.completions.create(**request)
        except Exception as error:
            if not retryable(error):
                raise
            last = error
            sleep(delay(attempt, error))  # Mistake: also waits after the last attempt, for nothing
    raise last
