def two_steps(question, model, tools):
    """Ask the question and run at most two steps; return the final text, or raise RuntimeError."""
    for _ in range(2):
        messages = [{"role": "user", "content": question}]  # the conversation starts over every step
        reply = model(messages, tool_specs(tools))
        messages.append({"role": "assistant", "content": json.dumps(reply)})
        if "final" in reply:
            return reply["final"]
        result = tools[reply["tool"]](**reply.get("args", {}))
        messages.append({"role": "tool", "content": json.dumps(result)})
    raise RuntimeError("the model gave no final answer after 2 steps")
