"""The error bodies providers send, built in one place (the lowest layer: it imports nothing).

    OpenAI (and the Chat Completions dialects):  {"error": {"message", "type", "param", "code"}}
    Anthropic's Messages API:                    {"type": "error", "error": {"type", "message"}}

The shapes, with their sources, are listed in docs/SOURCES.md.
"""

from __future__ import annotations


def openai_error(message: str, type: str = "invalid_request_error", param: str | None = None,
                 code: str | None = None) -> dict:
    """An error as OpenAI shapes it; the fake's own 500 is `openai_error(text, "server_error")`."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def anthropic_error(message: str, type: str = "invalid_request_error") -> dict:
    """An error as Anthropic shapes it (its `type` is e.g. "api_error", "overloaded_error")."""
    return {"type": "error", "error": {"type": type, "message": message}}
