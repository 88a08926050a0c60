def layout(system, tools, question, now):
    """One request's messages and tools: the stable part first, the time after it."""
    if not isinstance(now, datetime.datetime):
        raise TypeError(f"now must be a datetime.datetime, got {type(now).__name__}")
    return {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": f"Current time: {now:%Y-%m-%d %H:%M} UTC\n\n{question}"}],
            "tools": tools.sort(key=lambda tool: tool["function"]["name"]) or tools}
