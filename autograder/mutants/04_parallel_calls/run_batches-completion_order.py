from concurrent.futures import as_completed


def run_batches(batches, impl):
    """Run a plan batch by batch (each batch's calls at the same time); tool messages in call order."""
    messages = []
    for batch in batches:
        with ThreadPoolExecutor(max_workers=len(batch)) as pool:
            futures = {pool.submit(execute, c.function.name, c.function.arguments, impl): c for c in batch}
            # Mistake: results are taken in the order they finish, not in the order of the calls.
            for future in as_completed(futures):
                messages.append({"role": "tool", "tool_call_id": futures[future].id, "content": future.result()})
    return messages
