def assistant_turn(message):
    """The assistant message as a plain dict for the history, with DeepSeek's reasoning kept."""
    # Mistake: every field goes back, refusal, annotations, audio and function_call included.
    return message.model_dump()
