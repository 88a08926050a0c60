def mark_as_data(name, result):
    """The observation for `result` of tool `name`, wrapped in a <tool-data> block it cannot close."""
    if not isinstance(name, str) or not name or \
            not all(c.isascii() and (c.isalnum() or c in "_-") for c in name):
        raise ValueError(f"mark_as_data: {name!r} is not a tool name (letters, digits, _ and -)")
    payload = str(result).replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<tool-data source="{name}">\n{payload}\n</tool-data>'
