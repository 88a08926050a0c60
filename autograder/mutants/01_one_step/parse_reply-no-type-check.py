def parse_reply(reply):
    """Classify a model reply: ("tool", name, args) or ("final", text); ValueError if it is neither."""
    if "tool" in reply and "final" in reply:
        raise ValueError("a reply cannot be both a tool request and a final answer")
    if "final" in reply:
        return ("final", reply["final"])
    if "tool" in reply:
        return ("tool", reply["tool"], reply.get("args", {}))
    raise ValueError(f"a reply needs 'tool' or 'final', got {reply!r}")
