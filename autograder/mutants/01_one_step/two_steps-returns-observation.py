def two_steps(question, model, tools):
    """Ask the question and run at most two steps; return the final text, or raise RuntimeError."""
    messages = [{"role": "user", "content": question}]
    reply = model(messages, tool_specs(tools))
    if "final" in reply:
        return reply["final"]
    result = tools[reply["tool"]](**reply.get("args", {}))
    return json.dumps(result)
