def execute(name, raw_args, impl):
    """One tool call -> the text of its tool message: the JSON result, or an error observation {"error": ...}."""
    fn = impl.get(name)
    if fn is None:
        return error_observation(f"unknown tool {name!r}. Available tools: {', '.join(sorted(impl))}.")
    args = json.loads(raw_args or "{}")  # Mistake: broken JSON raises and ends the run.
    try:
        validated = args_model(fn).model_validate(args)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" if err["loc"] else err["msg"]
                             for err in e.errors())
        return error_observation(f"bad arguments for {name}: {problems}. Fix them and call {name} again.")
    try:
        result = fn(**validated.model_dump())
    except Exception as e:
        return error_observation(f"{name} failed: {type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
