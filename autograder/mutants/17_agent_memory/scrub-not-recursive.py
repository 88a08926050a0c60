def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return "[card]" if 13 <= len(str(abs(value))) <= 19 else value
    if isinstance(value, dict):  # one level only: nested dicts and lists are copied as they are
        return {key: mask(item) if isinstance(item, str) else item for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [mask(item) if isinstance(item, str) else item for item in value]
    return value
