def assistant_turn(message):
    """The assistant message as a plain dict for the history, with DeepSeek's reasoning kept."""
    turn = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        turn["tool_calls"] = list(message.tool_calls)  # Mistake: SDK objects, not plain dicts
    reasoning = getattr(message, "reasoning_content", None)
    if reasoning:
        turn["reasoning_content"] = reasoning
    return turn
