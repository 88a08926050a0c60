def is_retryable(error):
    """True when a failed model call is worth trying again."""
    # Mistake: every HTTP error is retried, a 400 too.
    return isinstance(error, (openai.APIConnectionError, openai.APIStatusError))
