def one_step(messages, model, tools):
    """Call the model once and append its reply; run a requested tool and append the observation.

    Returns the final text when the model answered, or None after a tool ran.
    """
    reply = model(messages, tool_specs(tools))
    messages = messages + [{"role": "assistant", "content": json.dumps(reply)}]
    if "final" in reply:
        return reply["final"]
    result = tools[reply["tool"]](**reply.get("args", {}))
    messages = messages + [{"role": "tool", "content": json.dumps(result)}]
    return None
