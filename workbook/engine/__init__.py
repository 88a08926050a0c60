"""The fake provider's machinery: turn and reply types, the engine, the request rules, the faces.

Layers, each importing only the ones before it (docs/DESIGN.md, "Layering"; checked by
tests/test_layering.py):

    errors, tokens      the providers' error bodies; the token rule (compact JSON, 4 chars a token)
    reading             how a scenario reads a tool result's fields, as tolerant as a model
    replies, turns      what a scenario returns and what it reads
    failures            the fake's own 500 when a scenario cannot go on, in the student's terms
    protocol, messages_api, responses_tools, responses_items, reasoning, strict      the request rules: Chat Completions, Anthropic's Messages API, OpenAI's Responses tools and items, reasoning models, strict tool schemas (refused when strict mode cannot enforce them, calls fitted to them)
    window, caching     the context window (each provider's overflow) and the prefix-cache rule
    core, responses_api     the engine (dialects, one request in, one out); the Responses API on it
    stream_timing       the fake's clock for streamed replies, and how text is cut into pieces
    stream_chat, stream_messages, stream_responses      a reply as the events each API streams (SSE)
    streaming           stream plans, faults mid-stream, delivering a stream on a face
    function_face, client_face, server      the faces (client_face: openai and anthropic clients)
    workbook.scenarios  the named scenarios (above this package)
    workbook.fake_llm   the public face: FakeLLM, which also takes a scenario's name

This file imports nothing, so loading one layer does not load the ones above it.
"""
