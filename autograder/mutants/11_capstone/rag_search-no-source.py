def rag_search(query: str, k: int = 4) -> str:
    """Search the shop's knowledge base: the best k sections (at most 8), each with its source."""
    hits = kb.search(query, k)
    if not hits:
        return f"No results for {query!r} in the knowledge base."
    blocks = []
    for hit in hits:
        text = hit.text if len(hit.text) <= MAX_HIT else hit.text[:MAX_HIT] + "\n[truncated]"
        blocks.append(f"[{hit.section}]\n{text}")  # Mistake: no source, nothing to cite
    return "\n\n".join(blocks)
