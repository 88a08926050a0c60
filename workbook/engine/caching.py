"""Prefix caching: one published, deterministic rule, reported in each provider's usage shape.

The rule (docs/SOURCES.md, "Prompt caching", says what is the providers' and what is the fake's):

- Chat Completions (every dialect): a request's prefix text is the compact JSON of its `tools`
  (when it has any) followed by the compact JSON of each message, in order. The shared part is the
  longest common prefix, in characters, with the prefix text of any earlier request the same fake
  answered (a refused, failed or timed-out one leaves nothing); shared tokens = characters // 4. The cached tokens are `cache_rule(shared)`: nothing below
  1024 tokens, else rounded down to a multiple of 128 (capped at the prompt's tokens). A stable
  prefix (tools and system prompt first, unchanged) hits; a timestamp at the top of the system
  prompt makes every request differ from its first characters, so nothing is cached.
- Messages API: caching happens only at `cache_control` breakpoints: the ones marked on blocks,
  and, when the request has a top-level `cache_control` (Anthropic's automatic caching), its last
  block. The blocks, in order, are the tools, the system blocks, then each message's content
  blocks (`cache_control` itself is not part of a block's text and costs no tokens). A prefix is
  counted as the prompt is, so the prefix through a message's last block is the prompt up to
  there. Every breakpoint whose prefix reaches the model's minimum cacheable length (`minimum`:
  4096 tokens on claude-haiku-4-5, 1024 on claude-sonnet-4-5 and on a name the table does not
  know) is written to the cache. Each model has a cache of its own (a prefix one model wrote is
  not read by another).
  `cache_read_input_tokens` is the longest prefix, ending at a block boundary no later than the
  last breakpoint, that an earlier request wrote; `cache_creation_input_tokens` is the rest of
  the prefix up to the last breakpoint when that prefix was not cached yet, reported by its TTL
  in `cache_creation` (`ephemeral_1h_input_tokens` when the last breakpoint says `"ttl": "1h"`,
  else `ephemeral_5m_input_tokens`); `input_tokens` is what is left (it excludes both).

Usage shapes: "openai" `prompt_tokens_details.cached_tokens` (part of prompt_tokens); "deepseek"
`prompt_cache_hit_tokens` + `prompt_cache_miss_tokens` = prompt_tokens; "ollama" none.
"""

from __future__ import annotations

import bisect
import hashlib

from workbook.engine.messages_api import bare, is_breakpoint
from workbook.engine.tokens import MESSAGE_OVERHEAD, compact, message_tokens, text_tokens, tokens

MINIMUM, BLOCK = 1024, 128
# Anthropic's minimum cacheable prompt length per model (docs/SOURCES.md, "Prompt caching"); the
# first prefix that starts a model's name wins, and a name none starts is cached from MINIMUM.
MESSAGES_MINIMUMS = (("claude-haiku-4-5", 4096), ("claude-opus-4-5", 4096), ("claude-opus-4-6", 4096),
                     ("claude-opus-4-7", 4096), ("claude-opus-4-8", 1024), ("claude-haiku-3", 2048), ("claude-3-haiku", 2048),
                     ("claude-3-5-haiku", 2048), ("claude-sonnet-4-5", 1024), ("claude-opus-4-1", 1024),
                     ("claude-opus-4", 1024), ("claude-sonnet-4", 1024))


def minimum(model) -> int:
    """The minimum cacheable prefix, in tokens, of an Anthropic model name."""
    name = str(model)
    return next((n for prefix, n in MESSAGES_MINIMUMS if name.startswith(prefix)), MINIMUM)


def cache_rule(shared_tokens: int) -> int:
    """Cached tokens for a shared prefix of this many tokens: 0 below 1024, else whole 128-blocks."""
    return 0 if shared_tokens < MINIMUM else shared_tokens // BLOCK * BLOCK


def prefix_text(messages: list[dict], tools) -> str:
    return (compact(tools) if tools else "") + "".join(compact(m) for m in messages)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, by binary search on slices (compared in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


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
        shared = max((common_prefix(text, t) for t in self._texts[max(i - 1, 0):i + 1]), default=0)
        self._texts.insert(i, text)
        return min(cache_rule(shared // 4), prompt)

    def messages(self, body: dict) -> tuple[int, int, str]:
        """(cache_read_input_tokens, cache_creation_input_tokens, the TTL of that write: "5m" or
        "1h") of a Messages request."""
        boundaries = list(_boundaries(body))
        if body.get("cache_control") and boundaries:  # automatic caching: the last block is marked
            key, size, _, _ = boundaries[-1]
            boundaries[-1] = (key, size, True, _ttl(body["cache_control"]))
        marks = [i for i, (_, _, marked, _) in enumerate(boundaries) if marked]
        if not marks:
            return 0, 0, "5m"
        floor = minimum(body.get("model"))
        last = marks[-1]
        read = max((n for key, n, _, _ in boundaries[:last + 1] if key in self._written), default=0)
        key, size, _, ttl = boundaries[last]
        creation = size - read if key not in self._written and size >= floor else 0
        self._written.update(boundaries[i][0] for i in marks if boundaries[i][1] >= floor)
        return read, creation, ttl


def _ttl(mark) -> str:
    return "1h" if isinstance(mark, dict) and mark.get("ttl") == "1h" else "5m"


def _boundaries(body: dict):
    """(digest of the prefix, its tokens, whether a breakpoint ends it, that breakpoint's TTL) at the
    end of every block:
    the tools, the system blocks, then each message's content blocks. Tokens are counted as the
    prompt is (workbook.engine.tokens), so the prefix through a message's last block is exactly
    the prompt up to that message, and a breakpoint adds nothing."""
    digest = hashlib.sha256(str(body.get("model")).encode("utf-8", "surrogatepass"))  # a cache per model

    def step(block) -> str:
        digest.update(compact(block).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    tools = [bare(t) for t in body.get("tools") or ()]
    for k, t in enumerate(body.get("tools") or ()):
        yield step(tools[k]), tokens(tools[:k + 1]), is_breakpoint(t), _ttl(t.get("cache_control"))
    base = tokens(tools) if tools else 0
    system = [{"role": "system", "content": body["system"]}] if body.get("system") else []
    for m in system + body["messages"]:
        role, content = m["role"], m["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        clean = content if isinstance(content, str) else [bare(b) for b in parts]
        whole = message_tokens(dict(m, content=clean))  # as the prompt counts it
        sizes = [len(compact(bare(b))) for b in parts]
        frame = len(compact({"content": [], "role": role}))  # the message without its blocks
        done = 0
        for j, b in enumerate(parts):
            done += sizes[j]
            partial = whole if j == len(parts) - 1 else text_tokens(frame + done + j) + MESSAGE_OVERHEAD
            yield step({"role": role, **bare(b)}), base + partial, is_breakpoint(b), _ttl(b.get("cache_control"))
        base += whole


def chat_usage(dialect: str, prompt: int, cached: int) -> dict:
    """The cache fields of a Chat Completions usage, in the dialect's shape."""
    if dialect == "openai":
        return {"prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0}}
    if dialect == "deepseek":
        return {"prompt_cache_hit_tokens": cached, "prompt_cache_miss_tokens": prompt - cached}
    return {}
