def run_agent(client, model, question, tools, impl, max_steps=8):
    """The agent loop: every failure an observation, a text call asked about once, then stopped."""
    def observe(name, raw_args):
        fn = impl.get(name)
        if fn is None:
            return error_observation(f"unknown tool {name!r}. Available tools: {', '.join(sorted(impl))}.")
        try:
            args = args_model(fn).model_validate(json.loads(raw_args or "{}"))
        except json.JSONDecodeError as e:
            return error_observation(f"the arguments of {name} are not valid JSON ({e}). Send one JSON object.")
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" if err["loc"] else err["msg"]
                                 for err in e.errors())
            return error_observation(f"bad arguments for {name}: {problems}. Fix them and call {name} again.")
        try:
            return json.dumps(fn(**args.model_dump()), ensure_ascii=False, default=str)
        except Exception as e:
            return error_observation(f"{name} failed: {type(e).__name__}: {e}")

    def text_call(content):
        if not isinstance(content, str) or "{" not in content:
            return None
        hits = [(m.start(), n) for n in names
                if (m := re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", content))]
        return min(hits)[1] if hits else None

    names = [t["function"]["name"] for t in tools or []]
    messages = [{"role": "user", "content": question}]
    asked = False
    for step in range(1, max_steps + 1):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        choice = response.choices[0]
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        if message.tool_calls:
            messages += [{"role": "tool", "tool_call_id": c.id,
                          "content": observe(c.function.name, c.function.arguments)}
                         for c in message.tool_calls]
            asked = False  # Mistake: a proper call resets the question, so the model is asked again and again.
            continue
        if choice.finish_reason != "stop":
            return AgentResult(None, f"STOPPED: {choice.finish_reason}", step)
        tool = text_call(message.content)
        if tool is None:
            return AgentResult(message.content, "done", step)
        if asked:
            return AgentResult(None, "STOPPED: text tool call", step)
        asked = True
        messages.append({"role": "user", "content": ASK_TO_CALL.format(name=tool)})
    return AgentResult(None, "STOPPED: step limit", max_steps)
