"""A sub-agent handed every tool of the desk."""

def worker(client, model, desk, agent, max_steps=4):
    """The function behind ask_<agent>: one task in, the worker's answer (only) out."""
    tools = [tool_schema(n) for n in agent.tools]
    impl = desk.tools()

    def ask(task: str) -> dict:
        result = run_agent(client, model, start_messages(agent, desk.customer_id, task), tools, impl, max_steps)
        if result.status == "done":
            return {"answer": result.answer}
        return {"error": f"the {agent.name} worker stopped: {result.status}"}
    return ask
