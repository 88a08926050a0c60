def anthropic_to_openai(system, messages):
    """An Anthropic Messages transcript -> Chat Completions messages."""
    def texts(blocks):
        return [b["text"] for b in blocks if b.get("type") == "text"]

    def is_error_observation(text):
        try:
            data = json.loads(text)
        except ValueError:
            return False
        return isinstance(data, dict) and "error" in data

    out = [{"role": "system", "content": system}] if system else []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            out.append({"role": m["role"], "content": content})
        elif m["role"] == "assistant":
            turn = {"role": "assistant", "content": "\n".join(texts(content)) or None}
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b["input"], ensure_ascii=False)}}
                     for b in content if b.get("type") == "tool_use"]
            if calls:
                turn["tool_calls"] = calls
            out.append(turn)
        else:
            for b in content:
                if b.get("type") == "tool_result":
                    body = b.get("content", "")
                    text = body if isinstance(body, str) else "\n".join(texts(body))
                    if b.get("is_error"):  # Mistake: {"error": ...} already there is wrapped again
                        text = json.dumps({"error": text}, ensure_ascii=False)
                    out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": text})
            if texts(content):
                out.append({"role": "user", "content": "\n".join(texts(content))})
    return out
