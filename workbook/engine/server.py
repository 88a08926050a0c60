"""Face 3: real HTTP on 127.0.0.1, `/v1/chat/completions` and Anthropic's `/v1/messages`, so
live-provider code paths run for real."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from workbook.engine import streaming
from workbook.engine.core import wire
from workbook.engine.errors import anthropic_error, openai_error

# One line per failure, no traceback: with no logging set up, Python prints WARNING and above on
# stderr (a student running `serve` sees it); an application may route or silence it.
log = logging.getLogger("workbook.fake_llm")

ANTHROPIC_MISSING_KEY = "x-api-key header is required"
MISSING_KEY = ("You didn't provide an API key. You need to provide your API key in an "
               "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")


def _handler(llm, stop: threading.Event):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else each keep-alive reply waits ~40 ms for a delayed ACK

        def log_message(self, *args):  # silent: nbgrader scores 0 for any stderr output
            pass

        def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
            data = wire(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                return self._send(200, {"object": "list", "data": [
                    {"id": "fake-model", "object": "model", "owned_by": "workbook"}]})
            self._send(404, openai_error(f"Invalid URL ({self.command} {self.path})"))

        def do_POST(self):
            length = self.headers.get("Content-Length") or "0"
            if not length.isdigit():  # negative or not a number: never read to the end of the socket
                self.close_connection = True
                return self._send(400, openai_error(f"Invalid Content-Length: {length!r}"))
            raw = self.rfile.read(int(length))
            if hasattr(llm, "traceparents"):  # a stand-in provider may keep no such record
                llm.traceparents.append(self.headers.get("traceparent"))
            path = self.path.rstrip("/")
            if path not in ("/v1/chat/completions", "/v1/messages", "/v1/responses"):
                return self.do_GET()
            bearer = self.headers.get("Authorization", "").startswith("Bearer ")
            if path == "/v1/messages" and not (bearer or self.headers.get("x-api-key")):
                return self._send(401, anthropic_error(ANTHROPIC_MISSING_KEY, "authentication_error"))
            if path in ("/v1/chat/completions", "/v1/responses") and not bearer:
                return self._send(401, openai_error(MISSING_KEY))
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                body = raw.decode("utf-8", "replace")
            api = {"/v1/messages": "messages", "/v1/responses": "responses"}.get(path, "chat")
            refused = streaming.refusal(body, api, getattr(llm, "requests", None))  # a stream no provider sends: a 400, never silence
            if refused:
                return self._send(*refused)
            try:  # the engine never raises; a stand-in provider might
                face = {"/v1/messages": "messages", "/v1/responses": "responses"}.get(path)
                out = llm.handle(body, face) if face else llm.handle(body)
            except Exception as e:
                message = f"the fake model failed on this request: {type(e).__name__}: {e}"
                body = anthropic_error(message, "api_error") if path == "/v1/messages" else None
                return self._fail(message, body=body)
            if out.failure:
                return self._fail(out.failure, out.status, out.body, out.headers)
            if out.hang:  # never answer in time; give up at shutdown or after hang_seconds
                stop.wait(llm.hang_seconds)
                self.close_connection = True
                return
            delivery = streaming.deliver(llm, out, body, api)
            if delivery is not None:
                return streaming.write(self, delivery, stop, llm.hang_seconds)
            self._send(out.status, out.body, out.headers)

        def _fail(self, message: str, status: int = 500, body: dict | None = None,
                  headers: dict | None = None) -> None:
            log.error("fake LLM: %s", message)
            self._send(status, body or openai_error(message, "server_error"), headers or {"x-should-retry": "false"})

    return Handler


class Server(ThreadingHTTPServer):
    """One thread per connection, and a list of them: a client keeps its connection open between
    requests (keep-alive), so a connection's thread would outlive `serve` until the client is
    garbage-collected; `close_connections` ends them when the server stops."""

    daemon_threads = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lock = threading.Lock()
        self._open: dict[socket.socket, threading.Thread] = {}

    def process_request(self, request, client_address):
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address),
                                  name="fake-llm-connection", daemon=True)
        with self._lock:
            self._open[request] = thread
        thread.start()

    def shutdown_request(self, request):
        with self._lock:
            self._open.pop(request, None)
        super().shutdown_request(request)

    def close_connections(self, wait: float = 5.0) -> None:
        """Hang up every open connection (its thread sees the end of the stream) and let the threads
        finish; a client's next request on that connection reconnects."""
        with self._lock:
            open_now = list(self._open.items())
        for sock, _ in open_now:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for _, thread in open_now:
            thread.join(wait)

    def handle_error(self, request, client_address):
        """A connection that broke (the client gave up, say): one log line, never a traceback."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError):
            log.error("fake LLM: %s while serving %s", type(error).__name__, client_address[0])


@contextlib.contextmanager
def serve(llm, port: int = 0):
    """Serve `llm` on 127.0.0.1; yields the base URL (ending in /v1)."""
    stop = threading.Event()
    server = Server(("127.0.0.1", port), _handler(llm, stop))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        stop.set()
        server.shutdown()
        server.close_connections()
        server.server_close()
