"""`python -m workbook.fake_llm list` | `serve --scenario NAME [--dialect D] [--port N]`."""

from __future__ import annotations

import argparse
import threading

from workbook import cli, scenarios
from workbook.fake_llm import FakeLLM


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbook.fake_llm",
                                     description="The workbook's deterministic fake LLM provider.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print the scenario catalogue")
    serve = sub.add_parser("serve", help="serve /v1/chat/completions on 127.0.0.1")
    serve.add_argument("--scenario", required=True, help="a name from `list`")
    serve.add_argument("--dialect", default="openai", choices=["openai", "deepseek", "ollama"])
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)

    if args.command == "list":
        width = max(map(len, scenarios.CATALOGUE))
        for name, description in scenarios.catalogue():
            print(f"{name:<{width}}  {description}")
        return 0
    if args.scenario not in scenarios.CATALOGUE:
        parser.error(f"unknown scenario {args.scenario!r}; see `python -m workbook.fake_llm list`")
    llm = FakeLLM(scenarios.get(args.scenario), dialect=args.dialect)
    try:
        with llm.serve(args.port) as base_url:
            print(f"fake LLM ({args.scenario}, {args.dialect}) serving at {base_url}", flush=True)
            print(hint(base_url), flush=True)
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                pass
    except OSError as e:  # the port is taken, e.g. by another fake server
        parser.exit(1, f"cannot serve on 127.0.0.1:{args.port} ({e.strerror or e}): pick another --port, "
                       "or leave --port out and a free port is chosen\n")
    return 0


def hint(base_url: str) -> str:
    """How to point the workbook's live cells at this server (any non-empty key will do)."""
    return (f"use it: LLM_PROVIDER=openai OPENAI_API_KEY=any-key LLM_BASE_URL={base_url} make lab"
            " (or set those three in .env); Ctrl+C stops")


if __name__ == "__main__":
    cli.run(main)
