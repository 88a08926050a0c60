def run_task(client, model, task, tools, impl, system=SYSTEM, max_steps=8):
    """Run one task with the knowledge-base agent: (AgentResult, trajectory log)."""
    names = [t["function"]["name"] for t in tools]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    log, asked = [], False

    def finish(answer, status, steps):
        totals = {k: sum(r[k] for r in log) for k in ("tokens_in", "tokens_out", "cache_hit")}
        log.append({"summary": True, "status": status, "answer": answer, "steps": steps, **totals})
        return AgentResult(answer, status, steps), log

    for step in range(1, max_steps + 1):
        started = time.perf_counter()
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice, usage = response.choices[0], response.usage
        message = choice.message
        messages.append({"role": "assistant", "content": message.content,  # Mistake: no reasoning_content
                         **({"tool_calls": [c.model_dump() for c in message.tool_calls]} if message.tool_calls else {})})
        thought = getattr(message, "reasoning_content", None) or (message.content if message.tool_calls else "")
        record = {"step": step, "thought": thought or "", "calls": [], "text_call": False,
                  "tokens_in": usage.prompt_tokens, "tokens_out": usage.completion_tokens,
                  "cache_hit": getattr(usage, "prompt_cache_hit_tokens", None) or 0}
        stop = None
        for call in message.tool_calls or []:
            observation = execute(call.function.name, call.function.arguments, impl)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
            record["calls"].append({"tool": call.function.name, "input": call.function.arguments,
                                    "result": observation[:200], "error": error_kind(observation)})
        if not message.tool_calls:
            if choice.finish_reason != "stop":
                stop = (None, f"STOPPED: {choice.finish_reason}")
            elif (name := find_text_call(message.content, names)) is not None:
                record["text_call"] = True
                if asked:
                    stop = (None, "STOPPED: text tool call")
                else:
                    asked = True
                    messages.append({"role": "user", "content": ASK_TO_CALL.format(name=name)})
            else:
                stop = (message.content, "done")
        record["ms"] = round((time.perf_counter() - started) * 1000)
        log.append(record)
        if stop:
            return finish(stop[0], stop[1], step)
    return finish(None, "STOPPED: step limit", max_steps)
