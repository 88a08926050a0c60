def call_key(name, arguments):
    """(name, arguments in canonical JSON): equal for the same request however it is written."""
    return (name, arguments)  # Mistake: spacing and key order make "new" requests.
