def run_agent(question, model, max_steps=5, registry=None):
    """Run the loop until the model answers or max_steps model calls were made."""
    registry = TOOLS if registry is None else registry
    messages = [{"role": "user", "content": question}]
    specs = tool_specs(registry)
    for step in range(1, max_steps + 1):
        reply = model(messages, specs)
        messages.append(assistant_turn(reply))
        if "final" in reply:
            return AgentResult(reply["final"], "done", step)
        result = run_tool(reply["tool"], reply.get("args", {}), registry=registry)
        messages.append(observation(result))
    # Mistake: the stop is dressed up as an answer; the caller cannot tell it from a real one.
    return AgentResult("Sorry, I could not finish: step limit reached.", "done", max_steps)
