def tool_messages(message, impl):
    """One `tool` message per tool call of the assistant message, in order."""
    out = []
    for call in message.tool_calls or []:
        # Mistake: the arguments are passed on as the raw JSON string, never parsed.
        result = call_tool(impl, call.function.name, call.function.arguments)
        out.append({"role": "tool", "tool_call_id": call.id,
                    "content": json.dumps(result, ensure_ascii=False, default=str)})
    return out
