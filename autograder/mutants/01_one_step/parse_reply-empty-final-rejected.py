def parse_reply(reply):
    """Classify a model reply: ("tool", name, args) or ("final", text); ValueError if it is neither."""
    if not isinstance(reply, dict):
        raise ValueError(f"a reply must be a dict, got {type(reply).__name__}")
    if reply.get("tool") and reply.get("final"):
        raise ValueError("a reply cannot be both a tool request and a final answer")
    if reply.get("final"):  # truthiness: an empty final answer falls through
        if not isinstance(reply["final"], str):
            raise ValueError("'final' must be a str")
        return ("final", reply["final"])
    if reply.get("tool"):
        name, args = reply["tool"], reply.get("args", {})
        if not isinstance(name, str):
            raise ValueError(f"'tool' must be a str, got {name!r}")
        if not isinstance(args, dict):
            raise ValueError("'args' must be a dict")
        return ("tool", name, args)
    raise ValueError(f"a reply needs 'tool' or 'final', got {reply!r}")
