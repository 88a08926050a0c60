def one_step(model, tools, messages):
    """Run one step of the loop; return the final text, or None after running a tool."""
    reply = model(messages)
    if "tool" in reply:
        result = tools[reply["tool"]](**reply.get("args", {}))
        messages.append({"role": "tool", "name": reply["tool"], "content": str(result)})
        return None
    messages.append({"role": "assistant", "content": reply["final"]})
    return reply["final"]
