"""`python -m workbook.fake_llm list` | `serve --scenario NAME [--dialect D] [--port N]`."""

from __future__ import annotations

import argparse
import sys
import threading

from workbook import scenarios
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
    with llm.serve(args.port) as base_url:
        print(f"fake LLM ({args.scenario}, {args.dialect}) serving at {base_url}", flush=True)
        print("set LLM_PROVIDER=openai LLM_BASE_URL=" + base_url + " to use it; Ctrl+C stops",
              flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
