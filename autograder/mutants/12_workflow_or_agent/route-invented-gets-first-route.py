def route(client, model, message, routes, fallback):
    """The Route whose class name the model answered, or `fallback` for anything else."""
    classes = "\n".join(f"- {name}: {r.description}" for name, r in routes.items())
    label = ask(client, model, ROUTER_PROMPT.format(classes=classes), message)
    label = label.strip().removesuffix(".").strip().lower()
    return routes.get(label, next(iter(routes.values())))  # Mistake: an unknown class gets a real desk.
