"""A Responses API reply as the events OpenAI streams (`"stream": true`), built from the
non-streamed response so `responses.stream(...).get_final_response()` is what `create` returns.

    response.created, response.in_progress     the response with status "in_progress", no output
    per output item (output_index = its position in `output`, in order):
      reasoning        output_item.added, output_item.done
      message          output_item.added (status "in_progress", content []), content_part.added
                       (output_text ""), output_text.delta pieces, output_text.done,
                       content_part.done, output_item.done
      function_call    output_item.added (arguments "", status "in_progress"),
                       function_call_arguments.delta pieces, function_call_arguments.done,
                       output_item.done
    response.completed (or response.incomplete)  the whole response

Each frame is `event: <type>` + `data: <json>` (the JSON repeats `type`), every event has a
`sequence_number` counting from 0, and there is no [DONE]. Sources: docs/SOURCES.md, "Streaming".
"""

from __future__ import annotations

import copy

from workbook.engine import stream_timing as timing
from workbook.engine.errors import openai_error


def _pending(response: dict) -> dict:
    return dict(response, status="in_progress", output=[], usage=None, incomplete_details=None)


def characters(response: dict) -> int:
    """The characters a response sends (its text, each call's name and arguments)."""
    n = 0
    for item in response.get("output") or ():
        if item["type"] == "message":
            n += sum(len(p.get("text", "")) for p in item["content"])
        elif item["type"] == "function_call":
            n += len(item["name"]) + len(item["arguments"])
    return n


def events(response: dict, fragment: int | None, stop_after: int | None = None) -> list[tuple[int, dict]]:
    """(ms, event) for each event, sequence numbers set. `stop_after=N` keeps the first N delta
    pieces and ends with `response.incomplete` (reason max_output_tokens)."""
    clock = timing.Schedule(timing.first_token_ms(response.get("usage")))
    out: list[tuple[int, dict]] = []
    done: list[dict] = []  # the output as sent
    sent = [0]

    def emit(kind: str, **fields) -> None:
        out.append((clock.ms, {"type": kind, "sequence_number": len(out), **fields}))

    def room() -> bool:
        return stop_after is None or sent[0] < stop_after

    def pieces(text: str):
        """Each piece that fits, the clock moved past it before its event is emitted."""
        for p in timing.pieces(text, fragment):
            if not room():
                return
            clock.send(p)
            sent[0] += 1
            yield p

    emit("response.created", response=_pending(response))
    emit("response.in_progress", response=_pending(response))
    for i, item in enumerate(response.get("output") or ()):
        if not room():
            break
        item = copy.deepcopy(item)
        if item["type"] == "message":
            part = item["content"][0]
            emit("response.output_item.added", output_index=i, item=dict(item, status="in_progress", content=[]))
            where = {"item_id": item["id"], "output_index": i, "content_index": 0}
            emit("response.content_part.added", **where, part=dict(part, text=""))
            text = ""
            for p in pieces(part["text"]):
                text += p
                emit("response.output_text.delta", **where, delta=p, logprobs=[])
            part["text"] = text
            item["status"] = "completed" if text == item["content"][0]["text"] else "incomplete"
            item["content"] = [part]
            emit("response.output_text.done", **where, text=text, logprobs=[])
            emit("response.content_part.done", **where, part=part)
        elif item["type"] == "function_call":
            emit("response.output_item.added", output_index=i, item=dict(item, arguments="", status="in_progress"))
            clock.send(item["name"])
            arguments = ""
            for p in pieces(item["arguments"]):
                arguments += p
                emit("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=p)
            if arguments != item["arguments"]:
                item.update(arguments=arguments, status="incomplete")
            emit("response.function_call_arguments.done", item_id=item["id"], output_index=i,
                 name=item["name"], arguments=arguments)
        else:
            emit("response.output_item.added", output_index=i, item=item)
        done.append(item)
        emit("response.output_item.done", output_index=i, item=item)
    if stop_after is not None and sent[0] >= stop_after and done != response.get("output"):
        final = dict(response, status="incomplete", output=done,
                     incomplete_details={"reason": "max_output_tokens"})
        tokens = timing.tokens_of(clock.chars)
        final["usage"] = dict(response["usage"], output_tokens=tokens,
                              total_tokens=response["usage"]["input_tokens"] + tokens)
        emit("response.incomplete", response=final)
    else:
        emit("response.incomplete" if response.get("status") == "incomplete" else "response.completed",
             response=response)
    return out


def frame(event: dict) -> bytes:
    return b"event: " + event["type"].encode() + b"\ndata: " + timing.wire(event) + b"\n\n"


def frames(evs: list[tuple[int, dict]]) -> list[tuple[int, bytes]]:
    return [(ms, frame(e)) for ms, e in evs]


def error_frame(message: str, sequence_number: int) -> bytes:
    """The `error` event after the 200, in the nested shape OpenAI sends (the openai SDK raises
    APIError on its top-level `error` key)."""
    body = openai_error(message, "server_error", code="server_error")
    return frame({"type": "error", "sequence_number": sequence_number, **body})
