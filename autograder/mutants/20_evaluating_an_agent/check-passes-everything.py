def check(answer, task):
    """True when `answer` says every required phrase and no forbidden one (whole phrases, any case)."""
    if not isinstance(answer, str):
        return False

    def says(phrase):
        return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", answer, re.IGNORECASE) is not None

    # Mistake: a task with no required facts is not refused: all([]) is True, every answer passes
    return all(says(p) for p in task.required) and not any(says(p) for p in task.forbidden)
