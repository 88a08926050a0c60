def add(a, b):
    """The sum of a and b."""
    return float(a + b)
