def memory_tools(db, customer, clock):
    """The impl of remember / recall / forget for one session: customer and clock bound in."""
    def remember_tool(fact):
        return remember(db, customer, fact, clock())

    def recall_tool(query):
        return recall(db, customer, query, clock())

    def forget_tool(query):
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"the query {query!r:.40} is empty: say what to forget")
        found = db.execute("SELECT id, fact FROM facts WHERE customer = ?", (customer,)).fetchall()
        scores = kb.bm25(query, [fact for _, fact in found])
        gone = [(id_,) for id_, _ in found]  # everything this customer said
        db.executemany("DELETE FROM facts WHERE id = ?", gone)
        db.commit()
        return {"forgotten": len(gone)}

    return {"remember": remember_tool, "recall": recall_tool, "forget": forget_tool}
