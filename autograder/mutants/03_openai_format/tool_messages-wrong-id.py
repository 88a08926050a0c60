def tool_messages(message, impl):
    """One `tool` message per tool call of the assistant message, in order."""
    out = []
    for call in message.tool_calls or []:
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError as e:
            result = {"error": f"arguments are not valid JSON ({e}); send one JSON object"}
        else:
            result = call_tool(impl, call.function.name, args)
        # Mistake: every result is sent for the first call's id.
        out.append({"role": "tool", "tool_call_id": message.tool_calls[0].id,
                    "content": json.dumps(result, ensure_ascii=False, default=str)})
    return out
