def call_key(name, arguments):
    """(name, arguments in canonical JSON): equal for the same request however it is written."""
    try:
        canonical = json.dumps(json.loads(arguments))  # Mistake: no sort_keys, so key order counts.
    except (TypeError, ValueError):
        canonical = arguments
    return (name, canonical)
