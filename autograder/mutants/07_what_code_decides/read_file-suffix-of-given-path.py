def read_file(base, path):
    """Text of a .md/.txt/.json file inside the folder `base` (at most MAX_READ characters); refusals raise."""
    root = Path(base).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(f"{path!r} is outside the agent's folder")
    if Path(path).suffix not in READABLE:  # Mistake: the name, not the file it leads to.
        raise PermissionError(f"{path!r}: only {', '.join(sorted(READABLE))} files may be read")
    if not target.is_file():
        raise FileNotFoundError(f"no file {path!r} in the agent's folder")
    with open(target, encoding="utf-8", errors="replace") as f:
        text = f.read(MAX_READ + 1)
    return text if len(text) <= MAX_READ else text[:MAX_READ] + "\n[truncated]"
