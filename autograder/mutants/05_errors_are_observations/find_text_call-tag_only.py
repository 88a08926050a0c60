def find_text_call(content, tool_names):
    """The tool a reply calls in its text instead of in tool_calls, or None."""
    # Mistake: only Qwen-style <tool_call> tags are recognised; plain JSON or name(...) slip through.
    if not isinstance(content, str) or "<tool_call>" not in content:
        return None
    found = [(m.start(), n) for n in tool_names
             if (m := re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", content))]
    return min(found)[1] if found else None
