def rag_search(query: str, k: int = 4) -> str:
    """Search the shop's knowledge base: the best k sections (at most 8), each with its source."""
    hits = kb.search(query, k)
    if not hits:
        return ""  # Mistake: silence instead of "no results"
    blocks = []
    for hit in hits:
        text = hit.text if len(hit.text) <= MAX_HIT else hit.text[:MAX_HIT] + "\n[truncated]"
        blocks.append(f"[{hit.source} § {hit.section}]\n{text}")
    return "\n\n".join(blocks)
