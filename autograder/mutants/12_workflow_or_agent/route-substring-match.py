def route(client, model, message, routes, fallback):
    """The Route whose class name the model answered, or `fallback` for anything else."""
    classes = "\n".join(f"- {name}: {r.description}" for name, r in routes.items())
    label = ask(client, model, ROUTER_PROMPT.format(classes=classes), message).strip().lower()
    for name, r in routes.items():  # Mistake: "urgent_refunds" contains "refunds", so it is trusted.
        if name in label:
            return r
    return fallback
