"""One line per graded submission, for `grade` on local workers and on a cluster alike."""

from __future__ import annotations

import time


def line(done: int, total: int, started: float, what: str) -> str:
    """A progress bar, the time so far, an ETA and what was just graded."""
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    width = 20
    bar = "#" * round(width * done / total) + "-" * (width - round(width * done / total))
    return f"[{bar}] {done}/{total}  {elapsed:5.0f} s  ETA {eta:4.0f} s  {what}"


def describe(records: list[dict]) -> str:
    """`student: chapter score/max [STATUS], ...` for one student's records."""
    parts = []
    for r in records:
        flag = "" if r["status"] == "ok" else f" {r['status'].upper()}"
        parts.append(f"{r['chapter']} {r['score']:g}/{r['max_score']:g}{flag}")
    return f"{records[0]['student']}: " + ", ".join(parts) if records else ""
