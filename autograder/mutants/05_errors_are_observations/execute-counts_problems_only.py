def execute(name, raw_args, impl):
    """One tool call -> the text of its tool message: the JSON result, or an error observation {"error": ...}."""
    fn = impl.get(name)
    if fn is None:
        return error_observation(f"unknown tool {name!r}. Available tools: {', '.join(sorted(impl))}.")
    try:
        args = json.loads(raw_args or "{}")
    except json.JSONDecodeError as e:
        return error_observation(f"the arguments of {name} are not valid JSON ({e}). Send one JSON object.")
    try:
        validated = args_model(fn).model_validate(args)
    except ValidationError as e:
        # Mistake: only the number of problems, not which fields or what is wrong with them.
        return error_observation(f"bad arguments for {name} ({e.error_count()} problems). Fix them and call {name} again.")
    try:
        result = fn(**validated.model_dump())
    except Exception as e:
        return error_observation(f"{name} failed: {type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
