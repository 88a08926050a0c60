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
        # Mistake: the result dict goes in as content; the provider wants a string.
        out.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return out
