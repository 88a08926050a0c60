def two_steps(question, model, tools):
    """Ask the question and run at most two steps; return the final text, or raise RuntimeError."""
    messages = [{"role": "user", "content": question}]
    for _ in range(2):
        reply = model(messages, tool_specs(tools))
        messages.append({"role": "assistant", "content": json.dumps(reply)})
        if "final" in reply:
            return reply["final"]
        result = tools[reply["tool"]](**reply.get("args", {}))
        messages.append({"role": "tool", "content": json.dumps(result)})
    return None
