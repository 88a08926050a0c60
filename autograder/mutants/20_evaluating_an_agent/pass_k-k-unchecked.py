def pass_k(outcomes, k):
    """(pass@k, pass^k) estimated from n runs of one task: outcomes is a list of bools."""
    n = len(outcomes)  # Mistake: k > n (or no runs) is not refused; comb(n, k) is then 0
    c = sum(bool(o) for o in outcomes)
    total = math.comb(n, k)
    return 1.0 - math.comb(n - c, k) / total, math.comb(c, k) / total
