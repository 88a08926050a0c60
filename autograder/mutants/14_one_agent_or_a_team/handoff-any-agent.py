"""A handoff to any agent of the team, not only the current agent's handoffs."""

def handoff(team, current, name, arguments, customer_id):
    """(next agent's name, its start messages) for a valid transfer call, else an error observation."""
    other = name.removeprefix("transfer_to_") if name.startswith("transfer_to_") else None
    if other not in team or other == current.name:
        return error_observation(f"{current.name} cannot call {name!r}; it may transfer to: "
                                 f"{', '.join(current.handoffs) or 'nobody'}")
    try:
        args = json.loads(arguments)
    except (TypeError, ValueError) as e:
        return error_observation(f"the arguments of {name} are not valid JSON ({e}); send {{\"brief\": \"...\"}}")
    if not isinstance(args, dict):
        return error_observation(f"the arguments of {name} must be a JSON object with a brief")
    if "customer_id" in args:
        return error_observation("customer_id is not an argument of a handoff: the next agent works for "
                                 "the logged-in customer only. Send the brief alone")
    brief = args.get("brief")
    if set(args) != {"brief"} or not isinstance(brief, str) or not brief.strip():
        return error_observation(f"{name} takes exactly one argument, brief: a non-empty string; got {sorted(args)}")
    return other, start_messages(team[other], customer_id, brief)
