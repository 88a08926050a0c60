def save_checkpoint(path, state):
    """Write `state` as JSON to `path` atomically: a temporary file in the same folder, then os.replace."""
    # Mistake: the system's temporary folder may be another file system, where os.replace is not atomic.
    fd, temporary = tempfile.mkstemp(suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, ensure_ascii=False)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
