def find_text_call(content, tool_names):
    """The tool a reply calls in its text instead of in tool_calls, or None."""
    # Mistake: no brace needed, so an answer that mentions a tool in prose counts as a call.
    if not isinstance(content, str):
        return None
    found = [(m.start(), n) for n in tool_names
             if (m := re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", content))]
    return min(found)[1] if found else None
