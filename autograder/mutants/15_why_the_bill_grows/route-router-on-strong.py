def route(client, question, cheap, strong):
    """(the model to answer with, the router call's usage): cheap only for a clear 'easy'."""
    response = client.chat.completions.create(model=strong, max_completion_tokens=5, messages=[
        {"role": "system", "content": ROUTER}, {"role": "user", "content": question}])
    words = re.findall(r"[a-z]+", (response.choices[0].message.content or "").lower())
    chosen = cheap if words[:1] == ["easy"] else strong
    return chosen, response.usage.model_dump()
