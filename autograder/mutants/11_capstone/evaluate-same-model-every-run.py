def evaluate(agent, fake, tasks, runs=5):
    """Run every task `runs` times on fresh models; one row of the comparison table."""
    row = {"runs": 0, "correct": 0, "median_steps": 0, "arg_errors": 0, "text_calls": 0,
           "seconds": 0.0, "cache_hits": 0, "archived_as_current": 0, "crashed": 0}
    steps, seconds = [], []
    for task in tasks:
        for n in range(runs):
            if task.note is not None:
                task.note.unlink(missing_ok=True)
            client, model = fake(task.name, 0)  # Mistake: run 0 every time
            row["runs"] += 1
            started = time.perf_counter()
            try:
                result, log = agent(client, model, task.question)
            except Exception:
                row["crashed"] += 1
                seconds.append(time.perf_counter() - started)
                continue
            seconds.append(time.perf_counter() - started)
            try:
                note_text = task.note.read_text(encoding="utf-8") if task.note is not None else None
            except OSError:
                note_text = None
            correct, archived = task.check(result.answer, note_text)
            row["correct"] += bool(correct)
            row["archived_as_current"] += bool(archived)
            steps.append(result.steps)
            lines = [line for line in log if line.get("type") == "step"]
            row["arg_errors"] += sum(e == "arguments" for line in lines for e in line.get("errors", []))
            row["text_calls"] += sum(bool(line.get("text_call")) for line in lines)
            row["cache_hits"] += sum(line.get("cache_hit_tokens", 0) for line in lines)
            if task.note is not None:
                task.note.unlink(missing_ok=True)
    row["correct"] = row["correct"] / row["runs"] if row["runs"] else 0.0
    row["median_steps"] = statistics.median(steps) if steps else 0
    row["seconds"] = statistics.median(seconds) if seconds else 0.0
    return row
