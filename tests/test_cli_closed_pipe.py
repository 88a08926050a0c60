"""The course's command-line tools end quietly when the reader of their output has gone, as
`python -m workbook.fake_llm list | head -1` leaves them (issue 45): no BrokenPipeError traceback,
no "Exception ignored" line, the exit code a shell gives a program SIGPIPE ended.

The pipe's reading end is closed before the tool starts, so every write meets a closed pipe: the
test does not depend on how fast `head` is. Each tool goes through one helper, `workbook.cli.run`."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbook.cli import CLOSED_PIPE

ROOT = Path(__file__).resolve().parent.parent
TOOLS = [  # each prints before it ends (argparse's own --help already ends quietly)
    ["workbook.fake_llm", "list"],  # the scenario catalogue
    ["workbook", "progress"],  # the progress table
    ["autograder", "mutant-diff", "01_one_step", "one_step-new-list"],  # the answer cell to edit
]
MAINS = ["workbook/__main__.py", "workbook/fake_llm/__main__.py", "autograder/__main__.py"]


def _into_a_closed_pipe(args: list[str]) -> subprocess.CompletedProcess:
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", TOOLS, ids=" ".join)
def test_output_to_a_closed_pipe_ends_quietly(args):
    done = _into_a_closed_pipe(args)
    assert done.stderr == "", done.stderr
    assert done.returncode == CLOSED_PIPE


def test_the_control_a_plain_print_to_a_closed_pipe_says_broken_pipe():
    """Without the helper Python prints the error: so the test above can fail."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-c", "print('x' * 100_000)"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert "BrokenPipeError" in done.stderr and done.returncode != 0


def test_an_open_pipe_gets_everything_and_the_tools_own_exit_code():
    done = subprocess.run([sys.executable, "-m", "workbook.fake_llm", "list"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "taxi_spending" in done.stdout and done.stderr == ""
    usage = subprocess.run([sys.executable, "-m", "workbook.fake_llm", "nope"], capture_output=True,
                           text=True, cwd=ROOT, timeout=120)
    assert usage.returncode == 2 and "invalid choice: 'nope'" in usage.stderr


@pytest.mark.parametrize("path", MAINS)
def test_every_command_line_tool_ends_through_the_one_helper(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    guard = next(n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))
    assert [ast.unparse(s) for s in guard.body] in (["cli.run(main)"], ["cli.run(main_with_errors)"])
