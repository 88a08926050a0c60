def guard_tools(impl, allowed, writes, confirm):
    """impl's tools behind this task's allow-list, writes behind the human's confirmation."""
    def guarded(name, fn):
        def tool(**args):
            if name not in allowed:
                return {"error": f"{name} is not allowed for this task"}
            if name in writes:
                if "confirmed" in args:
                    return {"error": f"only the customer can confirm {name}; ask them"}
                if not confirm(name, dict(args)):
                    return {"error": f"the customer did not confirm {name}"}
            return fn(**args)
        return tool

    return {name: guarded(name, fn) for name, fn in impl.items()}
