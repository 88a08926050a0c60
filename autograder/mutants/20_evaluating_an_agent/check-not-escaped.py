def check(answer, task):
    """True when `answer` says every required phrase and no forbidden one (whole phrases, any case)."""
    if not task.required:
        raise ValueError(f"task {getattr(task, 'name', '?')!r} has no required facts: a checker with "
                         "nothing to check passes everything")
    if not isinstance(answer, str):
        return False

    def says(phrase):  # Mistake: the phrase is a regex: "2.5" matches "215", "C++" is an error
        return re.search(rf"(?<!\w){phrase}(?!\w)", answer, re.IGNORECASE) is not None

    return all(says(p) for p in task.required) and not any(says(p) for p in task.forbidden)
