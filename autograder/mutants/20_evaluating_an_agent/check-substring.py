def check(answer, task):
    """True when `answer` says every required phrase and no forbidden one (whole phrases, any case)."""
    if not task.required:
        raise ValueError(f"task {getattr(task, 'name', '?')!r} has no required facts: a checker with "
                         "nothing to check passes everything")
    if not isinstance(answer, str):
        return False

    def says(phrase):  # Mistake: a substring, so "5000 KZT" is found in "15000 KZT"
        return phrase.lower() in answer.lower()

    return all(says(p) for p in task.required) and not any(says(p) for p in task.forbidden)
