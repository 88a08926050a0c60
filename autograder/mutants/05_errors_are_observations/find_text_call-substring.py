def find_text_call(content, tool_names):
    """The tool a reply calls in its text instead of in tool_calls, or None."""
    if not isinstance(content, str) or "{" not in content:
        return None
    # Mistake: plain substring search; get_order is "found" inside get_orders or forget_order.
    found = [(content.find(n), n) for n in tool_names if n in content]
    return min(found)[1] if found else None
