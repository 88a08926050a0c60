def rag_search(query: str, k: int = 4) -> str:
    """Search the shop's knowledge base: the best k sections (at most 8), each with its source."""
    hits = kb.search(query, k)
    if not hits:
        return f"No results for {query!r} in the knowledge base."
    blocks = []
    for hit in hits:
        text = hit.text[:MAX_HIT]  # Mistake: cut without saying so
        blocks.append(f"[{hit.source} § {hit.section}]\n{text}")
    return "\n\n".join(blocks)
