def first_reply(model, question):
    """Ask the model one question and return its reply dict unchanged."""
    return model(question, [])
