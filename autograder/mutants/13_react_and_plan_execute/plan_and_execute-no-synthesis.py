def plan_and_execute(client, model, task, tools, impl, max_replans=2, max_steps=6):
    """Plan, run each step with run_agent, replan at most max_replans times, synthesize."""
    class Steps(BaseModel):  # read_plan's checks, restated so this exercise is graded on its own
        steps: list[str] = Field(min_length=1, max_length=7)

    def valid(text):
        lines = (text or "").strip().splitlines()
        if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
            lines = lines[1:-1]
        steps = Steps.model_validate_json("\n".join(lines)).steps
        if any(not s.strip() for s in steps):
            raise ValueError("a step is blank")
        return [s.strip() for s in steps]

    done, replans, problem = [], 0, None
    while True:
        reply = client.chat.completions.create(model=model,
                                               messages=planner_messages(task, done, problem))
        try:
            steps = valid(reply.choices[0].message.content)
        except ValueError as e:
            problem = f"Your plan was not valid: {e}"
        else:
            for step in steps:
                result = run_agent(client, model, step_prompt(task, done, step), tools, impl,
                                   max_steps=max_steps)
                if result.status != "done":
                    problem = f"Step {step!r} failed: {result.status}"
                    break
                done.append((step, result.answer))
            else:
                # Mistake: no synthesis call: the step results glued together are not an answer.
                return PlanResult(" ".join(answer for _, answer in done), "done", done, replans)
        if replans >= max_replans:
            return PlanResult(None, "STOPPED: replan limit", done, replans)
        replans += 1
