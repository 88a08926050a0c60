def first_reply(model, question):
    """Ask the model one question and return its reply dict unchanged."""
    messages = [{"role": "system", "content": question}]
    return model(messages, [])
