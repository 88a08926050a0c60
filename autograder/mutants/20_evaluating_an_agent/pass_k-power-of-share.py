def pass_k(outcomes, k):
    """(pass@k, pass^k) estimated from n runs of one task: outcomes is a list of bools."""
    n = len(outcomes)
    if n == 0 or not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of runs n={n}, got k={k}")
    c = sum(bool(o) for o in outcomes)
    p = c / n  # Mistake: the n runs taken as the model's true rate
    return 1.0 - (1.0 - p) ** k, p ** k
