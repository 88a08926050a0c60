def recall(db, customer, query, today, k=3):
    """This customer's k facts that best match the query, each with its date and age."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"the query {query!r:.40} is empty: send a few words to look for")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 10:
        raise ValueError(f"k must be a whole number from 1 to 10, got {k!r:.20}")
    found = db.execute("SELECT id, day, fact FROM facts WHERE customer = ?", (customer,)).fetchall()
    scores = kb.bm25(query, [fact for _, _, fact in found])
    ranked = [(score, day, id_, fact) for (id_, day, fact), score in zip(found, scores, strict=True) if score > 0]
    ranked.sort(reverse=True)  # best score first; equal scores: the newer day, then the newer row
    return [{"date": day, "days_ago": (datetime.date.today() - datetime.date.fromisoformat(day)).days, "fact": fact}
            for _, day, _, fact in ranked[:k]]
