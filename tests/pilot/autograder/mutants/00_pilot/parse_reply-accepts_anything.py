def parse_reply(reply):
    """("tool", name, args) or ("final", text); ValueError for anything else."""
    if isinstance(reply, dict) and "tool" in reply:
        return ("tool", reply["tool"], reply.get("args", {}))
    return ("final", str(reply.get("final", "")) if isinstance(reply, dict) else str(reply))
