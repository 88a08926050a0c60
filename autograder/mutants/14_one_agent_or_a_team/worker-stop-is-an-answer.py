"""A stopped worker's None goes back as if it were an answer."""

def worker(client, model, desk, agent, max_steps=4):
    """The function behind ask_<agent>: one task in, the worker's answer (only) out."""
    tools = [tool_schema(n) for n in agent.tools]
    impl = {n: desk.tools()[n] for n in agent.tools}

    def ask(task: str) -> dict:
        result = run_agent(client, model, start_messages(agent, desk.customer_id, task), tools, impl, max_steps)
        return {"answer": result.answer}
    return ask
