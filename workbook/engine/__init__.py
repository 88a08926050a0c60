"""The fake provider's machinery: turn and reply types, the engine, the request rules, the faces.

Layers, each importing only the ones before it (see DESIGN, "Layering"):

    replies, turns      what a scenario returns and what it reads
    protocol, core      the request rules and the engine (tokens, dialects, one request in, one out)
    function_face, client_face, server      the three faces
    workbook.scenarios  the named scenarios (above this package)
    workbook.fake_llm   the public face: FakeLLM, which also takes a scenario's name

This file imports nothing, so loading one layer does not load the ones above it.
"""
