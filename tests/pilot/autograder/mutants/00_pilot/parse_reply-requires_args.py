def parse_reply(reply):
    """("tool", name, args) or ("final", text); ValueError for anything else."""
    if "tool" in reply:
        return ("tool", reply["tool"], reply["args"])
    if "final" in reply:
        return ("final", reply["final"])
    raise ValueError(f"not a model reply: {reply!r}")
