def step_line(step, response, results, ms):
    """One step of the trajectory as a dict: thought, first tool call, result preview, tokens, ms."""
    message = response.choices[0].message
    calls = message.tool_calls or []
    by_id = {r["tool_call_id"]: r["content"] for r in results}

    def preview(text):
        return text if text is None or len(text) <= 200 else text[:199] + "…"

    first = {"tool": None, "input": None, "result_preview": None}
    if calls:  # Mistake: a parallel reply's other calls never reach the log
        call = calls[0]
        try:
            args = json.loads(call.function.arguments)
        except json.JSONDecodeError:
            args = call.function.arguments
        first = {"tool": call.function.name, "input": args, "result_preview": preview(by_id.get(call.id))}
    reasoning = (message.model_extra or {}).get("reasoning_content")
    return {"type": "step", "step": step, "thought": reasoning or ((message.content or None) if calls else None),
            **first, "tokens_in": response.usage.prompt_tokens,
            "tokens_out": response.usage.completion_tokens, "ms": ms}
