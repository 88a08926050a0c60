def execute(shop, name, arguments, ask_customer):
    """Run one tool call for the session's customer; the observation text (an error is {"error": ...})."""
    tools = shop.tools()
    if name not in tools:
        return error_observation(f"unknown tool {name!r}; available tools: {', '.join(sorted(tools))}")
    try:
        args = json.loads(arguments)
    except (TypeError, ValueError) as e:
        return error_observation(f"the arguments of {name} are not valid JSON ({e}); send one JSON object")
    if not isinstance(args, dict):
        return error_observation(f"the arguments of {name} must be a JSON object, got {type(args).__name__}")
    if "customer_id" in args:  # Mistake: the model names the customer, and gets their data.
        shop = Shop(args.pop("customer_id"))
        tools = shop.tools()
    expected = list(SCHEMAS[name]["function"]["parameters"]["properties"])
    if set(args) != set(expected):
        return error_observation(f"{name} takes exactly the arguments {expected}; got {sorted(args)}")
    if name in NEEDS_CONFIRMATION and ask_customer(name, args) is not True:
        return error_observation(f"the customer did not confirm {name}; it did not run. Tell the customer what "
                                 "you would do and ask them to confirm")
    try:
        result = tools[name](**args)
    except Exception as e:  # a failing tool is news for the model, not a crash
        return error_observation(f"{type(e).__name__}: {e}")
    return json.dumps(result, ensure_ascii=False, default=str)
