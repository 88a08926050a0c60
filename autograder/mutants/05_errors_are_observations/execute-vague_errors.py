def execute(name, raw_args, impl):
    """One tool call -> the text of its tool message: the JSON result, or an error observation {"error": ...}."""
    # Mistake: every failure gets the same vague text; the model cannot tell what to fix.
    try:
        fn = impl[name]
        args = args_model(fn).model_validate(json.loads(raw_args or "{}"))
        return json.dumps(fn(**args.model_dump()), ensure_ascii=False, default=str)
    except Exception:
        return error_observation("the tool call failed, please try again.")
