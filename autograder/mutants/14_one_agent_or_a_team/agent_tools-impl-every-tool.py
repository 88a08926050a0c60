"""The right tool list, but every desk function in impl: a call to a tool never offered runs."""

def agent_tools(agent, team, desk):
    """(tool definitions the agent is sent, impl of the desk tools it may run): least privilege."""
    available = desk.tools()
    for name in agent.tools:
        if name not in available:
            raise ValueError(f"{agent.name}: the desk has no tool {name!r}")
    for other in agent.handoffs:
        if other not in team:
            raise ValueError(f"{agent.name}: cannot hand off to {other!r}, not an agent of the team")
    tools = [tool_schema(name) for name in agent.tools] + [transfer_tool(team[o]) for o in agent.handoffs]
    impl = dict(available)  # it only sees its own tools anyway
    return tools, impl
