def refine(client, model, task, max_rounds=3):
    """Draft, then review and revise until the reviewer passes it, at most max_rounds reviews."""
    if max_rounds < 1:
        raise ValueError(f"refine needs max_rounds >= 1, got {max_rounds}")
    draft = ask(client, model, WRITER_PROMPT, task)
    calls = 1
    for round_ in range(1, max_rounds + 1):
        notes = ask(client, model, REVIEWER_PROMPT, draft)
        calls += 1
        if notes.strip().startswith("PASS"):
            return AgentResult(draft, "done", calls)
        if round_ < max_rounds:
            draft = ask(client, model, WRITER_PROMPT, task)  # Mistake: the writer never sees the notes.
            calls += 1
    return AgentResult(None, "STOPPED: round cap", calls)
