def run_chain(client, model, text, steps):
    """Run the steps in order, each on the previous output; stop at the first gate that fails."""
    if not steps:
        raise ValueError("run_chain needs at least one step")
    current = text
    for step in steps:
        current = ask(client, model, step.prompt, current)
        reason = step.gate(current)
        if reason is not None:  # Mistake: an exception instead of a stop status.
            raise ValueError(f"gate {step.name} failed: {reason}")
    return AgentResult(current, "done", len(steps))
