def mark_as_data(name, result):
    """The observation for `result` of tool `name`, wrapped in a <tool-data> block it cannot close."""
    payload = json.dumps(result, ensure_ascii=False, default=str)
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<tool-data source="{name}">\n{payload}\n</tool-data>'
