"""Calls one return (A, B, A) ping-pong already."""

def run_team(client, model, desk, team, question, start="triage", max_hops=3, max_steps=10):
    """A team's loop: handoffs switch agents; identity from the session; hop and ping-pong limits."""
    # Written out in full (not with agent_tools and handoff) so this exercise is graded on its own.
    agent, path = team[start], [start]
    messages = start_messages(agent, desk.customer_id, question)
    for step in range(1, max_steps + 1):
        tools = [tool_schema(n) for n in agent.tools] + [transfer_tool(team[o]) for o in agent.handoffs]
        impl = {n: desk.tools()[n] for n in agent.tools}
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        messages.append(choice.message.model_dump(exclude_none=True))
        if choice.finish_reason not in ("stop", "tool_calls"):
            return TeamResult(None, f"STOPPED: {choice.finish_reason}", path, step)
        if not choice.message.tool_calls:
            return TeamResult(choice.message.content, "done", path, step)
        for call in choice.message.tool_calls:
            name, arguments = call.function.name, call.function.arguments
            if not name.startswith("transfer_to_"):
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": execute(name, arguments, impl)})
                continue
            other = name.removeprefix("transfer_to_")
            try:
                args = json.loads(arguments)
            except ValueError:
                args = None
            if other not in agent.handoffs or other not in team:
                error = f"{agent.name} may transfer to: {', '.join(agent.handoffs) or 'nobody'}"
            elif not isinstance(args, dict):
                error = f"the arguments of {name} must be a JSON object with a brief"
            elif "customer_id" in args:
                error = "customer_id is not an argument of a handoff: the logged-in customer is kept"
            elif set(args) != {"brief"} or not isinstance(args["brief"], str) or not args["brief"].strip():
                error = f"{name} takes exactly one argument, brief: a non-empty string"
            else:
                error = None
            if error:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": error_observation(error)})
                continue
            if len(path) >= 2 and path[-2] == other:
                return TeamResult(None, "STOPPED: ping-pong", path, step)
            if len(path) - 1 >= max_hops:
                return TeamResult(None, "STOPPED: hop limit", path, step)
            agent = team[other]
            path.append(other)
            messages = start_messages(agent, desk.customer_id, args["brief"])
            break
    return TeamResult(None, "STOPPED: step limit", path, max_steps)
