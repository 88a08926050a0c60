def run_chain(client, model, text, steps):
    """Run the steps in order, each on the previous output; stop at the first gate that fails."""
    if not steps:
        raise ValueError("run_chain needs at least one step")
    current, failed = text, None
    for step in steps:
        current = ask(client, model, step.prompt, current)
        reason = step.gate(current)
        if reason is not None and failed is None:  # Mistake: noted, but the chain goes on.
            failed = f"STOPPED: gate {step.name}: {reason}"
    if failed:
        return AgentResult(None, failed, len(steps))
    return AgentResult(current, "done", len(steps))
