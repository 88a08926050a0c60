def step_line(step, response, results, ms):
    """One step of the trajectory as a dict: thought, first tool call, result preview, tokens, ms."""
    message = response.choices[0].message
    calls = message.tool_calls or []
    by_id = {r["tool_call_id"]: r["content"] for r in results}

    def preview(text):
        return text if text is None or len(text) <= 200 else text[:199] + "…"

    def describe(call):
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError:
            args = call.function.arguments
        return {"tool": call.function.name, "input": args, "result_preview": preview(by_id.get(call.id))}

    described = [describe(c) for c in calls]
    first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
    reasoning = (message.model_extra or {}).get("reasoning_content")
    # Mistake: total_tokens as the input, and the output forgotten.
    line = {"type": "step", "step": step, "thought": reasoning or ((message.content or None) if calls else None),
            **first, "tokens_in": response.usage.total_tokens, "tokens_out": 0, "ms": ms}
    if len(described) > 1:
        line["calls"] = described
    return line
