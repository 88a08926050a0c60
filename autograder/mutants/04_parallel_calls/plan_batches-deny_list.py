def plan_batches(calls, read_only=READ_ONLY):
    """Split a reply's tool calls into batches: neighbouring reads together, each action alone."""
    # Mistake: a list of dangerous tools instead of the allow-list of reads; any other tool counts as a read.
    dangerous = {"refund", "card_block"}
    batches = []
    for call in calls:
        is_read = call.function.name not in dangerous
        if is_read and batches and batches[-1][-1].function.name not in dangerous:
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches
