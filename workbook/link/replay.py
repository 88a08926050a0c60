"""Another process for a test (`workbook.notebook_side.another_process`): the notebook run again.

`python -m workbook.link.replay FD SECONDS SEED TOKEN`, started by the judge (in a sandbox of its
own when the grader has one), with the notebook's code cells up to the test as JSON on stdin. It
becomes a Python whose built-in `hash()` of a str differs (PYTHONHASHSEED=SEED) and whose wall clock
reads SECONDS later, runs the cells as a kernel would (an error ends that cell, not the run), then
answers the judge over the socket FD as a kernel answers a test cell (`kernel_side.serve_on`).
The cells are the chapter's own code cells with the notebook's answers in its answer cells
(`autograder/judge/cells.py` `replay_cells`): a cell the notebook added could otherwise undo in
advance what makes this process another (freeze the clock, replace `hash()`; red team, issue 44).
After them the moved clock and the built-in `hash` are put back, whatever the answers set.

Nothing here is trusted: the judge compares what this process answers with what the notebook's
kernel answered, and decides.
"""

import os
import sys

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != sys.argv[3]:
    # The hash seed is read when Python starts: start again with it (the socket stays open).
    os.execve(sys.executable, [sys.executable, "-m", "workbook.link.replay", *sys.argv[1:]],
              {**os.environ, "PYTHONHASHSEED": sys.argv[3]})

import builtins  # noqa: E402 - after the seed, which must come first
import json  # noqa: E402
import socket  # noqa: E402

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from workbook.link.kernel_side import serve_on  # noqa: E402
from workbook.probes import move_clock  # noqa: E402

MAX_CELLS = 10_000_000  # characters of cells read


def main(argv: list[str]) -> None:
    fd, seconds, token = int(argv[0]), float(argv[1]), argv[3]
    cells = json.loads(sys.stdin.read(MAX_CELLS))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - what the cells print goes nowhere
    real_hash = builtins.hash
    put_back = move_clock(seconds) if seconds else None
    shell = InteractiveShell.instance()
    for source in cells if type(cells) is list else []:
        if type(source) is str:
            shell.run_cell(source, silent=True, store_history=False)
    builtins.hash = real_hash
    if put_back is not None:
        put_back()
    serve_on(socket.socket(fileno=fd), token)


if __name__ == "__main__":
    main(sys.argv[1:])
