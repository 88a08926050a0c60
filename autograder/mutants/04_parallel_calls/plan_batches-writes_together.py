def plan_batches(calls, read_only=READ_ONLY):
    """Split a reply's tool calls into batches: neighbouring reads together, each action alone."""
    batches = []
    for call in calls:
        is_read = call.function.name in read_only
        # Mistake: neighbours of the same kind are grouped, so two refunds share a batch (and run together).
        if batches and (batches[-1][-1].function.name in read_only) == is_read:
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches
