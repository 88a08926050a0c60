"""Workers sharing state: every task is appended to one conversation, so each sees the earlier ones."""

def worker(client, model, desk, agent, max_steps=4):
    """The function behind ask_<agent>: one task in, the worker's answer (only) out."""
    tools = [tool_schema(n) for n in agent.tools]
    impl = {n: desk.tools()[n] for n in agent.tools}

    history = start_messages(agent, desk.customer_id, "You will get tasks one by one.")[:1]

    def ask(task: str) -> dict:
        history.append({"role": "user", "content": task})  # one conversation for every task
        result = run_agent(client, model, history, tools, impl, max_steps)
        if result.answer:
            history.append({"role": "assistant", "content": result.answer})
        if result.status == "done":
            return {"answer": result.answer}
        return {"error": f"the {agent.name} worker stopped: {result.status}"}
    return ask
