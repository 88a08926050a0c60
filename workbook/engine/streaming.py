"""Streaming on the fake's faces: a request with `"stream": true` gets its reply as server-sent
events, in-process (`llm.client()`, `llm.anthropic_client()`) and over HTTP (`llm.serve()`).

The engine answers as for any request (so `llm.requests` records it, and a 4xx or 5xx is a JSON
error before any event, as providers send it); a 200 is then cut into events by `stream_chat`
or `stream_messages`. How it is cut and how it ends is the scenario's stream plan
(`workbook.scenarios.streamed`): `StreamPlan(fragment=4)` by default, or, for the n-th streamed
request, a fault mid-stream:

    cut_after=N         N events, then the connection closes mid-body (the SDK raises a
                        connection error while iterating)
    error_after=N       N events, then an error event after the 200 (Anthropic: `event: error`,
                        overloaded_error; Chat Completions: a `data:` line with an `error` object)
    stall_after=N       N events, then nothing: the client's read timeout fires
    incomplete_after=N  N content pieces, then the reply ends at its token limit ("length",
                        "max_tokens")
    read_bytes=K        the body reaches the client in reads of K bytes (splitting frames and
                        UTF-8 sequences), whatever the plan

A request that asks for a stream in a way no provider accepts gets a clear 400, never an empty
stream. Times are on `llm.clock` (stream_timing).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from workbook.engine import stream_chat, stream_messages, stream_responses
from workbook.engine import stream_timing as timing
from workbook.engine.errors import anthropic_error, openai_error
from workbook.engine.messages_api import OVERLOADED
from workbook.engine.protocol import ProtocolError, json_kind

STREAM_OPTIONS_ALONE = "The 'stream_options' parameter is only allowed when 'stream' is enabled."
CHAT_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"
CUT = "peer closed connection without sending complete message body (incomplete chunked read)"
STALL = "timed out"
HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}


@dataclass(frozen=True)
class StreamPlan:
    """How one streamed reply is cut and how it ends (see the module docstring)."""

    fragment: int | None = 4
    cut_after: int | None = None
    error_after: int | None = None
    stall_after: int | None = None
    incomplete_after: int | None = None
    read_bytes: int | None = None

    def __post_init__(self):
        for name in ("fragment", "cut_after", "error_after", "stall_after", "incomplete_after", "read_bytes"):
            v = getattr(self, name)
            low = 1 if name in ("fragment", "read_bytes") else 0
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < low):
                raise ValueError(f"StreamPlan.{name} must be a whole number >= {low} or None, got {v!r}")
        faults = [n for n in ("cut_after", "error_after", "stall_after") if getattr(self, n) is not None]
        if len(faults) > 1:
            raise ValueError(f"StreamPlan: one way to end at a time, got {' and '.join(faults)}")


class StreamState:
    """What one fake provider keeps about streaming: its clock and the streams it served."""

    def __init__(self):
        self.clock = timing.Clock()
        self.served = 0
        self.deliveries: list[Delivery] = []  # each stream: .sent frames, .status how it ended


def state_of(llm) -> StreamState:
    state = getattr(llm, "stream_state", None)
    if state is None:  # a stand-in provider made without FakeLLM.__init__
        state = llm.stream_state = StreamState()
    return state


def plan_for(scenario, n: int) -> StreamPlan:
    """The plan of the n-th streamed request (from 0): the scenario's `stream_plans[n]`, else its
    default (`stream_fragment` pieces, no fault)."""
    plans = tuple(getattr(scenario, "stream_plans", ()) or ())
    if n < len(plans):
        return plans[n]
    return StreamPlan(fragment=getattr(scenario, "stream_fragment", 4))


def wants(body) -> bool:
    return isinstance(body, dict) and body.get("stream") is True


def refusal(body, api: str, requests: list | None = None):
    """(status, error body) for a request that asks for a stream wrongly, else None. A refused
    body is appended to `requests` (the fake's `llm.requests`), as every other request is."""
    refused = _refused(body, api)
    if refused is not None and requests is not None:
        requests.append(body)
    return refused


def _refused(body, api: str):
    if not isinstance(body, dict):
        return None
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        if api == "messages":
            return 400, anthropic_error("stream: Input should be a valid boolean")
        error = ProtocolError(f"Invalid type for 'stream': expected a boolean, but got "
                              f"{json_kind(stream)} instead.", "stream", "invalid_type")
        return 400, error.body()
    if api == "chat" and body.get("stream_options") is not None and stream is not True:
        return 400, ProtocolError(STREAM_OPTIONS_ALONE, "stream_options").body()
    return None


class Delivery:
    """One streamed reply as the client reads it: frames at their times on the fake's clock,
    then the end the plan says (done, cut, an error event, a stall)."""

    def __init__(self, frames: list[tuple[int, bytes]], plan: StreamPlan, clock: timing.Clock,
                 error, read_timeout: float | None):
        self.plan, self.clock, self.read_timeout = plan, clock, read_timeout
        self.start = clock.ms
        self.ending = "done"
        keep = next((getattr(plan, n) for n in ("cut_after", "error_after", "stall_after")
                     if getattr(plan, n) is not None), None)
        if keep is not None and keep < len(frames):
            self.ending = ("cut" if plan.cut_after is not None else
                           "error" if plan.error_after is not None else "stall")
            frames = frames[:keep]
        if self.ending == "error":
            data = error(len(frames)) if callable(error) else error or b""
            frames = frames + [(frames[-1][0] if frames else 0, data)]
        self.frames = frames
        self.total_ms = frames[-1][0] if frames else 0
        self.sent = 0  # frames the client has read
        self.status = "streaming"  # then done, cut, error, stall, or closed early by the client
        self._pending = self._pieces()

    def close(self) -> None:
        """The client closed the response: early, if frames were left."""
        if self.status == "streaming":
            self.status = "closed early" if self.sent < len(self.frames) else self.ending

    def _pieces(self):
        for ms, data in self.frames:
            self.clock.move_to(self.start + ms)
            self.sent += 1
            if self.plan.read_bytes is None:
                yield data
            else:
                for i in range(0, len(data), self.plan.read_bytes):
                    yield data[i:i + self.plan.read_bytes]

    def __iter__(self):
        yield from self._pending

    def fail(self) -> None:
        """At the end of the frames: nothing for a clean end, else the error the client sees."""
        import httpx2  # the SDKs' HTTP library, loaded only when a fault is delivered

        self.status = self.ending
        if self.ending == "cut":
            raise httpx2.RemoteProtocolError(CUT)
        if self.ending == "stall":
            self.clock.advance(self.read_timeout or 0)
            raise httpx2.ReadTimeout(STALL)


def deliver(llm, out, body: dict, api: str, read_timeout: float | None = None) -> Delivery | None:
    """The reply of a 200 to a streamed request as a Delivery; None for anything else (the clock
    then moves to when a whole reply arrives)."""
    state = state_of(llm)
    if out.status != 200 or out.hang or out.body is None:
        return None
    if not wants(body):
        try:
            _move_whole(state.clock, out.body, api)
        except (KeyError, TypeError, IndexError, AttributeError):  # a stand-in's own body
            pass
        return None
    plan = plan_for(llm.scenario, state.served)
    state.served += 1
    error: object
    if api == "messages":
        frames = stream_messages.frames(stream_messages.events(out.body, plan.fragment, plan.incomplete_after))
        error = stream_messages.frame(anthropic_error(OVERLOADED, "overloaded_error"))
    elif api == "responses":
        frames = stream_responses.frames(stream_responses.events(out.body, plan.fragment, plan.incomplete_after))
        error = lambda n: stream_responses.error_frame(CHAT_SERVER_ERROR, n)  # noqa: E731 - its sequence number
    else:
        include = bool((body.get("stream_options") or {}).get("include_usage"))
        dialect = getattr(llm, "dialect", "openai")
        events = stream_chat.chunks(out.body, dialect, plan.fragment, include, plan.incomplete_after)
        frames = stream_chat.frames(events)
        error = stream_chat.error_frame(openai_error(CHAT_SERVER_ERROR, "server_error"))
    delivery = Delivery(frames, plan, state.clock, error, read_timeout)
    state.deliveries.append(delivery)
    return delivery


def _move_whole(clock: timing.Clock, body: dict, api: str) -> None:
    """A reply that is not streamed arrives whole: the clock moves to its last character."""
    if api == "messages":
        chars = stream_messages.characters(body)
    elif api == "responses":
        chars = stream_responses.characters(body)
    else:
        msg = body["choices"][0]["message"]
        chars = sum(len(msg.get(k) or "") for k in ("content", "reasoning_content", "reasoning")) + sum(
            len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in msg.get("tool_calls") or ())
    clock.move_to(clock.ms + timing.whole_ms(timing.first_token_ms(body.get("usage")), chars))


def read_timeout_of(request) -> float | None:
    """The read timeout an httpx request carries (its `timeout` extension), in seconds."""
    timeout = (getattr(request, "extensions", None) or {}).get("timeout") or {}
    value = timeout.get("read")
    return float(value) if isinstance(value, int | float) else None


def httpx_stream(httpx2, delivery: Delivery):
    """The Delivery as an httpx2 response body, read piece by piece (in-process faces)."""

    class Body(httpx2.SyncByteStream):
        def __iter__(self):
            yield from delivery
            delivery.fail()

        def close(self):
            delivery.close()

    return Body()


class Pieces:
    """A streamed response's body read one piece at a time, as base64 text (None at its end): how
    the judge's link carries a stream to the notebook's SDK client, so the notebook reads each
    piece when the fake sends it (the clock in step) and a cut or a stall raises where it happens."""

    def __init__(self, response):
        self._response, self._raw = response, response.iter_raw()

    def next_piece(self) -> str | None:
        piece = next(self._raw, None)
        return None if piece is None else base64.b64encode(piece).decode()

    def close(self) -> None:
        self._response.close()


def write(handler, delivery: Delivery, stop, hang_seconds: float) -> None:
    """Send a Delivery on a BaseHTTPRequestHandler as a chunked 200 (face 3): a cut closes the
    socket without the last chunk, a stall waits, then closes."""
    handler.send_response(200)
    for k, v in HEADERS.items():
        handler.send_header(k, v)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        for piece in delivery:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            handler.wfile.flush()
    except ConnectionError:  # the client closed the stream before its end
        delivery.status, handler.close_connection = "closed early", True
        return
    if delivery.ending == "stall":
        stop.wait(hang_seconds)
    if delivery.ending in ("cut", "stall"):
        delivery.status = delivery.ending
        handler.close_connection = True
        return
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()
    delivery.status = delivery.ending
