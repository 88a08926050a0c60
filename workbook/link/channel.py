"""One connection between the judge and a kernel: length-prefixed JSON frames, calls both ways.

Either side may call the other while a call of its own is waiting (a student's function calls a
tool the judge holds, which calls another student function...). Each request carries the id of
the request its sender was serving (`parent`), so a nested request is served by the very thread
that is waiting for it; a request with no waiting parent goes to `orphans` ("main": the thread
in `serve_main`, as the kernel's main thread serves the judge's calls; "thread": a new thread,
as the judge serves calls from a student's worker threads).

Frames are bounded (`max_frame` bytes); a frame that is too big, not JSON, or not a message ends
the connection, and every waiting call raises `LinkClosed` with the reason.
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import struct
import threading

HEADER = struct.Struct(">I")
POLL = 0.05  # seconds between `on_wait` checks while a call waits
MAX_THREADS = 64  # requests served at once on "thread" orphans


def _error(msg: str) -> dict:
    return {"exc": {"$e": "workbook.link.codec:LinkError", "msg": msg[:500], "mro": ["LinkError", "Exception"]}}


class LinkClosed(Exception):
    """The other side went away, or broke the protocol; `str()` says which."""

    judge_only = True  # the judge's own word: never the class of an error the kernel names (exc_classes)


def frame(msg: dict, max_frame: int) -> bytes:
    """A message as it crosses: JSON (no NaN), at most `max_frame` bytes (else ValueError)."""
    data = json.dumps(msg, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(data) > max_frame:
        raise ValueError(f"a message of {len(data)} bytes (at most {max_frame})")
    return data


class LoopChannel:
    """Both ends in one process (a learner's kernel: workbook/loopback.py): a request is served at
    once, on the caller's thread, by the other end, and the request and its reply cross as the same
    frames as on a socket. An interrupt (KeyboardInterrupt) goes straight on to the caller."""

    closed: str | None = None

    def __init__(self, serve, max_frame: int = 16 << 20):
        self._serve, self.max_frame = serve, max_frame

    def request(self, msg: dict, on_wait=None) -> dict:
        item = json.loads(frame(msg, self.max_frame))
        try:
            reply = self._serve(item)
        except Exception as e:  # noqa: BLE001 - as on a socket: a reply is always sent
            reply = _error(f"{type(e).__name__}: {e}")
        try:
            return json.loads(frame(reply, self.max_frame))
        except ValueError as e:  # the reply is too big to send
            return _error(str(e))


class Channel:
    def __init__(self, sock: socket.socket, serve, orphans: str = "thread", max_frame: int = 16 << 20):
        self.sock, self._serve, self.orphans, self.max_frame = sock, serve, orphans, max_frame
        self._ids = itertools.count(1)
        self._waiting: dict[int, queue.Queue] = {}
        self._main: queue.Queue = queue.Queue()
        self._lock, self._send_lock = threading.Lock(), threading.Lock()
        self._local = threading.local()
        self._threads = threading.BoundedSemaphore(MAX_THREADS)
        self.closed: str | None = None
        self._reader = threading.Thread(target=self._read_loop, name="link-reader", daemon=True)
        self._reader.start()

    # -- sending ------------------------------------------------------------------------------

    def _send(self, msg: dict) -> None:
        data = frame(msg, self.max_frame)
        with self._send_lock:
            if self.closed:
                raise LinkClosed(self.closed)
            try:
                self.sock.sendall(HEADER.pack(len(data)) + data)
            except OSError as e:
                raise LinkClosed(f"the connection broke while sending: {e}") from e

    def _serving(self) -> list[int]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def request(self, msg: dict, on_wait=None) -> dict:
        """Send a request and wait for its reply ({"ok": ...} or {"exc": ...}), serving any
        request nested in it meanwhile. `on_wait()` runs every POLL seconds and may raise."""
        rid = next(self._ids)
        box: queue.Queue = queue.Queue()
        with self._lock:
            self._waiting[rid] = box
        stack = self._serving()
        try:
            self._send({**msg, "id": rid, "parent": stack[-1] if stack else None})
            while True:
                try:
                    item = box.get(timeout=POLL)
                except queue.Empty:
                    if on_wait is not None:
                        on_wait()
                    continue
                if item is None:
                    raise LinkClosed(self.closed or "closed")
                if "re" in item:
                    return item
                self._answer(item)
        finally:
            with self._lock:
                self._waiting.pop(rid, None)

    def _answer(self, item: dict) -> None:
        stack = self._serving()
        stack.append(item["id"])
        stop = None
        try:
            reply = self._serve(item)
        except LinkClosed:
            return
        except BaseException as e:  # noqa: BLE001 - a reply is always sent; an interrupt goes on after it
            reply = _error(f"{type(e).__name__}: {e}")
            stop = e if isinstance(e, (KeyboardInterrupt, SystemExit)) or getattr(e, "link_stop", False) else None
        finally:
            stack.pop()
        try:
            self._send({"re": item["id"], **reply})
        except ValueError as e:  # the reply is too big to send
            self._send({"re": item["id"], **_error(str(e))})
        except LinkClosed:
            pass
        if stop is not None:
            raise stop

    def serve_main(self, until) -> None:
        """Serve orphan requests on this thread until `until(item)` is true for one (or close)."""
        while True:
            item = self._main.get()
            if item is None:
                raise LinkClosed(self.closed or "closed")
            if until(item):
                self._send({"re": item["id"], "ok": None})
                return
            self._answer(item)

    # -- receiving ----------------------------------------------------------------------------

    def _recv_exact(self, n: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            chunk = self.sock.recv(min(n - got, 1 << 20))
            if not chunk:
                raise LinkClosed("the other side closed the connection")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _read_loop(self) -> None:
        reason = "closed"
        try:
            while True:
                (size,) = HEADER.unpack(self._recv_exact(HEADER.size))
                if size > self.max_frame:
                    raise LinkClosed(f"a message of {size} bytes (at most {self.max_frame})")
                try:
                    item = json.loads(self._recv_exact(size))
                except (ValueError, RecursionError) as e:
                    raise LinkClosed("a message that is not JSON") from e
                self._route(item)
        except LinkClosed as e:
            reason = str(e)
        except OSError as e:
            reason = f"the connection broke: {e}"
        finally:
            self.close(reason)

    def _route(self, item) -> None:
        if type(item) is not dict or not isinstance(item.get("re", item.get("id")), int) or \
                isinstance(item.get("re", item.get("id")), bool):
            raise LinkClosed("a message without an id")
        with self._lock:
            if "re" in item:
                box = self._waiting.get(item["re"])
                if box is None:
                    raise LinkClosed("a reply to a call that is not waiting")
                box.put(item)
                return
            parent = item.get("parent")
            box = self._waiting.get(parent) if type(parent) is int else None
        if box is not None:
            box.put(item)
        elif self.orphans == "main":
            self._main.put(item)
        elif self._threads.acquire(blocking=False):
            threading.Thread(target=self._orphan, args=(item,), name="link-call", daemon=True).start()
        else:
            self._send({"re": item["id"], **_error("too many calls at once")})

    def _orphan(self, item: dict) -> None:
        try:
            self._answer(item)
        finally:
            self._threads.release()

    def close(self, reason: str = "closed") -> None:
        with self._lock:
            if self.closed is None:
                self.closed = reason
            boxes = list(self._waiting.values())
        for box in boxes:
            box.put(None)
        self._main.put(None)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
