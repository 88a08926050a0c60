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
        result = fn(**args)  # Mistake: no validation; wrong types reach the tool, TypeError stands in for the rest.
    except Exception as e:
        return error_observation(f"{name} failed: {type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
