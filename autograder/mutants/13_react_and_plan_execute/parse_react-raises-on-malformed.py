FORMAT_HINT = ("write 'Action: <tool>' and 'Action Input: <one JSON object>', "
               "or 'Final Answer: <answer>'")


def parse_react(text):
    """ReAct text -> ("action", name, arguments) | ("final", answer) | ("error", message)."""
    if not isinstance(text, str) or not text.strip():
        return ("error", f"ERROR: the reply was empty; {FORMAT_HINT}")
    action = re.search(r"Action:[ \t]*(.*)", text)
    answer = text.find("Final Answer:")
    if action is None and answer < 0:
        # Mistake: malformed text crashes the loop instead of becoming an observation.
        raise ValueError(f"no 'Action:' and no 'Final Answer:' found; {FORMAT_HINT}")
    if action is None or 0 <= answer < action.start():
        return ("final", text[answer + len("Final Answer:"):].strip())
    name = action.group(1).strip()
    if not name:
        return ("error", f"ERROR: the 'Action:' line has no tool name; {FORMAT_HINT}")
    given = re.search(r"Action Input:", text[action.end():])
    if given is None:
        return ("error", f"ERROR: 'Action: {name}' needs an 'Action Input:' with a JSON object")
    rest = text[action.end() + given.end():].lstrip()
    try:
        arguments, _ = json.JSONDecoder().raw_decode(rest)
    except ValueError:
        return ("error", f"ERROR: the Action Input of {name} is not JSON; write one JSON object, "
                'such as {"order_id": "A-1001"}')
    if not isinstance(arguments, dict):
        return ("error", f"ERROR: the Action Input of {name} must be a JSON object, "
                f"not {type(arguments).__name__}")
    return ("action", name, arguments)
