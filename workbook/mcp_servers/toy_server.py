"""A small MCP server over stdio for chapter 18, standard library only (it starts in ~50 ms).

It speaks what the official SDK's server speaks (newline-delimited JSON-RPC 2.0: initialize,
notifications/initialized, tools/list with nextCursor, tools/call with isError results), and its
misbehaviours are switched on by flags, so a test can start exactly the server it needs:

    python toy_server.py [--page-size N] [--loop-cursor] [--lenient] [--errors jsonrpc]
                         [--version V] [--log-stdout] [--notify] [--wrong-id]
                         [--die-on METHOD] [--hang-on METHOD] [--chatter-on METHOD]
"""

import argparse
import json
import sys
import time

SUPPORTED = ("2025-06-18", "2025-11-25")
LATEST = SUPPORTED[-1]


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
        self.result(id_, {"content": [{"type": "text", "text": text}], "isError": False})


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
    opts = p.parse_args(argv)
    if opts.log_stdout:  # the classic mistake: logs on stdout, where only JSON-RPC may go
        print("INFO toy server starting", flush=True)
    server = Server(opts)
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
