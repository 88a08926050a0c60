"""Prefix caching: one published, deterministic rule, reported in each provider's usage shape.

The rule (docs/SOURCES.md, "Prompt caching", says what is the providers' and what is the fake's):

- Chat Completions (every dialect): a request's prefix text is the compact JSON of its `tools`
  (when it has any) followed by the compact JSON of each message, in order. The shared part is the
  longest common prefix, in characters, with the prefix text of any earlier request to the same
  fake; shared tokens = characters // 4. The cached tokens are `cache_rule(shared)`: nothing below
  1024 tokens, else rounded down to a multiple of 128 (capped at the prompt's tokens). A stable
  prefix (tools and system prompt first, unchanged) hits; a timestamp at the top of the system
  prompt makes every request differ from its first characters, so nothing is cached.
- Messages API: caching happens only at `cache_control` breakpoints. The blocks, in order, are the
  tools, the system blocks, then each message's content blocks (`cache_control` itself is not part
  of a block's text). Every breakpoint whose prefix reaches 1024 tokens is written to the cache.
  `cache_read_input_tokens` is the longest prefix, ending at a block boundary no later than the
  last breakpoint, that an earlier request wrote; `cache_creation_input_tokens` is the rest of
  the prefix up to the last breakpoint when that prefix was not cached yet; `input_tokens` is
  what is left (it excludes both).

Usage shapes: "openai" `prompt_tokens_details.cached_tokens` (part of prompt_tokens); "deepseek"
`prompt_cache_hit_tokens` + `prompt_cache_miss_tokens` = prompt_tokens; "ollama" none.
"""

from __future__ import annotations

import bisect
import hashlib
import os

from workbook.engine.tokens import compact, tokens

MINIMUM, BLOCK = 1024, 128


def cache_rule(shared_tokens: int) -> int:
    """Cached tokens for a shared prefix of this many tokens: 0 below 1024, else whole 128-blocks."""
    return 0 if shared_tokens < MINIMUM else shared_tokens // BLOCK * BLOCK


def prefix_text(messages: list[dict], tools) -> str:
    return (compact(tools) if tools else "") + "".join(compact(m) for m in messages)


class PrefixCache:
    """What one fake has seen, for both APIs."""

    def __init__(self):
        self._texts: list[str] = []  # Chat Completions prefix texts answered so far, sorted
        self._written: set[str] = set()  # Messages API: digests of the prefixes written

    def chat(self, messages: list[dict], tools, prompt: int) -> int:
        """Cached tokens of this Chat Completions request; remembers it for later ones."""
        text = prefix_text(messages, tools)
        # The longest prefix shared with any earlier text is shared with a neighbour in sort order.
        i = bisect.bisect_left(self._texts, text)
        shared = max((len(os.path.commonprefix([text, t])) for t in self._texts[max(i - 1, 0):i + 1]),
                     default=0)
        self._texts.insert(i, text)
        return min(cache_rule(shared // 4), prompt)

    def messages(self, body: dict, total: int) -> tuple[int, int]:
        """(cache_read_input_tokens, cache_creation_input_tokens) of a Messages request."""
        digest, upto, boundaries, marks = hashlib.sha256(), 0, [], []
        for block, marked in _blocks(body):
            digest.update(compact(block).encode("utf-8", "surrogatepass"))
            upto += tokens(block)
            boundaries.append((digest.hexdigest(), min(upto, total)))
            if marked:
                marks.append(len(boundaries) - 1)
        if not marks:
            return 0, 0
        last = marks[-1]
        read = max((n for key, n in boundaries[:last + 1] if key in self._written), default=0)
        key, size = boundaries[last]
        creation = size - read if key not in self._written and size >= MINIMUM else 0
        self._written.update(boundaries[i][0] for i in marks if boundaries[i][1] >= MINIMUM)
        return read, creation


def _blocks(body: dict):
    """(block without cache_control, whether it carried one) for tools, system, then messages."""
    def bare(block: dict) -> dict:
        return {k: v for k, v in block.items() if k != "cache_control"}

    for t in body.get("tools") or ():
        yield bare(t), "cache_control" in t
    system = body.get("system")
    for b in [{"type": "text", "text": system}] if isinstance(system, str) else system or ():
        yield bare(b), "cache_control" in b
    for m in body["messages"]:
        content = m["content"]
        for b in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            yield {"role": m["role"], **bare(b)}, "cache_control" in b


def chat_usage(dialect: str, prompt: int, cached: int) -> dict:
    """The cache fields of a Chat Completions usage, in the dialect's shape."""
    if dialect == "openai":
        return {"prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0}}
    if dialect == "deepseek":
        return {"prompt_cache_hit_tokens": cached, "prompt_cache_miss_tokens": prompt - cached}
    return {}
