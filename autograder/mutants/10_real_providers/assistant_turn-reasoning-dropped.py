def assistant_turn(message):
    """The assistant message as a plain dict for the history, with DeepSeek's reasoning kept."""
    # Mistake: the turn is rebuilt by hand and reasoning_content is lost.
    turn = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        turn["tool_calls"] = [{"id": c.id, "type": "function",
                               "function": {"name": c.function.name, "arguments": c.function.arguments}}
                              for c in message.tool_calls]
    return turn
