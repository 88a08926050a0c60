"""MCP servers for chapter 18, and the pipe to talk to one over stdio.

    from workbook.mcp_servers import start, toy_command
    with start(toy_command("--page-size", "2")) as conn:
        conn.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        line = conn.read_line(timeout=2.0)   # a str; "" once the server has exited; None on timeout

`toy_server.py` is a standard-library server whose misbehaviours are flags (see its docstring);
`sdk_server.py` is a real server made with the official `mcp` SDK (slower to start: it imports
the SDK). `run_async` runs a coroutine to completion from a notebook cell, bounded in time;
`memory.exchange_async` sends raw JSON-RPC messages to an SDK server object in this process.

When a chapter is graded, a test starts the server on the grader's side and hands the student's
client the `Connection`: its methods and data cross (`send`, `read_line`, `sent`, `stderr`,
`returncode`), the subprocess itself never does.
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_SENT = 10_000  # messages one connection sends (its `sent` keeps each)
MAX_SENT_BYTES = 8_000_000  # characters of JSON one connection sends, all messages together
TOY = HERE / "toy_server.py"
SDK = HERE / "sdk_server.py"


def toy_command(*flags: str) -> list[str]:
    """The command that starts the toy server with these flags, on this Python."""
    return [sys.executable, str(TOY), *flags]


def sdk_command() -> list[str]:
    """The command that starts the SDK demo server, on this Python."""
    return [sys.executable, str(SDK)]


class TooManyMessages(BaseException):
    """A client sent more messages than a test allows (a BaseException, like TooManyCalls, so a
    client's `except Exception` cannot swallow it and go on)."""


class Connection:
    """A server subprocess and its pipes: send() a message, read_line(timeout) a line.

    A reader thread moves stdout lines into a queue, so every read can be bounded in time.
    `max_sends` (tests): the (N+1)-th send raises TooManyMessages instead of looping forever.
    Bounded whoever holds it (when graded, the student's client, through the link): at most
    MAX_SENT messages and MAX_SENT_BYTES of JSON in all (past them a send is refused and `sent`
    does not grow); the line queue is private (`_lines`: the link hands out no `_` name)."""

    LINK_DATA = ("sent", "returncode")  # what a graded notebook may read of it (workbook/link/trust.py)

    def __init__(self, command: list[str], max_sends: int | None = None):
        self.max_sends = max_sends
        if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
            raise TypeError(f"command must be a non-empty list of strings, not {command!r}")
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self._lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []  # the server's log lines (stderr is where logs belong)
        self.sent: list[dict] = []   # every message sent, in order
        self._eof, self._sent_bytes = False, 0
        self.spoke = threading.Event()  # the server wrote its first line to stderr (or exited)
        threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self._log), daemon=True).start()

    def _log(self, line: str) -> None:
        if line:
            self.stderr.append(line)
        self.spoke.set()

    @staticmethod
    def _pump(stream, put):
        for line in stream:
            put(line)
        put("")  # end of file

    def send(self, message: dict) -> None:
        """Write one message as one line of JSON (newline-delimited JSON-RPC)."""
        if self.max_sends is not None and len(self.sent) >= self.max_sends:
            raise TooManyMessages(f"the client sent more than {self.max_sends} messages: "
                                  "does it stop when the server repeats itself?")
        if len(self.sent) >= MAX_SENT:
            raise TooManyMessages(f"the client sent more than {MAX_SENT} messages on one connection")
        text = json.dumps(message)
        if self._sent_bytes + len(text) > MAX_SENT_BYTES:
            raise ValueError(f"a message of {len(text)} characters: one connection sends at most "
                             f"{MAX_SENT_BYTES} in all (JSON-RPC messages are small)")
        self._sent_bytes += len(text)
        self.sent.append(json.loads(text))
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as e:
            raise ConnectionError(f"the server is gone (exit code {self.proc.poll()}): {e}") from None

    @property
    def returncode(self) -> int | None:
        """The server's exit code once it has exited, else None."""
        return self.proc.poll()

    def read_line(self, timeout: float) -> str | None:
        """The next line from the server's stdout; "" once it has exited; None after `timeout` s."""
        if self._eof:
            return ""
        try:
            line = self._lines.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None
        self._eof = line == ""
        if self._eof:  # stdout closed: the server is exiting; let its exit code be known
            try:
                self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        return line

    def close(self) -> int | None:
        """Close stdin (the stdio way to say goodbye), then stop the server; its exit code."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Chatter:
    """A connection to a server that talks but never answers: each read waits `period` seconds
    and gives a progress notification, `lines` times; then silence. No subprocess, so the gaps
    are exactly `period` however busy the machine is: a client whose timeout is per line (longer
    than `period`) keeps reading for `lines * period` seconds; one with a deadline stops at it."""

    LINK_DATA = ("sent", "returncode")

    def __init__(self, period: float = 0.05, lines: int = 300):
        self.period, self.lines, self.returncode = period, lines, None
        self.sent: list[dict] = []
        self.stderr: list[str] = []
        self.read = 0

    def send(self, message: dict) -> None:
        self.sent.append(json.loads(json.dumps(message)))

    def read_line(self, timeout: float) -> str | None:
        if timeout < self.period or self.read >= self.lines:
            time.sleep(max(min(timeout, 5.0), 0))
            return None
        time.sleep(self.period)
        self.read += 1
        return json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": self.read, "progress": self.read}}) + "\n"

    def close(self) -> None:
        pass

    def __enter__(self) -> Chatter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start(command: list[str], max_sends: int | None = None, ready_timeout: float = 120.0) -> Connection:
    """Start a server as a subprocess; the Connection (use it in a `with` block).

    The toy server says "ready" on stderr once it reads stdin: `start` waits for that (at most
    `ready_timeout` s, a backstop), so a busy machine's slow start never eats the deadline of a
    client's first request."""
    conn = Connection(command, max_sends)
    if str(TOY) in command:
        conn.spoke.wait(ready_timeout)
    return conn


def run_async(make_coroutine, timeout: float = 120.0):
    """Run `make_coroutine()` to the end in a thread of its own (a notebook already runs an event
    loop, so asyncio.run cannot be called in a cell); its result, or TimeoutError after `timeout` s.

    The timeout is a backstop for a coroutine that never ends, not a speed limit: the first call
    of a kernel imports and builds much of the SDK (pydantic schemas), seconds on a busy machine."""
    box: dict = {}

    def target():
        try:
            box["value"] = asyncio.run(make_coroutine())
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"the coroutine did not finish within {timeout} s (is it waiting for "
                           "something that never comes?)")
    if "error" in box:
        raise box["error"]
    return box["value"]
