"""Identity taken from the handoff's arguments."""

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
    customer_id = args.pop("customer_id", customer_id)  # the model knows whom the task is about
    brief = args.get("brief")
    if set(args) != {"brief"} or not isinstance(brief, str) or not brief.strip():
        return error_observation(f"{name} takes exactly one argument, brief: a non-empty string; got {sorted(args)}")
    return other, start_messages(team[other], customer_id, brief)
