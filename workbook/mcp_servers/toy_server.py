"""A small MCP server over stdio for chapter 18, standard library only (it starts in ~50 ms).

It speaks what the official SDK's server speaks (newline-delimited JSON-RPC 2.0), in both eras,
chosen per request as the SDK's dual-era server chooses per connection: the legacy handshake
(initialize, notifications/initialized, then tools/list with nextCursor, tools/call with isError
results) and the stateless 2026-07-28 form (every request carries its version and capabilities
in `_meta`; server/discover; -32022 for a version it does not serve; `resultType` on results).
Its misbehaviours are switched on by flags, so a test can start exactly the server it needs:

    python toy_server.py [--page-size N] [--loop-cursor] [--lenient] [--errors jsonrpc]
                         [--version V] [--log-stdout] [--notify] [--wrong-id] [--ask]
                         [--die-on METHOD] [--hang-on METHOD] [--chatter-on METHOD]
                         [--fail-on METHOD] [--legacy-only] [--input-required] [--extra-blocks]
"""

import argparse
import json
import sys
import time

SUPPORTED = ("2025-06-18", "2025-11-25")
LATEST = SUPPORTED[-1]
MODERN = ("2026-07-28",)  # the stateless revisions this server serves
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = {"name": "toy", "version": "1.0"}


def _schema(**props):
    return {"type": "object", "properties": {k: {"type": t} for k, t in props.items()},
            "required": list(props)}


TOOLS = [
    {"name": "add", "description": "Add two integers.", "inputSchema": _schema(a="integer", b="integer")},
    {"name": "echo", "description": "Return the text unchanged.", "inputSchema": _schema(text="string")},
    {"name": "shout", "description": "Return the text in capitals.", "inputSchema": _schema(text="string")},
    {"name": "fail", "description": "Always fails, with the reason given.", "inputSchema": _schema(reason="string")},
    {"name": "today", "description": "Today's date (YYYY-MM-DD).", "inputSchema": _schema()},
]


def run_tool(name, args):
    """The tool's text, or raise ValueError with what went wrong."""
    if name == "add":
        if not all(type(args.get(k)) is int for k in ("a", "b")):
            raise ValueError("add needs integers 'a' and 'b'")
        return str(args["a"] + args["b"])
    if name in ("echo", "shout"):
        if not isinstance(args.get("text"), str):
            raise ValueError(f"{name} needs a string 'text'")
        return args["text"].upper() if name == "shout" else args["text"]
    if name == "fail":
        raise ValueError(f"fail was asked to fail: {args.get('reason', '')}")
    if name == "today":
        return "2026-12-01"
    raise LookupError(f"Unknown tool: {name}")


class Server:
    def __init__(self, opts):
        self.opts, self.initialized, self.ready = opts, False, False

    def write(self, message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def error(self, id_, code, text):
        self.write({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": text}})

    def result(self, id_, result):
        if self.opts.ask:  # a request from the server (it has a method and an id): not an answer
            self.write({"jsonrpc": "2.0", "id": f"toy-{id_}", "method": "roots/list"})
        if self.opts.notify:  # a log notification first: no id, the client must skip it
            self.write({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": f"answering request {id_}"}})
        self.write({"jsonrpc": "2.0", "id": id_ + 1000 if self.opts.wrong_id else id_, "result": result})

    def handle(self, msg):
        method, id_, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == self.opts.die_on:
            sys.stderr.write(f"toy server: crashing on {method}\n")
            sys.exit(3)
        if method == self.opts.hang_on:
            return
        if method == self.opts.chatter_on:
            for _ in range(60):  # talks for 3 s, then falls silent: never answers
                self.write({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": id_, "progress": 1}})
                time.sleep(0.05)
            return
        if method == self.opts.fail_on and "id" in msg:
            return self.error(id_, -32603, f"{method} refused: the server is not available")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and VERSION_KEY in meta and not self.opts.legacy_only and "id" in msg:
            return self.modern(id_, method, params, meta)
        if "id" not in msg:  # a notification: never answered
            if method == "notifications/initialized" and self.initialized:
                self.ready = True
            return
        if method == "initialize":
            self.initialized = True
            asked = params.get("protocolVersion")
            version = self.opts.version if self.opts.version is not None else (asked if asked in SUPPORTED else LATEST)
            return self.result(id_, {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                                     "serverInfo": {"name": "toy", "version": "1.0"}})
        if method == "ping":
            return self.result(id_, {})
        if not (self.ready or self.opts.lenient):
            return self.error(id_, -32600, f"{method} before initialization: send initialize, then "
                                           "the notifications/initialized notification")
        if method == "tools/list":
            return self.list_tools(id_, params.get("cursor"))
        if method == "tools/call":
            args = params.get("arguments", {})
            if not isinstance(args, dict):
                return self.error(id_, -32602, f"arguments must be an object, not {type(args).__name__}")
            return self.call_tool(id_, params.get("name"), args)
        return self.error(id_, -32601, f"Method not found: {method}")

    def modern(self, id_, method, params, meta):
        """A 2026-07-28 request: no handshake, its own version and capabilities in `_meta`."""
        version = meta.get(VERSION_KEY)
        if version not in MODERN:
            return self.write({"jsonrpc": "2.0", "id": id_, "error": {
                "code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": list(MODERN), "requested": version}}})
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            return self.error(id_, -32602, f"params._meta is missing the required envelope key(s): {CAPABILITIES_KEY}")
        stamp = {"resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}
        if method == "server/discover":
            return self.result(id_, {"supportedVersions": list(MODERN), "capabilities": {"tools": {}},
                                     "ttlMs": 0, "cacheScope": "private", **stamp})
        if method == "tools/list":
            return self.result(id_, {"tools": TOOLS, "ttlMs": 0, "cacheScope": "private", **stamp})
        if method == "tools/call":
            if self.opts.input_required:
                return self.result(id_, {"resultType": "input_required", "inputRequests": {
                    "confirm": {"method": "elicitation/create", "params": {"message": "Sure?"}}}})
            try:
                text = run_tool(params.get("name"), params.get("arguments") or {})
            except (ValueError, LookupError) as e:
                return self.result(id_, {"content": [{"type": "text", "text": str(e)}], "isError": True, **stamp})
            return self.result(id_, {"content": [{"type": "text", "text": text}], "isError": False, **stamp})
        return self.write({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found",
                                                                  "data": method}})

    def list_tools(self, id_, cursor):
        size = self.opts.page_size or len(TOOLS)
        try:
            start = 0 if cursor is None else int(str(cursor).removeprefix("page-"))
        except ValueError:
            return self.error(id_, -32602, f"Invalid cursor: {cursor!r}")
        page: dict[str, object] = {"tools": TOOLS[start:start + size]}
        if start + size < len(TOOLS):
            page["nextCursor"] = "page-0" if self.opts.loop_cursor else f"page-{start + size}"
        self.result(id_, page)

    def call_tool(self, id_, name, args):
        try:
            text = run_tool(name, args)
        except (ValueError, LookupError) as e:
            if self.opts.errors == "jsonrpc":
                return self.error(id_, -32602, str(e))
            return self.result(id_, {"content": [{"type": "text", "text": str(e)}], "isError": True})
        blocks = [{"type": "text", "text": text}]
        if self.opts.extra_blocks:  # more blocks: an image between two texts
            blocks += [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "text", "text": "(end)"}]
        self.result(id_, {"content": blocks, "isError": False})


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--page-size", type=int, default=0)
    p.add_argument("--loop-cursor", action="store_true")
    p.add_argument("--lenient", action="store_true", help="answer before notifications/initialized")
    p.add_argument("--errors", choices=("result", "jsonrpc"), default="result")
    p.add_argument("--version", default=None, help="the protocolVersion to answer with")
    p.add_argument("--log-stdout", action="store_true", help="print a log line to stdout first")
    p.add_argument("--notify", action="store_true")
    p.add_argument("--wrong-id", action="store_true")
    p.add_argument("--die-on")
    p.add_argument("--hang-on")
    p.add_argument("--chatter-on")
    p.add_argument("--fail-on", help="answer METHOD with a JSON-RPC error")
    p.add_argument("--ask", action="store_true", help="send a request of its own before each reply")
    p.add_argument("--legacy-only", action="store_true", help="a 2025 server: no stateless requests")
    p.add_argument("--input-required", action="store_true", help="stateless tools/call asks for more input")
    p.add_argument("--extra-blocks", action="store_true", help="tool results carry three content blocks")
    opts = p.parse_args(argv)
    if opts.log_stdout:  # the classic mistake: logs on stdout, where only JSON-RPC may go
        print("INFO toy server starting", flush=True)
    server = Server(opts)
    sys.stderr.write("toy server: ready\n")  # `start()` waits for it: startup never eats a request's deadline
    sys.stderr.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            server.error(None, -32700, "Parse error")
            continue
        server.handle(msg)


if __name__ == "__main__":
    main()
