def run_tool(name, args, confirmed=False, registry=None):
    """Run one tool call: the tool's result, or {"error": text} when the call is invalid or fails."""
    registry = TOOLS if registry is None else registry
    spec = registry.get(name)
    if spec is None:
        return {"error": f"unknown tool {name!r}; available tools: {', '.join(sorted(registry))}"}
    if not isinstance(args, dict):
        return {"error": f"arguments of {name} must be an object, got {type(args).__name__}"}
    if set(args) != set(spec.params):
        missing = [p for p in spec.params if p not in args]
        extra = [a for a in args if a not in spec.params]
        wrong = "; ".join(f"{label}: {', '.join(names)}" for label, names
                          in (("missing", missing), ("not allowed", extra)) if names)
        return {"error": f"{name} takes exactly the arguments {list(spec.params)} ({wrong})"}
    # Mistake: the types are never checked; month=202609 reaches the tool.
    if spec.confirm and not confirmed:
        return {"error": f"{name} needs the customer's confirmation: ask the customer first"}
    try:
        return spec.fn(**args)
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
