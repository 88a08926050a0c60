"""The worker gets the task alone: no instructions, no session customer."""

def worker(client, model, desk, agent, max_steps=4):
    """The function behind ask_<agent>: one task in, the worker's answer (only) out."""
    tools = [tool_schema(n) for n in agent.tools]
    impl = {n: desk.tools()[n] for n in agent.tools}

    def ask(task: str) -> dict:
        result = run_agent(client, model, [{"role": "user", "content": task}], tools, impl, max_steps)
        if result.status == "done":
            return {"answer": result.answer}
        return {"error": f"the {agent.name} worker stopped: {result.status}"}
    return ask
