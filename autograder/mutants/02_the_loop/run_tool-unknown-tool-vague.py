def run_tool(name, args, confirmed=False, registry=None):
    """Run one tool call: the tool's result, or {"error": text} when the call is invalid or fails."""
    registry = TOOLS if registry is None else registry
    spec = registry.get(name)
    if spec is None:
        # Mistake: a vague error; the model cannot tell which tools do exist.
        return {"error": "unknown tool"}
    if not isinstance(args, dict):
        return {"error": f"arguments of {name} must be an object, got {type(args).__name__}"}
    if set(args) != set(spec.params):
        missing = [p for p in spec.params if p not in args]
        extra = [a for a in args if a not in spec.params]
        wrong = "; ".join(f"{label}: {', '.join(names)}" for label, names
                          in (("missing", missing), ("not allowed", extra)) if names)
        return {"error": f"{name} takes exactly the arguments {list(spec.params)} ({wrong})"}
    for p, expected in spec.params.items():
        if not isinstance(args[p], expected):
            return {"error": f"argument {p!r} of {name} must be {expected.__name__}"}
    if spec.confirm and not confirmed:
        return {"error": f"{name} needs the customer's confirmation: ask the customer first"}
    try:
        return spec.fn(**args)
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
