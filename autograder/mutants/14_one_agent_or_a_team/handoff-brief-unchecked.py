"""Any arguments make a handoff; a missing brief becomes an empty one."""

def handoff(team, current, name, arguments, customer_id):
    """(next agent's name, its start messages) for a valid transfer call, else an error observation."""
    other = name.removeprefix("transfer_to_") if name.startswith("transfer_to_") else None
    if other not in current.handoffs or other not in team:
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
    brief = str(args.get("brief", ""))
    return other, start_messages(team[other], customer_id, brief)
