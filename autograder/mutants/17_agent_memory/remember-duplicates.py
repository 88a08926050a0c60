def remember(db, customer, fact, today, max_facts=MAX_FACTS):
    """Write one masked, dated fact for this customer; keep only their max_facts newest."""
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError(f"the fact {fact!r:.40} is empty: send one short sentence to remember")
    text = mask(fact).strip()
    if len(text) > MAX_FACT_CHARS:
        raise ValueError(f"the fact is {len(text)} characters long; remember one short sentence "
                         f"(at most {MAX_FACT_CHARS}), not a transcript")
    day = today.isoformat()
    db.execute("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)", (customer, day, text))
    db.execute("DELETE FROM facts WHERE customer = ? AND id NOT IN (SELECT id FROM facts WHERE "
               "customer = ? ORDER BY day DESC, id DESC LIMIT ?)", (customer, customer, max_facts))
    db.commit()
    return {"remembered": text, "date": day}
