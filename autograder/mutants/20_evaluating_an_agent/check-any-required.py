def check(answer, task):
    """True when `answer` says every required phrase and no forbidden one (whole phrases, any case)."""
    if not task.required:
        raise ValueError(f"task {getattr(task, 'name', '?')!r} has no required facts: a checker with "
                         "nothing to check passes everything")
    if not isinstance(answer, str):
        return False

    def says(phrase):
        return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", answer, re.IGNORECASE) is not None

    return any(says(p) for p in task.required) and not any(says(p) for p in task.forbidden)  # Mistake: any
