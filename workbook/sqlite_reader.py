"""A test's look into a SQLite file the notebook's code wrote: read-only, a copy in memory, bounded.

(Tests import it as `workbook.link.sqlite_reader`, the judge's link's name for it; it lives here,
in the package's lowest layer, so that a scenario's store, chapter 19's judge-side `Memory`, can
read its file the same way.)

When a notebook is graded, a file the student's code writes in a test's folder is read by the
judge, a trusted process, on request (`autograder/judge/files.py`): so the test must treat it as
the student's file, whatever it holds. This is the one way tests read such a file (chapter 17's
memory), the same in the kernel while learning:

    from workbook.link.sqlite_reader import read_rows
    rows = read_rows(path, "SELECT customer, day, fact FROM facts WHERE customer = ?", ("C-001",))

- **Read-only, from a copy in memory** (`deserialize`): the file's bytes are read once, and no
  journal, WAL or lock file next to it is read or made, so a planted hot journal cannot change
  what is read; a file with a hot journal beside it (a transaction never committed) is refused,
  since its pages may hold writes that were never saved, and so is one with a WAL file that holds
  writes (red team 15: commits kept there by a connection left open read as never made).
  `query_only`, `trusted_schema=OFF`, no attached databases.
- **Tables only**: a file whose schema holds a view, a trigger, a virtual table or a generated
  column is refused before any query (each of those runs the file's SQL, not the test's: a
  recursive view is endless work from a 4 KB file).
- **Bounded in size**: a regular file (never a link or a folder) of at most MAX_BYTES; values of
  at most MAX_VALUE bytes, SQL, expressions, columns and compound selects within SQLite's limits
  set below; at most `max_rows` rows and MAX_TOTAL bytes in what one call returns; SQLite's temp
  files (a sort's spill) stay in memory, and SQLite's heap in this process is capped at MAX_HEAP
  (never a disk filled through `ORDER BY`).
- **Bounded in time by counting, not by the clock**: SQLite's progress handler allows MAX_STEPS
  virtual-machine steps per connection (a student's view or recursive query that never ends is
  stopped at the same point on any machine, at any load).

A file that breaks a bound is a `ValueError` saying which, never a hang.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")  # a rollback journal's header (sqlite.org/fileformat.html)
WAL = b"\x02\x02"  # the header's write and read versions of a file in WAL mode (sqlite.org/fileformat.html)
MAX_BYTES = 16 << 20  # the judge's own cap on one file it reads (autograder/judge/files.py)
MAX_VALUE = 100_000  # bytes of one text or blob value
MAX_STEPS = 10_000_000  # SQLite virtual-machine steps one connection may take
STEP_BATCH = 1_000  # steps between two looks of the progress handler
MAX_ROWS = 10_000
MAX_TOTAL = 4 << 20  # bytes of text and blobs one read_rows call returns
MAX_HEAP = 256 << 20  # SQLite's memory in this process (PRAGMA hard_heap_limit: process-wide)
FETCH = 256  # rows fetched at a time while the total is counted
LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: MAX_VALUE,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
    sqlite3.SQLITE_LIMIT_COLUMN: 200,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 200,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 20,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 100,
}


def _contents(path) -> tuple[bytes, str]:
    """The bytes of the SQLite file at `path`, and its name for messages: a regular file, never a
    link, of at most MAX_BYTES, with no hot journal beside it. `path` may be a graded test's
    `KernelPath` (autograder/judge/files.py): the kernel's file, read by the judge on request."""
    p: Any = path if isinstance(path, PurePath) and hasattr(path, "read_bytes") else Path(os.path.abspath(os.fspath(path)))
    name = str(p)
    if p.is_symlink() or (p.exists() and not p.is_file()):
        raise ValueError(f"{name} is not a regular file (a link, a folder...): a test reads only a file")
    if not p.exists():
        raise ValueError(f"there is no file at {name}: the notebook's code did not write it")
    if p.stat().st_size > MAX_BYTES:
        raise ValueError(f"{name} holds {p.stat().st_size} bytes, more than a test reads ({MAX_BYTES})")
    journal = p.with_name(p.name + "-journal")
    if journal.is_file() and not journal.is_symlink() and journal.read_bytes()[:len(JOURNAL_MAGIC)] == JOURNAL_MAGIC:
        raise ValueError(f"{name} has a write that was never committed (a hot journal beside it): "
                         "commit after each change, so what the file holds is what was saved")
    wal = p.with_name(p.name + "-wal")
    if wal.is_file() and not wal.is_symlink() and wal.stat().st_size:
        raise ValueError(f"{name} has writes still in its WAL file beside it (a connection in WAL mode still "
                         "open): close each connection when done, so the file holds what was saved")
    data = p.read_bytes()
    if len(data) > MAX_BYTES:
        raise ValueError(f"{name} holds more than the {MAX_BYTES} bytes a test reads")
    if data[18:20] == WAL:  # a file once in WAL mode reads as a plain one (its -wal file is not read)
        data = data[:18] + b"\x01\x01" + data[20:]
    return data, name


def bound(db: sqlite3.Connection) -> sqlite3.Connection:
    """Put this module's bounds on a connection (also one a test keeps open to write on a file
    the notebook could replace): SQLite's limits, MAX_STEPS machine steps, temp files in memory,
    the heap cap, untrusted schema."""
    for limit, value in LIMITS.items():
        db.setlimit(limit, value)
    steps = iter(range(MAX_STEPS // STEP_BATCH))
    db.set_progress_handler(lambda: next(steps, None) is None, STEP_BATCH)
    db.execute(f"PRAGMA hard_heap_limit = {MAX_HEAP}")
    db.execute("PRAGMA temp_store = MEMORY")
    db.execute("PRAGMA trusted_schema = OFF")
    return db


def _tables_only(db: sqlite3.Connection, name: str) -> None:
    schema = db.execute("SELECT type, name, coalesce(sql, '') FROM sqlite_master").fetchmany(LIMITS[
        sqlite3.SQLITE_LIMIT_COLUMN] + 1)
    for kind, table, sql in schema:
        if kind not in ("table", "index") or sql.lstrip()[:14].upper().startswith("CREATE VIRTUAL"):
            raise ValueError(f"{name} holds a {kind} {str(table)[:40]!r} (a view, a trigger or a virtual "
                             "table): a test reads only plain tables")
        if kind == "table":
            for column in db.execute("SELECT name, hidden FROM pragma_table_xinfo(?)", (table,)).fetchall():
                if column[1] in (2, 3):
                    raise ValueError(f"{name}: the column {str(column[0])[:40]!r} of {str(table)[:40]!r} is "
                                     "generated (computed by the file's SQL): a test reads only stored values")


@contextlib.contextmanager
def read_only(path) -> Iterator[sqlite3.Connection]:
    """A read-only, bounded connection to a copy, in memory, of the SQLite file at `path`, closed after."""
    data, name = _contents(path)
    db = sqlite3.connect(":memory:")
    try:
        bound(db)
        try:
            db.deserialize(data)
        except (sqlite3.Error, MemoryError) as e:
            raise ValueError(f"{name} cannot be opened as a SQLite file: {e}") from None
        db.execute("PRAGMA query_only = ON")
        try:
            _tables_only(db, name)
        except sqlite3.OperationalError as e:
            raise ValueError(f"{name}: its schema could not be read within the bounds: {e}") from None
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{name} is not a SQLite file a test can read: {e}") from None
        yield db
    finally:
        db.close()


def read_rows(path, sql: str, params=(), max_rows: int = MAX_ROWS) -> list[tuple]:
    """The rows `sql` gives on the SQLite file at `path`, read as `read_only` reads (at most
    `max_rows`). A file that is not a database, or a query past a bound, is a ValueError."""
    with read_only(path) as db:
        try:
            rows = _fetch(db.execute(sql, params), path, sql, max_rows)
        except MemoryError:
            raise ValueError(f"reading {os.fspath(path)} needed more than SQLite's {MAX_HEAP >> 20} MB") from None
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e):
                raise ValueError(f"reading {os.fspath(path)} took more than {MAX_STEPS} steps of "
                                 "SQLite's machine: the file holds more work than a memory should") from None
            raise ValueError(f"{os.fspath(path)}: {e}") from None
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{os.fspath(path)} is not a SQLite file a test can read: {e}") from None
    return rows


def _size(value) -> int:
    return len(value) if isinstance(value, str | bytes) else 8


def _fetch(cursor: sqlite3.Cursor, path, sql: str, max_rows: int) -> list[tuple]:
    rows, total = [], 0
    while batch := cursor.fetchmany(FETCH):
        for row in batch:
            total += sum(_size(v) for v in row)
            rows.append(tuple(row))
            if len(rows) > max_rows:
                raise ValueError(f"{os.fspath(path)} gave more than {max_rows} rows for {sql[:80]!r}")
            if total > MAX_TOTAL:
                raise ValueError(f"{os.fspath(path)} gave more than {MAX_TOTAL} bytes for {sql[:80]!r}: "
                                 "more than a test reads")
    return rows
