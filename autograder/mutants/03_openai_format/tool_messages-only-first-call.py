def tool_messages(message, impl):
    """One `tool` message per tool call of the assistant message, in order."""
    if not message.tool_calls:
        return []
    # Mistake: only the first tool call is answered.
    call = message.tool_calls[0]
    try:
        args = json.loads(call.function.arguments)
    except json.JSONDecodeError as e:
        result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
    else:
        result = call_tool(impl, call.function.name, args)
    return [{"role": "tool", "tool_call_id": call.id,
             "content": json.dumps(result, ensure_ascii=False, default=str)}]
