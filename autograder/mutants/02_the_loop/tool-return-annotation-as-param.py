def tool(confirm=False, registry=None):
    """`@tool()` or `@tool(confirm=True)`: register a documented, typed function as a tool."""
    registry = TOOLS if registry is None else registry

    def register(fn):
        # Mistake: get_type_hints also holds the return type, under "return".
        description = inspect.getdoc(fn)
        if not description:
            raise TypeError(f"tool {fn.__name__!r} needs a docstring: it is what the model reads")
        for p in inspect.signature(fn).parameters:
            if p not in typing.get_type_hints(fn):
                raise TypeError(f"parameter {p!r} of tool {fn.__name__!r} needs a type annotation")
        params = dict(typing.get_type_hints(fn))
        registry[fn.__name__] = ToolSpec(fn.__name__, fn, description, params, confirm)
        return fn

    return register
