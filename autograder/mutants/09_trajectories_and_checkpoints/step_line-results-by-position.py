def step_line(step, response, results, ms):
    """One step of the trajectory as a dict: thought, first tool call, result preview, tokens, ms."""
    message = response.choices[0].message
    calls = message.tool_calls or []

    def preview(text):
        return text if text is None or len(text) <= 200 else text[:199] + "…"

    described = []
    for i, call in enumerate(calls):
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError:
            args = call.function.arguments
        # Mistake: the i-th result is assumed to answer the i-th call; they are paired by tool_call_id.
        content = results[i]["content"] if i < len(results) else None
        described.append({"tool": call.function.name, "input": args, "result_preview": preview(content)})
    first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
    reasoning = (message.model_extra or {}).get("reasoning_content")
    line = {"type": "step", "step": step, "thought": reasoning or ((message.content or None) if calls else None),
            **first, "tokens_in": response.usage.prompt_tokens,
            "tokens_out": response.usage.completion_tokens, "ms": ms}
    if len(described) > 1:
        line["calls"] = described
    return line
