"""`python -m workbook progress [--chapters DIR]`: the self-learner's progress table;
`python -m workbook edition LANG NOTEBOOK`: the notebook's text in another edition (workbook/i18n/edition.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbook import cli, progress
from workbook.i18n import edition, language


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbook", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    show = commands.add_parser("progress", help="per chapter: visible tests passed, quiz right, "
                               "the next thing to do (offline, read from your notebooks)")
    show.add_argument("--chapters", type=Path, default=None,
                      help=f"the folder of your chapter notebooks (default: {progress.CHAPTERS}, or "
                           "chapters/<lang>/ when AGENT_LOOP_LANG or the locale names a translated edition)")
    other = commands.add_parser("edition", help="put a chapter notebook's text in another language, "
                                "keeping your code (en, or a translated edition such as ru)")
    other.add_argument("lang")
    other.add_argument("notebook", type=Path)
    args = parser.parse_args(argv)
    if args.command == "edition":
        try:
            print(edition.switch(args.notebook, args.lang))
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    try:
        table = progress.rows(args.chapters, lang=language())
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(progress.text(table))
    return 0


if __name__ == "__main__":
    cli.run(main)
