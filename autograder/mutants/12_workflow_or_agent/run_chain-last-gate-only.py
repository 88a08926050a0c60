def run_chain(client, model, text, steps):
    """Run the steps in order, each on the previous output; stop at the first gate that fails."""
    if not steps:
        raise ValueError("run_chain needs at least one step")
    current = text
    for step in steps:
        current = ask(client, model, step.prompt, current)
    reason = steps[-1].gate(current)  # Mistake: only the end result is checked.
    if reason is not None:
        return AgentResult(None, f"STOPPED: gate {steps[-1].name}: {reason}", len(steps))
    return AgentResult(current, "done", len(steps))
