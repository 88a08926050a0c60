def run_task(client, model, task, tools, impl, system=SYSTEM, max_steps=8):
    """Run one task with the knowledge-base agent: (AgentResult, trajectory log)."""
    names = [t["function"]["name"] for t in tools]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    log, asked = [], False

    def finish(answer, status, steps):
        totals = {k: sum(line[k] for line in log) for k in ("tokens_in", "tokens_out", "cache_hit_tokens")}
        log.append({"type": "summary", "status": status, "steps": steps, "tokens_in": totals["tokens_in"],
                    "tokens_out": totals["tokens_out"], "total_tokens": totals["tokens_in"] + totals["tokens_out"],
                    "answer": answer, "cache_hit_tokens": totals["cache_hit_tokens"]})
        return AgentResult(answer, status, steps), log

    for step in range(1, max_steps + 1):
        started = time.perf_counter()
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        ms = round((time.perf_counter() - started) * 1000, 1)
        choice = response.choices[0]
        message = choice.message
        messages.append(assistant_turn(message))
        results = [{"role": "tool", "tool_call_id": call.id,
                    "content": execute(call.function.name, call.function.arguments, impl)}
                   for call in message.tool_calls or []]
        messages.extend(results)
        line = step_line(step, response, results, ms)
        line["errors"] = [('"error"' in r["content"]) or None for r in results]  # Mistake: no kind
        line["text_call"] = False
        line["cache_hit_tokens"] = getattr(response.usage, "prompt_cache_hit_tokens", None) or 0
        log.append(line)
        if message.tool_calls:
            continue
        if choice.finish_reason != "stop":
            return finish(None, f"STOPPED: {choice.finish_reason}", step)
        name = find_text_call(message.content, names)
        if name is None:
            return finish(message.content, "done", step)
        line["text_call"] = True
        if asked:
            return finish(None, "STOPPED: text tool call", step)
        asked = True
        messages.append({"role": "user", "content": ASK_TO_CALL.format(name=name)})
    return finish(None, "STOPPED: step limit", max_steps)
