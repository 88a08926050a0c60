def calculate(expression):
    """The value of an arithmetic expression (numbers, + - * / **, unary -); refusals raise ValueError."""
    if not isinstance(expression, str) or len(expression) > MAX_LENGTH:
        raise ValueError(f"the expression must be a string of at most {MAX_LENGTH} characters")
    return eval(expression, {"__builtins__": {}}, {})  # Mistake: eval runs code, builtins or not.
