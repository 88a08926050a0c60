def run_chain(client, model, text, steps):
    """Run the steps in order, each on the previous output; stop at the first gate that fails."""
    if not steps:
        raise ValueError("run_chain needs at least one step")
    current = text
    for step in steps:  # Mistake: no gate; a bad output becomes the next step's input.
        current = ask(client, model, step.prompt, current)
    return AgentResult(current, "done", len(steps))
