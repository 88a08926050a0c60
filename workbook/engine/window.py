"""The context window: how big it is, and what each provider does with a request that outgrows it.

A cloud API refuses it with a 400 in its own words; Ollama cuts the conversation silently. The
texts and their sources are in docs/SOURCES.md ("Context window and overflow").

    requested = prompt tokens + (max_completion_tokens or max_tokens or 0)

A number given to FakeLLM(context_window=...) applies to every face and dialect; None means the
provider's default below.
"""

from __future__ import annotations

from workbook.engine.protocol import ProtocolError
from workbook.engine.tokens import message_tokens, tokens

# Defaults when FakeLLM is given no context_window: gpt-4o-mini's 128k, DeepSeek's 1M (its V4
# models' 400 names 1048576), Ollama's 4k (below 24 GiB of VRAM), and Claude's 200k.
WINDOWS = {"openai": 128_000, "deepseek": 1_048_576, "ollama": 4096, "messages": 200_000}

OPENAI_MESSAGES = ("This model's maximum context length is {window} tokens. However, your messages "
                   "resulted in {prompt} tokens. Please reduce the length of the messages.")
REQUESTED = ("This model's maximum context length is {window} tokens. However, you requested "
             "{total} tokens ({prompt} in the messages, {completion} in the completion). Please "
             "reduce the length of the messages or completion.")
ANTHROPIC_PROMPT = "prompt is too long: {prompt} tokens > {window} maximum"
ANTHROPIC_TOTAL = ("input length and `max_tokens` exceed context limit: {prompt} + {completion} > "
                   "{window}, decrease input length or `max_tokens` and try again")


def window_for(context_window: int | None, api: str) -> int:
    """The window in force: the one given, else the default of `api` (a dialect or "messages")."""
    return WINDOWS[api] if context_window is None else context_window


def _completion(body: dict) -> int:
    """The completion tokens asked for; the request rules have already refused a bad value."""
    return body.get("max_completion_tokens") or body.get("max_tokens") or 0


def check_chat(body: dict, prompt: int, dialect: str, window: int) -> None:
    """A cloud dialect's 400 for a request over the window (Ollama never refuses: see cut)."""
    if dialect == "ollama":
        return
    completion = _completion(body)
    if prompt + completion <= window:
        return
    if dialect == "deepseek":
        raise ProtocolError(REQUESTED.format(window=window, total=prompt + completion,
                                             prompt=prompt, completion=completion),
                            param=None, code="invalid_request_error")
    text = REQUESTED if completion else OPENAI_MESSAGES
    raise ProtocolError(text.format(window=window, total=prompt + completion, prompt=prompt,
                                    completion=completion),
                        param="messages", code="context_length_exceeded")


def check_messages(body: dict, prompt: int, window: int) -> None:
    """Anthropic's 400 for a Messages request over the window (its only field is max_tokens)."""
    completion = body["max_tokens"]
    if prompt > window:
        raise ProtocolError(ANTHROPIC_PROMPT.format(prompt=prompt, window=window))
    if prompt + completion > window:
        raise ProtocolError(ANTHROPIC_TOTAL.format(prompt=prompt, completion=completion,
                                                   window=window))


def ollama_cut(messages: list[dict], tools, window: int) -> list[dict]:
    """What Ollama's chat path keeps when a conversation outgrows the context window.

    Like `chatPrompt` in ollama's server/prompt.go: drop whole messages from the front, oldest
    first, but always keep every system message and the latest message; the first cut that fits
    wins, and if none does, the system messages and the latest message are kept anyway. No error
    reaches the caller (see docs/SOURCES.md).
    """
    cost = [message_tokens(m) for m in messages]
    fixed = (tokens(tools) if tools else 0) + 3  # as in prompt_tokens
    start, systems, rest = 0, 0, sum(cost)
    while start < len(messages) - 1 and fixed + systems + rest > window:
        if messages[start].get("role") == "system":
            systems += cost[start]
        rest -= cost[start]
        start += 1
    return [m for m in messages[:start] if m.get("role") == "system"] + messages[start:]
