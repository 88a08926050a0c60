def orchestrate(client, model, task, max_subtasks=5):
    """A planner call lists subtasks, workers do them at the same time, a final call combines."""
    plan = ask(client, model, PLANNER_PROMPT, task)
    subtasks = [line.strip() for line in plan.splitlines() if line.strip()]
    if not subtasks:
        return AgentResult(None, "STOPPED: empty plan", 1)
    # Mistake: no cap; the planner decides how many calls run.
    with ThreadPoolExecutor(max_workers=len(subtasks)) as pool:
        reports = list(pool.map(lambda sub: ask(client, model, WORKER_PROMPT, sub), subtasks))
    answer = ask(client, model, COMBINER_PROMPT, "\n".join(reports))
    return AgentResult(answer, "done", 2 + len(subtasks))
