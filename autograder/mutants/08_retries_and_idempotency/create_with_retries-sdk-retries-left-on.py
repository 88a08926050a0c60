def create_with_retries(client, *, attempts=4, sleep=time.sleep, retryable=is_retryable,
                        delay=retry_delay, **request):
    """client.chat.completions.create(**request), retried on transient failures; one retry layer."""
    for attempt in range(attempts):
        try:
            # Mistake: the SDK's own max_retries=2 runs inside this loop: two layers of retries.
            return client.chat.completions.create(**request)
        except Exception as error:
            if attempt == attempts - 1 or not retryable(error):
                raise
            sleep(delay(attempt, error))
