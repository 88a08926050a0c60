MIN_RUNS = 30


def compare(a, b):
    """Shares of A and B, their difference, its 95% margin, and a verdict that admits too few runs."""
    for name, runs in (("a", a), ("b", b)):
        if len(runs) == 0:
            raise ValueError(f"{name} has no runs: run each variant before you compare")
    pa, pb = sum(map(bool, a)) / len(a), sum(map(bool, b)) / len(b)
    difference = pb - pa
    margin = 1.96 * math.sqrt(pa * (1 - pa) / len(a) + pb * (1 - pb) / len(b))
    # Mistake: any difference is a verdict
    if min(len(a), len(b)) < MIN_RUNS or difference == 0:
        verdict = "not enough runs"
    else:
        verdict = "B is better" if difference > 0 else "A is better"
    return {"a": pa, "b": pb, "difference": difference, "margin": margin, "verdict": verdict}
