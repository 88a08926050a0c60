def refine(client, model, task, max_rounds=3):
    """Draft, then review and revise until the reviewer passes it, at most max_rounds reviews."""
    if max_rounds < 1:
        raise ValueError(f"refine needs max_rounds >= 1, got {max_rounds}")
    draft = ask(client, model, WRITER_PROMPT, task)
    calls = 1
    for _ in range(max_rounds):
        notes = ask(client, model, REVIEWER_PROMPT, draft)
        calls += 1
        if notes.strip().startswith("PASS"):
            return AgentResult(draft, "done", calls)
        draft = ask(client, model, WRITER_PROMPT, revision(task, draft, notes))  # Mistake: also after the last review.
        calls += 1
    return AgentResult(None, "STOPPED: round cap", calls)
