def calculate(expression):
    """The value of an arithmetic expression (numbers, + - * / **, unary -); refusals raise ValueError."""
    if not isinstance(expression, str) or len(expression) > MAX_LENGTH:
        raise ValueError(f"the expression must be a string of at most {MAX_LENGTH} characters")
    if not re.fullmatch(r"[0-9\s.+\-*/()]+", expression):
        raise ValueError("only numbers and + - * / ( ) are allowed")
    return eval(expression)  # Mistake: the characters are harmless, the amount of work is not (9**9**9).
