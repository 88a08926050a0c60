"""The commit-msg hook (.pre-commit-config.yaml): a commit's subject is at most 72 characters.

The subject is the message's first line that is not blank and not a comment (git drops those);
the detail goes in the body, after a blank line. `python .ci/commit_msg.py MSGFILE` exits 1 with
the reason when the subject is too long or missing. Tested by tests/test_commit_msg.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 72
SCISSORS = "# ------------------------ >8 ------------------------"  # `git commit -v`: the rest is a diff


def subject(message: str) -> str:
    """The subject git will record for `message`: its first line that is not blank or a comment."""
    for line in message.splitlines():
        if line.startswith(SCISSORS):
            break
        if line.strip() and not line.startswith("#"):
            return line.rstrip()
    return ""


def problem(message: str) -> str | None:
    """Why the commit message is refused, or None."""
    first = subject(message)
    if not first:
        return "the commit message has no subject"
    if len(first) > LIMIT:
        return (f"the subject is {len(first)} characters; at most {LIMIT}. Say what changed in the "
                f"subject and why in the body, after a blank line:\n  {first}")
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python .ci/commit_msg.py MSGFILE", file=sys.stderr)
        return 2
    reason = problem(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if reason:
        print(f"commit-msg: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
