"""A Chat Completions reply as the stream of `chat.completion.chunk`s a provider sends
(`stream: true`), built from the non-streamed completion so both say the same thing.

    every chunk     the completion's `id`, `created`, `model`, `system_fingerprint`
    first chunk     `delta.role` "assistant" (only here), `content` "" for text, null for tool calls
    reasoning       DeepSeek `delta.reasoning_content`, Ollama `delta.reasoning`, before the content
    text            `delta.content` pieces
    tool calls      openai, deepseek: the first fragment `index`, `id`, `type`, `function.name` and
                    `arguments` "", later fragments only `index` and an `arguments` piece;
                    ollama: each call whole in one chunk
    finish          its own chunk, `delta: {}` and the `finish_reason`
    usage           with `stream_options.include_usage` only: a last chunk with `choices: []` and
                    the usage (the other chunks then carry `usage: null`)
    end             `data: [DONE]`

Each chunk comes with the milliseconds (after the request) at which the fake sends it: the
first one after `timing.first_token_ms`, then `timing.MS_PER_CHAR` per character sent. Sources:
docs/SOURCES.md, "Streaming".
"""

from __future__ import annotations

import json

from workbook.engine import stream_timing as timing

KEEP = ("id", "object", "created", "model", "system_fingerprint")


def _pieces(text: str, fragment: int | None) -> list[str]:
    return timing.pieces(text, fragment)


def chunks(completion: dict, dialect: str, fragment: int | None, include_usage: bool,
           stop_after: int | None = None) -> list[tuple[int, dict]]:
    """(ms, chunk) for each chunk of the stream, [DONE] not included. `stop_after=N` keeps only
    the first N content or argument pieces and finishes "length" (a stream cut at its token limit)."""
    head = {k: completion[k] for k in KEEP if k in completion} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    msg, finish = choice["message"], choice["finish_reason"]
    usage = completion.get("usage")
    clock = timing.Schedule(timing.first_token_ms(usage))
    out: list[tuple[int, dict]] = []
    sent = [0]

    def chunk(delta: dict, finish_reason=None) -> None:
        c = dict(head, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                 "finish_reason": finish_reason}])
        if include_usage:
            c["usage"] = None
        out.append((clock.ms, c))

    def room() -> bool:
        return stop_after is None or sent[0] < stop_after

    def piece(text: str) -> None:
        clock.send(text)
        sent[0] += 1

    tool_calls = msg.get("tool_calls") or []
    first: dict = {"role": "assistant", "content": None if tool_calls and not msg.get("content") else ""}
    if dialect == "openai":
        first["refusal"] = None
    chunk(first)
    for key in ("reasoning_content", "reasoning"):
        for p in _pieces(msg.get(key) or "", fragment):
            if not room():
                break
            piece(p)
            chunk({"content": None, key: p} if key == "reasoning_content" else {key: p})
    for p in _pieces(msg.get("content") or "", fragment):
        if not room():
            break
        piece(p)
        chunk({"content": p})
    for j, call in enumerate(tool_calls):
        if not room():
            break
        fn = call["function"]
        if dialect == "ollama":  # Ollama: the whole call in one chunk
            piece(fn["name"] + fn["arguments"])
            chunk({"tool_calls": [{"index": j, "id": call["id"], "type": "function",
                                   "function": {"name": fn["name"], "arguments": fn["arguments"]}}]})
            continue
        clock.send(fn["name"])
        chunk({"tool_calls": [{"index": j, "id": call["id"], "type": "function",
                               "function": {"name": fn["name"], "arguments": ""}}]})
        for p in _pieces(fn["arguments"], fragment):
            if not room():
                break
            piece(p)
            chunk({"tool_calls": [{"index": j, "function": {"arguments": p}}]})
    cut = stop_after is not None and sent[0] >= stop_after and sent[0] < _total(msg, fragment, dialect)
    chunk({}, "length" if cut else finish)
    if include_usage and usage is not None:
        if cut:
            done = clock.chars
            usage = dict(usage, completion_tokens=timing.tokens_of(done),
                         total_tokens=usage["prompt_tokens"] + timing.tokens_of(done))
        out.append((clock.ms, dict(head, choices=[], usage=usage)))
    return out


def _total(msg: dict, fragment: int | None, dialect: str) -> int:
    """How many pieces the whole reply is cut into."""
    n = sum(len(_pieces(msg.get(k) or "", fragment)) for k in ("reasoning_content", "reasoning", "content"))
    for call in msg.get("tool_calls") or []:
        n += 1 if dialect == "ollama" else len(_pieces(call["function"]["arguments"], fragment))
    return n


def frames(events: list[tuple[int, dict]]) -> list[tuple[int, bytes]]:
    """The SSE frames: `data: <json>` and a blank line each (no `event:` line), then [DONE]."""
    out = [(ms, b"data: " + timing.wire(c) + b"\n\n") for ms, c in events]
    return out + [(events[-1][0] if events else 0, b"data: [DONE]\n\n")]


def error_frame(body: dict) -> bytes:
    """An error after the 200: a `data:` line whose JSON has a top-level `error` (the openai SDK
    raises APIError for it)."""
    return b"data: " + json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace") + b"\n\n"
