def find_text_call(content, tool_names):
    """The tool a reply calls in its text instead of in tool_calls, or None."""
    # Mistake: any brace counts as a call, even in an answer that names no tool.
    if not isinstance(content, str) or "{" not in content or not tool_names:
        return None
    found = [(content.find(n), n) for n in tool_names if n in content]
    return min(found)[1] if found else tool_names[0]
