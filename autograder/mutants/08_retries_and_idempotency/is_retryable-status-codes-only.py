def is_retryable(error):
    """True when a failed model call is worth trying again."""
    # Mistake: only looks at status codes; connection errors and timeouts have none.
    status = getattr(error, "status_code", None)
    if status is None:
        return False
    should = error.response.headers.get("x-should-retry")
    if should in ("true", "false"):
        return should == "true"
    return status in (408, 409, 429) or status >= 500
