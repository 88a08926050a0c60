"""A Messages API reply as the events Anthropic streams (`"stream": true`), built from the
non-streamed message so `messages.stream(...).get_final_message()` is what `create` returns.

    message_start        the message with `content: []`, `stop_reason: null`, the input usage and
                         `output_tokens: 1`
    per content block    `content_block_start` (text: `text: ""`; tool_use: `input: {}`), its
                         `content_block_delta`s (`text_delta` pieces; `input_json_delta` pieces of
                         the input's JSON, the first one `partial_json: ""`), `content_block_stop`;
                         `index` is the block's position in the final `content`
    ping                 once, after the first block starts
    message_delta        `stop_reason`, `stop_sequence`, and the usage (cumulative `output_tokens`)
    message_stop

Every event is framed `event: <type>` + `data: <json>` (the anthropic SDK drops an event without
its `event:` line); there is no [DONE]. Sources: docs/SOURCES.md, "Streaming".
"""

from __future__ import annotations

import json

from workbook.engine import stream_timing as timing


def events(message: dict, fragment: int | None, stop_after: int | None = None) -> list[tuple[int, dict]]:
    """(ms, event) for each event. `stop_after=N` keeps the first N delta pieces and ends with
    `stop_reason: "max_tokens"` (a reply cut at its token limit)."""
    usage = message["usage"]
    clock = timing.Schedule(timing.first_token_ms(usage))
    start = dict(message, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(usage, output_tokens=1))
    out: list[tuple[int, dict]] = [(clock.ms, {"type": "message_start", "message": start})]
    sent, cut = 0, False
    for i, block in enumerate(message["content"]):
        if cut:
            break
        if block["type"] == "tool_use":
            opening = dict(block, input={})
            text, delta = json.dumps(block["input"], ensure_ascii=False), "input_json_delta"
            parts = [""] + timing.pieces(text, fragment)
        else:
            opening, text, delta = dict(block, text=""), block.get("text", ""), "text_delta"
            parts = timing.pieces(text, fragment)
        out.append((clock.ms, {"type": "content_block_start", "index": i, "content_block": opening}))
        if i == 0:
            out.append((clock.ms, {"type": "ping"}))
        for p in parts:
            if stop_after is not None and sent >= stop_after:
                cut = True
                break
            clock.send(p)
            sent += bool(p)
            key = "partial_json" if delta == "input_json_delta" else "text"
            out.append((clock.ms, {"type": "content_block_delta", "index": i,
                                   "delta": {"type": delta, key: p}}))
        out.append((clock.ms, {"type": "content_block_stop", "index": i}))
    stop = {"stop_reason": "max_tokens" if cut else message["stop_reason"],
            "stop_sequence": None if cut else message["stop_sequence"]}
    output = timing.tokens_of(clock.chars) if cut else usage["output_tokens"]
    out.append((clock.ms, {"type": "message_delta", "delta": stop, "usage": {"output_tokens": output}}))
    out.append((clock.ms, {"type": "message_stop"}))
    return out


def frame(event: dict) -> bytes:
    """One SSE frame: the `event:` line with the event's type, its JSON, a blank line."""
    return b"event: " + event["type"].encode() + b"\ndata: " + timing.wire(event) + b"\n\n"


def frames(evs: list[tuple[int, dict]]) -> list[tuple[int, bytes]]:
    return [(ms, frame(e)) for ms, e in evs]


def characters(message: dict) -> int:
    """The characters a reply sends (its text, each tool's input JSON): what its time is made of."""
    return sum(len(b.get("text", "")) if b["type"] == "text" else len(json.dumps(b["input"], ensure_ascii=False))
               for b in message["content"])
