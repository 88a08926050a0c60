def orchestrate(client, model, task, max_subtasks=5):
    """A planner call lists subtasks, workers do them at the same time, a final call combines."""
    plan = ask(client, model, PLANNER_PROMPT, task)
    subtasks = [line.strip() for line in plan.splitlines() if line.strip()]
    if not subtasks:
        return AgentResult(None, "STOPPED: empty plan", 1)
    if len(subtasks) > max_subtasks:
        return AgentResult(None, "STOPPED: plan too long", 1)
    reports = [ask(client, model, WORKER_PROMPT, sub) for sub in subtasks]  # Mistake: one after the other.
    answer = ask(client, model, COMBINER_PROMPT, "\n".join(reports))
    return AgentResult(answer, "done", 2 + len(subtasks))
