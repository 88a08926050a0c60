def guard_tools(impl, allowed, writes, confirm):
    """impl's tools behind this task's allow-list, writes behind the human's confirmation."""
    def guarded(name, fn):
        def tool(**args):
            if name not in allowed:
                return {"error": f"{name} is not allowed for this task"}
            if name in writes:
                if args.pop("confirmed", False) is True:
                    return fn(**args)
                if confirm(name, dict(args)) is not True:
                    return {"error": f"the customer did not confirm {name}"}
            return fn(**args)
        return tool

    return {name: guarded(name, fn) for name, fn in impl.items()}
