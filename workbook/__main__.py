"""`python -m workbook progress [--chapters DIR]`: the self-learner's progress table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbook import cli, progress


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbook", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    show = commands.add_parser("progress", help="per chapter: visible tests passed, quiz right, "
                               "the next thing to do (offline, read from your notebooks)")
    show.add_argument("--chapters", type=Path, default=None,
                      help=f"the folder of your chapter notebooks (default: {progress.CHAPTERS})")
    args = parser.parse_args(argv)
    try:
        table = progress.rows(args.chapters)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(progress.text(table))
    return 0


if __name__ == "__main__":
    cli.run(main)
