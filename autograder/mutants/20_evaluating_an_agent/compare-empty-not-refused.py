MIN_RUNS = 30


def compare(a, b):
    """Shares of A and B, their difference, its 95% margin, and a verdict that admits too few runs."""
    # Mistake: no runs on a side is not refused (a ZeroDivisionError, or a share made up)
    pa = sum(map(bool, a)) / len(a) if a else 0.0
    pb = sum(map(bool, b)) / len(b) if b else 0.0
    difference = pb - pa
    margin = 1.96 * math.sqrt(pa * (1 - pa) / max(len(a), 1) + pb * (1 - pb) / max(len(b), 1))
    if min(len(a), len(b)) < MIN_RUNS:
        verdict = "not enough runs"
    elif difference > margin:
        verdict = "B is better"
    elif difference < -margin:
        verdict = "A is better"
    else:
        verdict = "not enough runs"
    return {"a": pa, "b": pb, "difference": difference, "margin": margin, "verdict": verdict}
