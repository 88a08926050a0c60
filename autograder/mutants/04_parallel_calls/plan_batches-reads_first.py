def plan_batches(calls, read_only=READ_ONLY):
    """Split a reply's tool calls into batches: neighbouring reads together, each action alone."""
    # Mistake: all reads go first, then the actions; a read asked after a refund now runs before it.
    reads = [c for c in calls if c.function.name in read_only]
    actions = [[c] for c in calls if c.function.name not in read_only]
    return ([reads] if reads else []) + actions
