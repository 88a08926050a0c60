"""The fake provider object behind faces 2 to 4: one engine, a real `openai.OpenAI` client on it
(in-process), real HTTP on 127.0.0.1, and a real `anthropic.Anthropic` client (in-process) for
the Messages API. `workbook.fake_llm.FakeLLM` adds the look-up by name."""

from __future__ import annotations

import json
import threading

from workbook.engine import streaming
from workbook.engine.core import Engine, Outcome
from workbook.engine.errors import openai_error
from workbook.engine.function_face import TooManyCalls
from workbook.engine.responses_api import Responses
from workbook.engine.server import serve

FAKE_BASE_URL = "http://fake-llm.invalid/v1"  # never resolved: the transport is in-process
FAKE_ANTHROPIC_URL = "http://fake-llm.invalid"  # the anthropic SDK adds /v1/messages itself
APIS = {"chat": "/chat/completions", "messages": "/v1/messages", "responses": "/responses"}  # paths answered


class FakeLLM:
    """A fake provider playing one scenario. Requests are serialised, so it is thread-safe."""

    def __init__(self, scenario, dialect: str = "openai", context_window: int | None = None,
                 hang_seconds: float = 5.0):
        self.scenario = scenario
        self.engine = Engine(scenario, dialect, context_window)
        self.responses_face = Responses(self.engine)  # POST /v1/responses, with its stored state
        self.hang_seconds = hang_seconds  # how long the HTTP face stalls for a scripted timeout
        self._lock = threading.Lock()
        self.stream_state = streaming.StreamState()  # llm.clock, and the streams served
        self.traceparents: list[str | None] = []  # each HTTP request's W3C traceparent (None: none)

    clock = property(lambda self: streaming.state_of(self).clock, doc="the fake's clock (stream_timing)")
    dialect = property(lambda self: self.engine.dialect)
    requests = property(lambda self: self.engine.requests, doc="every request body, in order")
    seen = property(lambda self: self.engine.seen, doc="the messages the model saw, per request")
    calls = property(lambda self: len(self.engine.requests), doc="chat.completions calls received")

    def handle(self, body, api: str = "chat") -> Outcome:
        """One request body: `api` "chat" (chat.completions), "messages" (Anthropic's) or "responses"."""
        with self._lock:
            return self.responses_face.handle(body) if api == "responses" else self.engine.handle(body, api)

    def _transport_handler(self, httpx2, max_calls: int | None = None):
        sent: list = []

        def handler(request):
            if max_calls is not None and len(sent) >= max_calls:
                raise TooManyCalls(max_calls)  # a BaseException: the SDK's retries let it through
            sent.append(request)
            self.traceparents.append(request.headers.get("traceparent"))
            api = next((a for a, path in APIS.items() if request.url.path.endswith(path)), None)
            if api is None:
                return httpx2.Response(404, json=openai_error(
                    f"Invalid URL ({request.method} {request.url.path})"))
            try:
                body = json.loads(request.content)
            except (ValueError, RecursionError):
                body = request.content.decode("utf-8", "replace")
            # never raises: an error is a 400 or the fake's own 500. A chat request calls handle(body)
            # alone, as before the Messages API came, so a stand-in that overrides it still works.
            refused = streaming.refusal(body, api, self.requests)  # a stream no provider sends: a 400, never silence
            out = Outcome(*refused) if refused else self.handle(body, api) if api != "chat" else self.handle(body)
            if out.hang:
                raise httpx2.ReadTimeout("the fake provider did not answer in time", request=request)
            delivery = streaming.deliver(self, out, body, api, streaming.read_timeout_of(request))
            if delivery is not None:
                return httpx2.Response(200, headers=streaming.HEADERS, stream=streaming.httpx_stream(httpx2, delivery))
            return httpx2.Response(out.status, content=out.data(),
                                   headers={"content-type": "application/json", **out.headers})

        return handler

    def client(self, max_calls: int | None = None, **kwargs):
        """Face 2: a real `openai.OpenAI` whose HTTP goes to this fake, in-process (no sockets).

        With `max_calls=N` the (N+1)-th request through this client raises TooManyCalls (a test's
        safety cap; the SDK's own retries count, as they are requests too)."""
        import httpx2
        import openai

        transport = httpx2.MockTransport(self._transport_handler(httpx2, max_calls))
        kwargs.setdefault("api_key", "fake-key")
        kwargs.setdefault("base_url", FAKE_BASE_URL)
        return openai.OpenAI(http_client=httpx2.Client(transport=transport), **kwargs)

    def anthropic_client(self, max_calls: int | None = None, **kwargs):
        """Face 4: a real `anthropic.Anthropic` whose HTTP goes to this fake, in-process: the same
        scenario behind the Messages API (`client.messages.create(...)`). `max_calls` as in client()."""
        import anthropic
        import httpx2

        transport = httpx2.MockTransport(self._transport_handler(httpx2, max_calls))
        kwargs.setdefault("api_key", "fake-key")
        kwargs.setdefault("base_url", FAKE_ANTHROPIC_URL)
        return anthropic.Anthropic(http_client=httpx2.Client(transport=transport), **kwargs)

    def serve(self, port: int = 0):
        """Face 3: `with llm.serve() as base_url:` real HTTP on 127.0.0.1 (port 0 = any free one).
        It answers `/v1/chat/completions` and Anthropic's `/v1/messages` (give the anthropic SDK
        `base_url.removesuffix("/v1")`: it adds `/v1/messages` itself)."""
        return serve(self, port)

    def __repr__(self) -> str:
        return f"<FakeLLM {self.scenario.name!r} dialect={self.dialect} calls={self.calls}>"
