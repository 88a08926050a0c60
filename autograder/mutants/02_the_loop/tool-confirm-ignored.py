def tool(confirm=False, registry=None):
    """`@tool()` or `@tool(confirm=True)`: register a documented, typed function as a tool."""
    registry = TOOLS if registry is None else registry

    def register(fn):
        # Mistake: the confirmation flag is never stored, so every tool runs without a yes.
        description = inspect.getdoc(fn)
        if not description:
            raise TypeError(f"tool {fn.__name__!r} needs a docstring: it is what the model reads")
        hints = typing.get_type_hints(fn)
        params = {}
        for p in inspect.signature(fn).parameters:
            if p not in hints:
                raise TypeError(f"parameter {p!r} of tool {fn.__name__!r} needs a type annotation")
            params[p] = hints[p]
        registry[fn.__name__] = ToolSpec(fn.__name__, fn, description, params)
        return fn

    return register
