"""How a test reads a SQLite file the notebook wrote: read-only, immutable, bounded. The reader
is `workbook/sqlite_reader.py` (the lowest layer, so scenarios use it too); this is its name in the
judge's link, the one test cells import:

    from workbook.link.sqlite_reader import read_rows
"""

from workbook.sqlite_reader import (  # noqa: F401  (the same names)
    FETCH,
    LIMITS,
    MAX_BYTES,
    MAX_HEAP,
    MAX_ROWS,
    MAX_STEPS,
    MAX_TOTAL,
    MAX_VALUE,
    STEP_BATCH,
    bound,
    read_only,
    read_rows,
)
