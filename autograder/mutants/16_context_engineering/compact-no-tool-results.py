def compact(messages, client, keep_last, model="fake-model"):
    """The head, one summary of the old blocks (one model call), and the newest keep_last blocks."""
    if not isinstance(keep_last, int) or isinstance(keep_last, bool) or keep_last < 0:
        raise ValueError(f"keep_last must be a whole number of blocks >= 0, got {keep_last!r}")
    n = 0
    while n < len(messages) and messages[n].get("role") == "system":
        n += 1
    if n < len(messages) and messages[n].get("role") == "user":
        n += 1
    rest = blocks(messages[n:])
    cut = max(len(rest) - keep_last, 0)
    old = [m for b in rest[:cut] for m in b]
    if not old:
        return list(messages)
    transcript = "\n".join(json.dumps(m, ensure_ascii=False) for m in old if m.get("role") != "tool")
    response = client.chat.completions.create(model=model, messages=[
        {"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": transcript}])
    summary = {"role": "user", "content": response.choices[0].message.content}
    return list(messages[:n]) + [summary] + [m for b in rest[cut:] for m in b]
