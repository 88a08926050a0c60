def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return "[card]" if 13 <= len(str(abs(value))) <= 19 else value
    if isinstance(value, dict):  # changes the caller's message: the model now reads masked history
        for key, item in value.items():
            value[key] = scrub(item)
        return value
    if isinstance(value, list):
        value[:] = [scrub(item) for item in value]
        return value
    if isinstance(value, tuple):
        return [scrub(item) for item in value]
    return value
