def write_note(base, filename, text):
    """Save a Markdown note into the folder `base`/out; refusals raise ValueError or PermissionError."""
    # Mistake: $ also matches before a trailing newline.
    if not isinstance(filename, str) or not re.match(r"[a-z0-9][a-z0-9-]{0,40}\.md$", filename):
        raise ValueError(f"bad note name {filename!r}: use lowercase letters, digits and dashes, "
                         "like 'lamps-returns.md'")
    if not isinstance(text, str) or len(text) > MAX_NOTE:
        raise ValueError(f"a note is a string of at most {MAX_NOTE} characters")
    out = Path(base).resolve() / "out"
    out.mkdir(exist_ok=True)
    target = out / filename
    if target.is_symlink() or not target.resolve().is_relative_to(out):
        raise PermissionError(f"out/{filename} is a link to somewhere else; refusing to write through it")
    target.write_text(text, encoding="utf-8")
    return f"saved out/{filename} ({len(text)} characters)"
