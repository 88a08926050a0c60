def is_retryable(error):
    """True when a failed model call is worth trying again."""
    if isinstance(error, openai.APIConnectionError):
        return True
    if isinstance(error, openai.APIStatusError):
        # Mistake: forgets 408 and 409, and the provider's x-should-retry.
        return error.status_code == 429 or error.status_code >= 500
    return False
