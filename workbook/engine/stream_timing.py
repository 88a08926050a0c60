"""The fake's clock for streamed replies, and how it cuts text into pieces.

The rule, so a student can predict every number: a reply's first token comes
`FIRST_TOKEN_MS` + 1 ms per prompt token after the request; after that each character sent costs
`MS_PER_CHAR` (4 characters are a token: 50 tokens a second). A streamed reply's chunks arrive
at those times; a reply that is not streamed arrives whole, when its last character is done.
Nothing sleeps: the times are read on `llm.clock`, which the faces move as the client reads.

Pieces: text is cut every `fragment` characters (None: one piece, a whole call per chunk).
"""

from __future__ import annotations

import json
import math

FIRST_TOKEN_MS = 200
MS_PER_PROMPT_TOKEN = 1
MS_PER_CHAR = 5


def first_token_ms(usage: dict | None) -> int:
    """When the first token leaves, in ms after the request: from the prompt's size."""
    usage = usage or {}
    prompt = usage.get("prompt_tokens")
    if prompt is None:
        prompt = sum(usage.get(k) or 0 for k in ("input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens"))
    return FIRST_TOKEN_MS + MS_PER_PROMPT_TOKEN * int(prompt)


def pieces(text: str, fragment: int | None) -> list[str]:
    """`text` cut every `fragment` characters; [] for no text; one piece when fragment is None."""
    if not text:
        return []
    if fragment is None:
        return [text]
    return [text[i:i + fragment] for i in range(0, len(text), fragment)]


def tokens_of(characters: int) -> int:
    return math.ceil(characters / 4)


def wire(body) -> bytes:
    """JSON as the wire carries it (UTF-8; a lone surrogate escaped again, as core.wire does)."""
    return json.dumps(body, ensure_ascii=False, default=str).encode("utf-8", "backslashreplace")


class Schedule:
    """The time of the next chunk of one reply: starts at its first token, moves per character."""

    def __init__(self, start_ms: int):
        self.ms, self.chars = start_ms, 0

    def send(self, text: str) -> None:
        self.ms += MS_PER_CHAR * len(text)
        self.chars += len(text)


def whole_ms(first_ms: int, characters: int) -> int:
    """When a reply that is not streamed arrives: its first token plus all its characters."""
    return first_ms + MS_PER_CHAR * characters


class Clock:
    """The fake provider's clock: `llm.clock()` is the time in seconds (it starts at 0). The faces
    move it as the client reads a reply; a test or a loop reads it like `time.monotonic`. A test
    hands a notebook `llm.clock.now`, a reader only: the notebook cannot move the clock."""

    def __init__(self):
        self.ms = 0

    def __call__(self) -> float:
        return self.ms / 1000

    def now(self) -> float:
        return self()

    def move_to(self, ms: int) -> None:
        self.ms = max(self.ms, ms)

    def advance(self, seconds: float) -> None:
        if not seconds >= 0:
            raise ValueError(f"a clock moves forward only; advance({seconds!r})")
        self.ms += round(seconds * 1000)

    def __repr__(self) -> str:
        return f"<fake clock at {self()} s>"
