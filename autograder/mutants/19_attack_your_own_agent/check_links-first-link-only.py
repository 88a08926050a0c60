def check_links(text, allowed_hosts):
    """The text with every link to a host outside allowed_hosts replaced by [link removed]."""
    allowed = {h.lower() for h in allowed_hosts}

    def keep_or_remove(match):
        try:
            host = urllib.parse.urlsplit(match.group(0)).hostname
        except ValueError:
            host = None
        return match.group(0) if host is not None and host in allowed else "[link removed]"

    return re.sub(r"""https?://[^\s"'<>)]+""", keep_or_remove, text, count=1, flags=re.IGNORECASE)
