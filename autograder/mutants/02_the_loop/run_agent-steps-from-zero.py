def run_agent(question, model, max_steps=5, registry=None):
    """Run the loop until the model answers or max_steps model calls were made."""
    registry = TOOLS if registry is None else registry
    messages = [{"role": "user", "content": question}]
    specs = tool_specs(registry)
    for step in range(max_steps):  # Mistake: steps counted from 0, so one fewer is reported.
        reply = model(messages, specs)
        messages.append(assistant_turn(reply))
        if "final" in reply:
            return AgentResult(reply["final"], "done", step)
        result = run_tool(reply["tool"], reply.get("args", {}), registry=registry)
        messages.append(observation(result))
    return AgentResult(None, "STOPPED: step limit", max_steps)
