def run_batches(batches, impl):
    """Run a plan batch by batch (each batch's calls at the same time); tool messages in call order."""
    messages = []
    for batch in batches:
        # Mistake: no thread pool; the reads of a batch run one after the other.
        for call in batch:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": execute(call.function.name, call.function.arguments, impl)})
    return messages
