def check_links(text, allowed_hosts):
    """The text with every link to a host outside allowed_hosts replaced by [link removed]."""
    allowed = {h.lower() for h in allowed_hosts}

    def keep_or_remove(match):
        link = match.group(0).lower()
        return match.group(0) if any(h in link for h in allowed) else "[link removed]"

    return re.sub(r"""https?://[^\s"'<>)]+""", keep_or_remove, text, flags=re.IGNORECASE)
