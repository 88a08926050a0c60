def orchestrate(client, model, task, max_subtasks=5):
    """A planner call lists subtasks, workers do them at the same time, a final call combines."""
    plan = ask(client, model, PLANNER_PROMPT, task)
    subtasks = [line.strip() for line in plan.splitlines() if line.strip()]
    if not subtasks:
        return AgentResult(None, "STOPPED: empty plan", 1)
    if len(subtasks) > max_subtasks:
        return AgentResult(None, "STOPPED: plan too long", 1)
    memory = [{"role": "system", "content": WORKER_PROMPT}]  # Mistake: one list for every worker.
    reports = []
    for sub in subtasks:
        memory.append({"role": "user", "content": sub})
        reply = client.chat.completions.create(model=model, messages=memory).choices[0].message.content
        memory.append({"role": "assistant", "content": reply})
        reports.append(reply)
    answer = ask(client, model, COMBINER_PROMPT, "\n".join(reports))
    return AgentResult(answer, "done", 2 + len(subtasks))
