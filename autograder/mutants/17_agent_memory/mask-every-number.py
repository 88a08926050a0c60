def mask(text):
    """The text with card numbers, e-mails and API keys replaced by [card], [email] and [key]."""
    if not isinstance(text, str):
        raise TypeError(f"mask needs text (a str), got {type(text).__name__}")
    text = re.sub(r"\bsk-[A-Za-z0-9_-]{16,}", "[key]", text)
    text = re.sub(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", "[email]", text)
    return re.sub(r"\d[\d -]*\d", "[card]", text)
