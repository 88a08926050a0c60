def truncate(text, limit):
    """`text` if it has at most `limit` characters, else its head and a [truncated] marker."""
    if len(text) < limit:  # Mistake: a text of exactly `limit` characters gets a marker too.
        return text
    return f"{text[:limit]}\n[truncated] cut {len(text) - limit} of {len(text)} characters"
