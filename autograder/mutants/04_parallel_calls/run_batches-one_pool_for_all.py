def run_batches(batches, impl):
    """Run a plan batch by batch (each batch's calls at the same time); tool messages in call order."""
    # Mistake: every call of the plan goes into one pool, so actions run at the same time too.
    calls = [call for batch in batches for call in batch]
    if not calls:
        return []
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        contents = list(pool.map(lambda c: execute(c.function.name, c.function.arguments, impl), calls))
    return [{"role": "tool", "tool_call_id": c.id, "content": content} for c, content in zip(calls, contents)]
