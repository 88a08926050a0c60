MIN_RUNS = 30


def compare(a, b):
    """Shares of A and B, their difference, its 95% margin, and a verdict that admits too few runs."""
    for name, runs in (("a", a), ("b", b)):
        if len(runs) == 0:
            raise ValueError(f"{name} has no runs: run each variant before you compare")
    pa, pb = float(bool(a[0])), float(bool(b[0]))  # Mistake: one run taken as the truth
    difference = pb - pa
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
