"""The fake's token rule, deterministic and documented so students can predict it.

A message costs ceil(len(compact JSON of the message) / 4) + 3 tokens; the tool definitions cost
ceil(len(compact JSON of tools) / 4); every prompt adds 3 for priming the reply. A reply's
completion tokens are ceil(len(compact JSON of its content, tool calls and reasoning) / 4). So each
step's prompt repeats the whole history, and cost grows with it. The Messages API face counts the
same way (`system` and each message as above); its usage says input_tokens and output_tokens.
"""

from __future__ import annotations

import json
import math


def compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


MESSAGE_OVERHEAD = 3  # tokens every message costs on top of its text


def text_tokens(characters: int) -> int:
    """Tokens of that many characters of compact JSON: one per 4, rounded up."""
    return math.ceil(characters / 4)


def tokens(obj) -> int:
    """Token estimate of any JSON-able object: one token per 4 characters, rounded up."""
    return text_tokens(len(compact(obj)))


def message_tokens(m: dict) -> int:
    return tokens(m) + MESSAGE_OVERHEAD


def prompt_tokens(messages: list[dict], tools) -> int:
    return sum(message_tokens(m) for m in messages) + (tokens(tools) if tools else 0) + 3
