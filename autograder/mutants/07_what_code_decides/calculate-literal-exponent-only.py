def calculate(expression):
    """The value of an arithmetic expression (numbers, + - * / **, unary -); refusals raise ValueError."""
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.Div: operator.truediv, ast.Pow: operator.pow}
    if not isinstance(expression, str) or len(expression) > MAX_LENGTH:
        raise ValueError(f"the expression must be a string of at most {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from None

    def checked(x):
        if isinstance(x, complex) or not abs(x) <= MAX_VALUE:
            raise ValueError(f"numbers must be real and at most {MAX_VALUE:.0e} in size")
        return x

    def value(node):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return checked(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            left, right = value(node.left), value(node.right)
            # Mistake: only a literal exponent is checked; 9**(9**9) computes its exponent first.
            if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and abs(right) > MAX_EXPONENT:
                raise ValueError(f"exponents are limited to {MAX_EXPONENT}; got {right}")
            try:
                return checked(operators[type(node.op)](left, right))
            except OverflowError:
                raise ValueError("the result is too large") from None
        raise ValueError(f"not allowed in a calculation: {type(node).__name__}")

    return value(tree.body)
