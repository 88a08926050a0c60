"""Chat Completions messages in the GenAI conventions' shape and back: the value of
`gen_ai.input.messages` and `gen_ai.output.messages` is a list of {"role", "parts"}, each part typed
(`text`, `tool_call`, `tool_call_response`, `reasoning`; docs/SOURCES.md, "OpenTelemetry GenAI traces")."""

from __future__ import annotations


def to_parts(messages: list[dict]) -> list[dict]:
    """Chat Completions messages in the conventions' shape: a role and a list of typed parts."""
    out = []
    for m in messages:
        parts = []
        if m.get("role") == "tool":
            parts.append({"type": "tool_call_response", "id": m.get("tool_call_id"), "response": m.get("content")})
        elif "content" in m:  # kept even when null: a message without the key comes back without it
            parts.append({"type": "text", "content": m["content"]})
        if m.get("reasoning_content") is not None:  # DeepSeek's thinking, a part of its own
            parts.append({"type": "reasoning", "content": m["reasoning_content"]})
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            parts.append({"type": "tool_call", "id": c.get("id"), "name": fn.get("name"),
                          "arguments": fn.get("arguments")})
        out.append({"role": m.get("role"), "parts": parts})
    return out


def from_parts(messages: list[dict]) -> list[dict]:
    """The conventions' messages back as Chat Completions messages (to_parts undone)."""
    out = []
    for m in messages:
        parts = m.get("parts") or []
        if m.get("role") == "tool" and parts and parts[0].get("type") == "tool_call_response":
            out.append({"role": "tool", "tool_call_id": parts[0].get("id"), "content": parts[0].get("response")})
            continue
        msg = {"role": m.get("role")}
        texts = [p.get("content") for p in parts if p.get("type") == "text"]
        thinking = [p.get("content") for p in parts if p.get("type") == "reasoning"]
        calls = [{"id": p.get("id"), "type": "function",
                  "function": {"name": p.get("name"), "arguments": p.get("arguments")}}
                 for p in parts if p.get("type") == "tool_call"]
        if texts:
            msg["content"] = texts[0]
        if thinking:
            msg["reasoning_content"] = thinking[0]
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out
