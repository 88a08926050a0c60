def run_messages_agent(client, model, question, tools, impl, system=None, max_steps=8, max_tokens=1024):
    """The loop on Anthropic's Messages API: system apart, whole content kept, results in one message."""
    messages = [{"role": "user", "content": question}]
    extra = {"system": system} if system else {}
    for step in range(1, max_steps + 1):
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages,
                                       tools=tools, **extra)
        messages.append({"role": "assistant",
                         "content": [block.model_dump(exclude_none=True) for block in reply.content]})
        if reply.stop_reason == "end_turn":
            text = "\n".join(block.text for block in reply.content if block.type == "text")
            return AgentResult(text, "done", step)
        if reply.stop_reason != "tool_use":
            return AgentResult(None, f"STOPPED: {reply.stop_reason}", step)
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            result = call_tool(impl, block.name, block.input)
            item = {"type": "tool_result", "tool_use_id": block.id,
                    "content": json.dumps(result, ensure_ascii=False, default=str)}
            # Mistake: no is_error, the words alone have to say it failed
            results.append(item)
        messages.append({"role": "user", "content": results})
    return AgentResult(None, "STOPPED: step limit", max_steps)
