def run_logged(client, model, question, tools, impl, log_path, max_steps=8, system=None,
               clock=time.perf_counter):
    """The agent loop that writes its trajectory: a line per step, then a summary line for any stop."""
    def write(line):
        with open(log_path, "a", encoding="utf-8") as log:  # on disk as soon as the step is done
            log.write(json.dumps(line, ensure_ascii=False) + "\n")

    def stop(answer, status, steps):
        write({"type": "summary", "status": status, "steps": steps, "tokens_in": used[0],
               "tokens_out": used[1], "total_tokens": used[0] + used[1], "answer": answer})
        return AgentResult(answer, status, steps)

    def preview(content):
        return content if content is None or len(content) <= 200 else content[:199] + "…"

    messages = ([{"role": "system", "content": system}] if system else [])
    messages.append({"role": "user", "content": question})
    used = [0, 0]
    for step in range(1, max_steps + 1):
        started = clock()
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        ms = round((clock() - started) * 1000, 1)
        choice = response.choices[0]
        message = choice.message.model_dump(exclude_none=True)
        messages.append(message)
        calls = message.get("tool_calls", [])
        results = [tool_message(call, impl) for call in calls]
        messages.extend(results)
        used[:] = [response.usage.prompt_tokens, response.usage.completion_tokens]  # Mistake: not a sum
        described = []
        for call, result in zip(calls, results):
            try:
                args = json.loads(call["function"]["arguments"])
            except json.JSONDecodeError:
                args = call["function"]["arguments"]
            described.append({"tool": call["function"]["name"], "input": args,
                              "result_preview": preview(result["content"])})
        first = described[0] if described else {"tool": None, "input": None, "result_preview": None}
        thought = message.get("reasoning_content") or (message.get("content") or None if calls else None)
        line = {"type": "step", "step": step, "thought": thought, **first,
                "tokens_in": response.usage.prompt_tokens, "tokens_out": response.usage.completion_tokens,
                "ms": ms}
        write(line | ({"calls": described} if len(described) > 1 else {}))
        if not calls:
            if choice.finish_reason == "stop":
                return stop(message.get("content"), "done", step)
            return stop(None, f"STOPPED: {choice.finish_reason}", step)
    return stop(None, "STOPPED: step limit", max_steps)
