def truncate(text, limit):
    """`text` if it has at most `limit` characters, else its head and a [truncated] marker."""
    return text[:limit]  # Mistake: the cut is silent; the model takes the head for the whole.
