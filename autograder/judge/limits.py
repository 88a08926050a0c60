"""The judge's own bounds, set by the kernel on the judge process itself.

The judge runs outside the sandbox (its cgroup, its disk and memory caps), and a test can make it
work inside C code that no signal handler interrupts (a SQLite query, a big `make_dataclass`).
Its budgets in `runner` are checked in Python; these are the backstop underneath:

- RLIMIT_AS (MEMORY bytes of address space): an allocation past it is a MemoryError;
- RLIMIT_FSIZE (FILE_SIZE bytes a file): a bigger write is an OSError (SIGXFSZ is ignored);
- RLIMIT_CPU, set before each test to the CPU time used so far + the test's CPU budget + GRACE:
  past it the kernel sends SIGXCPU, whose default action ends the judge. The grader then reads
  "the judge process ended" for that test (and the notebook's later tests), never a hang.

A judge is one notebook's process: these limits never reach the worker or the zygote.
"""

from __future__ import annotations

import math
import resource
import signal

MEMORY = 3 << 30  # bytes of address space (a judge runs at ~190 MB of it, ~100 MB resident; each
# thread reserves a stack and may reserve a 64 MB malloc arena: room for them)
FILE_SIZE = 256 << 20  # bytes of one file the judge writes (a test reads at most 16 MB of the notebook's, judge/files.py)
GRACE = 5.0  # CPU seconds past the test's budget before the kernel ends the judge


def limit_process(memory: int = MEMORY, file_size: int = FILE_SIZE) -> None:
    """Bound this process's memory and file sizes (once, when a judge starts)."""
    for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, file_size)):
        hard = resource.getrlimit(which)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, hard))
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)  # past RLIMIT_CPU: the judge ends


def used_cpu() -> float:
    """CPU seconds this process has used (what RLIMIT_CPU counts)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def limit_cpu(budget: float, grace: float = GRACE) -> int:
    """Let this process use `budget` + `grace` more CPU seconds, then end it; the soft limit set."""
    soft = math.ceil(used_cpu() + budget + grace)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    return soft
