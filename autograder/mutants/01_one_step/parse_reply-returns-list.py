def parse_reply(reply):
    """Classify a model reply: ("tool", name, args) or ("final", text); ValueError if it is neither."""
    if not isinstance(reply, dict):
        raise ValueError(f"a reply must be a dict, got {type(reply).__name__}")
    if ("tool" in reply) == ("final" in reply):
        raise ValueError(f"a reply must have exactly one of 'tool' and 'final', got keys {sorted(reply)}")
    if "final" in reply:
        if not isinstance(reply["final"], str):
            raise ValueError("'final' must be a str")
        return ["final", reply["final"]]
    name, args = reply["tool"], reply.get("args", {})
    if not isinstance(name, str) or not name:
        raise ValueError(f"'tool' must be a non-empty str, got {name!r}")
    if not isinstance(args, dict):
        raise ValueError("'args' must be a dict")
    return ["tool", name, args]
