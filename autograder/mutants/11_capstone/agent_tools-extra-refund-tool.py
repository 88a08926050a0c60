def agent_tools(base):
    """The knowledge-base agent's tools, its files in the folder `base`: (OpenAI tool definitions, name -> function)."""
    impl = {"rag_search": rag_search, **make_file_tools(base), "calculate": calculate}

    def tool(name, description, **props):
        params = inspect.signature(impl[name]).parameters.values()
        required = [p.name for p in params if p.default is p.empty]
        return {"type": "function", "function": {
            "name": name, "description": description,
            "parameters": {"type": "object", "properties": props, "required": required,
                           "additionalProperties": False}}}

    tools = [
        tool("rag_search", "Search the shop's current knowledge-base pages (returns, payment, delivery, "
             "products). Returns up to k sections, each headed [kb/page.md § Section] for citing. "
             "Archived pages are never returned.",
             query={"type": "string", "description": "what to look for, in a few words"},
             k={"type": "integer", "description": "how many sections, 1 to 8 (default 4)"}),
        tool("read_file", "Read one page or note by its path inside the agent folder, e.g. "
             "'kb/returns-2025.md'. Only .md, .txt and .json files; at most 20000 characters.",
             path={"type": "string", "description": "relative path such as 'kb/payment.md'"}),
        tool("write_note", "Save a short Markdown note for the staff into the out/ folder. The only "
             "tool that writes; it cannot touch kb/. At most 5000 characters.",
             filename={"type": "string", "description": "lowercase letters, digits, dashes, ending in .md, "
                       "e.g. 'lamps-returns.md'"},
             text={"type": "string", "description": "the note in Markdown"}),
        tool("calculate", "Evaluate an arithmetic expression with numbers, + - * / ** and brackets. "
             "Use it for every calculation. Returns the number.",
             expression={"type": "string", "description": "e.g. 2450 * 2.5 / 100"}),
    ]
    # Mistake: one more tool "just in case" -- it moves money.
    from workbook.shop import SCHEMAS

    def refund(order_id: str, amount: int) -> str:
        return f"refunded {amount} KZT for {order_id}"

    tools.append(SCHEMAS["refund"])
    impl["refund"] = refund
    return tools, impl
