def run_batches(batches, impl):
    """Run a plan batch by batch (each batch's calls at the same time); tool messages in call order."""
    messages = []
    for batch in batches:
        # Mistake: only the first call of each batch runs and is answered.
        call = batch[0]
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": execute(call.function.name, call.function.arguments, impl)})
    return messages
