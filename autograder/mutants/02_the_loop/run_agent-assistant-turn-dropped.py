def run_agent(question, model, max_steps=5, registry=None):
    """Run the loop until the model answers or max_steps model calls were made."""
    registry = TOOLS if registry is None else registry
    messages = [{"role": "user", "content": question}]
    specs = tool_specs(registry)
    for step in range(1, max_steps + 1):
        reply = model(messages, specs)
        if "final" in reply:
            return AgentResult(reply["final"], "done", step)
        result = run_tool(reply["tool"], reply.get("args", {}), registry=registry)
        # Mistake: only the observation is written down, not the model's own request.
        messages.append(observation(result))
    return AgentResult(None, "STOPPED: step limit", max_steps)
