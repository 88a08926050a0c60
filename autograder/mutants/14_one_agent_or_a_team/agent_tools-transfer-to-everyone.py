"""A transfer to every other agent of the team, not only the agent's own handoffs."""

def agent_tools(agent, team, desk):
    """(tool definitions the agent is sent, impl of the desk tools it may run): least privilege."""
    available = desk.tools()
    for name in agent.tools:
        if name not in available:
            raise ValueError(f"{agent.name}: the desk has no tool {name!r}")
    for other in agent.handoffs:
        if other not in team:
            raise ValueError(f"{agent.name}: cannot hand off to {other!r}, not an agent of the team")
    tools = [tool_schema(name) for name in agent.tools] + [transfer_tool(a) for a in team.values() if a.name != agent.name]
    impl = {name: available[name] for name in agent.tools}
    return tools, impl
