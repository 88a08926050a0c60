def step_line(step, response, results, ms):
    """One step of the trajectory as a dict: thought, first tool call, result preview, tokens, ms."""
    message = response.choices[0].message
    calls = message.tool_calls or []
    by_id = {r["tool_call_id"]: r["content"] for r in results}

    def describe(call):
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError:
            args = call.function.arguments
        # Mistake: the whole result goes into the log, however long.
        return {"tool": call.function.name, "input": args, "result_preview": by_id.get(call.id)}

    described = [describe(c) for c in calls]
    first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
    reasoning = (message.model_extra or {}).get("reasoning_content")
    line = {"type": "step", "step": step, "thought": reasoning or ((message.content or None) if calls else None),
            **first, "tokens_in": response.usage.prompt_tokens,
            "tokens_out": response.usage.completion_tokens, "ms": ms}
    if len(described) > 1:
        line["calls"] = described
    return line
