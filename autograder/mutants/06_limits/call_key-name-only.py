def call_key(name, arguments):
    """(name, arguments in canonical JSON): equal for the same request however it is written."""
    return (name, "")  # Mistake: keyed on the tool name only; a model searching anew looks stuck.
