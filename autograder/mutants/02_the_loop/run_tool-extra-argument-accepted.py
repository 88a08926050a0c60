def run_tool(name, args, confirmed=False, registry=None):
    """Run one tool call: the tool's result, or {"error": text} when the call is invalid or fails."""
    registry = TOOLS if registry is None else registry
    spec = registry.get(name)
    if spec is None:
        return {"error": f"unknown tool {name!r}; available tools: {', '.join(sorted(registry))}"}
    if not isinstance(args, dict):
        return {"error": f"arguments of {name} must be an object, got {type(args).__name__}"}
    # Mistake: only missing arguments are refused; extra ones (customer_id) are dropped quietly.
    missing = [p for p in spec.params if p not in args]
    if missing:
        return {"error": f"{name} is missing the arguments {missing}"}
    for p, expected in spec.params.items():
        if not isinstance(args[p], expected):
            return {"error": f"argument {p!r} of {name} must be {expected.__name__}"}
    if spec.confirm and not confirmed:
        return {"error": f"{name} needs the customer's confirmation: ask the customer first"}
    try:
        return spec.fn(**{p: args[p] for p in spec.params})
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
