def create_with_retries(client, *, attempts=4, sleep=time.sleep, retryable=is_retryable,
                        delay=retry_delay, **request):
    """client.chat.completions.create(**request), retried on transient failures; one retry layer."""
    client = client.with_options(max_retries=0)
    for attempt in range(attempts):
        try:
            return client.chat.completions.create(**request)
        except Exception as error:
            # Mistake: never asks retryable(error), so a 400 is sent again and again.
            if attempt == attempts - 1:
                raise
            sleep(delay(attempt, error))
