def pass_k(outcomes, k):
    """(pass@k, pass^k) estimated from n runs of one task: outcomes is a list of bools."""
    n = len(outcomes)
    if not outcomes:  # Mistake: no runs is "nothing failed"
        return 1.0, 1.0
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of runs n={n}, got k={k}")
    c = sum(bool(o) for o in outcomes)
    total = math.comb(n, k)
    return 1.0 - math.comb(n - c, k) / total, math.comb(c, k) / total
