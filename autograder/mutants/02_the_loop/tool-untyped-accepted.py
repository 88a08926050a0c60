def tool(confirm=False, registry=None):
    """`@tool()` or `@tool(confirm=True)`: register a documented, typed function as a tool."""
    registry = TOOLS if registry is None else registry

    def register(fn):
        # Mistake: a parameter without a type is accepted as "anything", so run_tool cannot check it.
        description = inspect.getdoc(fn) or ""
        hints = typing.get_type_hints(fn)
        params = {p: hints.get(p, object) for p in inspect.signature(fn).parameters}
        registry[fn.__name__] = ToolSpec(fn.__name__, fn, description, params, confirm)
        return fn

    return register
