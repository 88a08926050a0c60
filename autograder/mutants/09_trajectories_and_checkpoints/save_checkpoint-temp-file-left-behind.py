def save_checkpoint(path, state):
    """Write `state` as JSON to `path` atomically: a temporary file in the same folder, then os.replace."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)  # Mistake: when this fails, the .tmp file stays behind
    os.replace(temporary, path)
