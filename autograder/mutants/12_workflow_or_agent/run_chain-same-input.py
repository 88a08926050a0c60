def run_chain(client, model, text, steps):
    """Run the steps in order, each on the previous output; stop at the first gate that fails."""
    if not steps:
        raise ValueError("run_chain needs at least one step")
    for calls, step in enumerate(steps, 1):
        output = ask(client, model, step.prompt, text)  # Mistake: every step reads the original text.
        reason = step.gate(output)
        if reason is not None:
            return AgentResult(None, f"STOPPED: gate {step.name}: {reason}", calls)
    return AgentResult(output, "done", len(steps))
