def route(client, model, message, routes, fallback):
    """The Route whose class name the model answered, or `fallback` for anything else."""
    label = ask(client, model, "Classify the customer's message.", message)  # Mistake: which classes?
    label = label.strip().removesuffix(".").strip().lower()
    return routes[label] if label in routes else fallback
