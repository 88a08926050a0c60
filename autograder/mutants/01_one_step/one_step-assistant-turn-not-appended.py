def one_step(messages, model, tools):
    """Call the model once and append its reply; run a requested tool and append the observation.

    Returns the final text when the model answered, or None after a tool ran.
    """
    reply = model(messages, tool_specs(tools))
    if "final" in reply:
        return reply["final"]
    result = tools[reply["tool"]](**reply.get("args", {}))
    messages.append({"role": "tool", "content": json.dumps(result)})
    return None
