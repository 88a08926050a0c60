MIN_RUNS = 30


def compare(a, b):
    """Shares of A and B, their difference, its 95% margin, and a verdict that admits too few runs."""
    for name, runs in (("a", a), ("b", b)):
        if len(runs) == 0:
            raise ValueError(f"{name} has no runs: run each variant before you compare")
    pa, pb = sum(map(bool, a)) / len(a), sum(map(bool, b)) / len(b)
    difference = pa - pb  # Mistake: a - b, so the verdicts name the wrong variant
    margin = 1.96 * math.sqrt(pa * (1 - pa) / len(a) + pb * (1 - pb) / len(b))
    if min(len(a), len(b)) < MIN_RUNS:
        verdict = "not enough runs"
    elif difference > margin:
        verdict = "B is better"
    elif difference < -margin:
        verdict = "A is better"
    else:
        verdict = "not enough runs"
    return {"a": pa, "b": pb, "difference": difference, "margin": margin, "verdict": verdict}
