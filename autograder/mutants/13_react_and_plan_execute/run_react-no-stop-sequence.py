def run_react(client, model, question, tools, impl, max_steps=8):
    """The ReAct text loop: answer, stop status, and the model calls made."""
    def parse(text):  # parse_react, written short: ("action", name, args) | ("final", a) | ("error", m)
        action = re.search(r"Action:[ \t]*(.*)", text)
        answer = text.find("Final Answer:")
        if action is not None and (answer < 0 or action.start() < answer):
            given = re.search(r"Action Input:\s*", text[action.end():])
            try:
                args = json.JSONDecoder().raw_decode(text[action.end() + given.end():])[0]
            except (AttributeError, ValueError):
                args = None
            if action.group(1).strip() and isinstance(args, dict):
                return ("action", action.group(1).strip(), args)
            return ("error", "ERROR: write 'Action: <tool>' and 'Action Input: <one JSON object>'")
        if answer >= 0:
            return ("final", text[answer + len("Final Answer:"):].strip())
        return ("error", "ERROR: write 'Action: <tool>' and 'Action Input: <one JSON object>', "
                "or 'Final Answer: <answer>'")

    messages = [{"role": "system", "content": react_prompt(tools)},
                {"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        # Mistake: no stop sequence, so the model writes (and the history keeps) its own observation.
        response = client.chat.completions.create(model=model, messages=messages)
        text = response.choices[0].message.content or ""
        messages.append({"role": "assistant", "content": text})
        parsed = parse(text)
        if parsed[0] == "final":
            return AgentResult(parsed[1], "done", step)
        if parsed[0] == "action":
            observation = json.dumps(call_tool(impl, parsed[1], parsed[2]), ensure_ascii=False,
                                     default=str)
        else:
            observation = parsed[1]
        messages.append({"role": "user", "content": f"Observation: {observation}"})
    return AgentResult(None, "STOPPED: step limit", max_steps)
