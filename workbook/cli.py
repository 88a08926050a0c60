"""How the course's command-line tools end: `python -m workbook`, `python -m workbook.fake_llm` and
`python -m autograder` all call `run(main)`.

Output piped into a reader that stops early (`python -m workbook.fake_llm list | head -1`) ends
quietly, as `ls | head -1` does: no BrokenPipeError traceback, and no "Exception ignored" line when
Python flushes stdout on its way out. The exit code is the one a shell gives a program that the
pipe's SIGPIPE ended, 141, which a pipeline reports only under `set -o pipefail`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn

CLOSED_PIPE = 128 + 13  # 128 + SIGPIPE: what a shell reports for `yes | head -1`'s `yes`


def run(main: Callable[[], int | str | None]) -> NoReturn:
    """Exit with `main()`'s code; if the reader of stdout went away, exit quietly with CLOSED_PIPE."""
    try:
        try:
            code = main()
        except SystemExit as e:  # argparse's --help and usage errors: their text is buffered too
            code = e.code
        sys.stdout.flush()  # inside the try: the last buffered lines can meet the closed pipe too
    except BrokenPipeError:
        # Python flushes stdout again at exit; point it at /dev/null so that flush has nowhere to fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.exit(CLOSED_PIPE)
    sys.exit(code)
