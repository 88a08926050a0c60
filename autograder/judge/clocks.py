"""The clocks the judge reads, bound once when it starts.

A test runs in the judge's own interpreter, and a test may patch the time module to move the
student's world on (chapter 08 sets `time.time` a year later; another may freeze
`time.monotonic`). The judge's budgets must not move with it: they read these names, bound at
import (in the zygote, before any test), never `time.<name>` at the moment of reading. `queue`
and `threading`, which the link's waits use, bind their own clock at import the same way.
"""

from __future__ import annotations

import time

monotonic = time.monotonic
wall = time.time
perf_counter = time.perf_counter
process_time = time.process_time
sleep = time.sleep
