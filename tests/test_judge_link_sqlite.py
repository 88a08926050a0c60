"""The one reader tests use for a SQLite file the notebook wrote (workbook/link/sqlite_reader.py):
it sees committed rows, changes nothing on disk (not even with a hot journal planted next to the
file), refuses a file whose last transaction never ended (a hot journal beside it), and stops at its bounds (size, links, values, rows, SQLite machine steps) with a
ValueError, never a hang. Chapter 17's tests read their memory file through it."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from workbook.link import sqlite_reader
from workbook.link.sqlite_reader import read_only, read_rows

ROOT = Path(__file__).resolve().parent.parent
TABLE = "CREATE TABLE facts (id INTEGER PRIMARY KEY, customer TEXT, day TEXT, fact TEXT)"


def memory(folder: Path, rows=(("C-001", "2026-11-30", "Likes tea."),), name="memory.sqlite3") -> Path:
    path = folder / name
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(TABLE)
        db.executemany("INSERT INTO facts (customer, day, fact) VALUES (?, ?, ?)", rows)
        db.commit()
    return path


def snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_it_reads_what_was_committed(tmp_path):
    path = memory(tmp_path, [("C-001", "2026-11-30", "Likes tea."), ("C-002", "2026-12-01", "Wants a call.")])
    assert read_rows(path, "SELECT customer, fact FROM facts WHERE customer = ?", ("C-002",)) == [
        ("C-002", "Wants a call.")]
    assert read_rows(str(path), "SELECT COUNT(*) FROM facts") == [(2,)]


def test_a_planted_hot_journal_is_neither_read_nor_rolled_back(tmp_path):
    live, left = tmp_path / "live", tmp_path / "left"
    live.mkdir()
    left.mkdir()
    path = memory(live, [("C-001", "2026-11-30", f"Fact {i} " + "x" * 500) for i in range(400)])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA cache_size = 2")  # the change spills into the file before any commit
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE facts SET fact = 'gone'")
    for name in os.listdir(live):  # what a crash in the middle of it leaves behind
        shutil.copy(live / name, left / name)
    writer.execute("ROLLBACK")
    writer.close()
    assert (left / "memory.sqlite3-journal").exists(), "the copy holds a hot journal"
    before = snapshot(left)
    with contextlib.suppress(ValueError):  # the half-written file may not even read: either way
        read_rows(left / "memory.sqlite3", "SELECT COUNT(*) FROM facts")
    assert snapshot(left) == before, "reading changed the folder (a journal rolled back, a file made)"
    with contextlib.closing(sqlite3.connect(left / "memory.sqlite3")) as plain:  # what a plain reader does
        plain.execute("SELECT COUNT(*) FROM facts").fetchall()
    assert snapshot(left) != before, "a plain connection rolls the journal back: the check above can fail"


def test_it_writes_nothing(tmp_path):
    path = memory(tmp_path)
    before = snapshot(tmp_path)
    for sql in ("INSERT INTO facts (customer, day, fact) VALUES ('C-9', 'd', 'f')", "DELETE FROM facts",
                "ATTACH DATABASE 'other.sqlite3' AS other", "PRAGMA query_only = OFF"):
        with contextlib.suppress(ValueError):
            read_rows(path, sql)
    assert snapshot(tmp_path) == before and read_rows(path, "SELECT COUNT(*) FROM facts") == [(1,)]


def test_a_query_that_never_ends_is_stopped_by_counting_steps(tmp_path):
    path = memory(tmp_path)
    endless = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
    with pytest.raises(ValueError, match="steps of SQLite's machine"):
        read_rows(path, endless + "SELECT COUNT(*) FROM n")
    with pytest.raises(ValueError, match="more than 5 rows"):
        read_rows(path, endless + "SELECT x FROM n", max_rows=5)


@pytest.mark.parametrize("schema", [
    "CREATE VIEW facts AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
    "SELECT 'C-001' AS customer, '2026-11-30' AS day, 'f' AS fact FROM n",
    "CREATE TABLE facts (id INTEGER PRIMARY KEY, customer TEXT, day TEXT, fact TEXT); "
    "CREATE TRIGGER t AFTER INSERT ON facts BEGIN DELETE FROM facts; END",
    "CREATE TABLE facts (id INTEGER PRIMARY KEY, customer TEXT, day TEXT, fact AS (zeroblob(99000)))",
])
def test_a_file_whose_schema_runs_its_own_sql_is_refused(tmp_path, schema):
    path = tmp_path / "memory.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as db:  # the student's file: SQL of its own
        db.executescript(schema)
    with pytest.raises(ValueError, match="reads only"):
        read_rows(path, "SELECT fact FROM facts")


def test_what_one_call_returns_is_bounded_in_bytes_and_rows(tmp_path):
    fact = "z" * 90_000  # under MAX_VALUE each; together far over MAX_TOTAL
    path = memory(tmp_path, [("C-001", "2026-11-30", fact)] * 60)
    with pytest.raises(ValueError, match="bytes"):
        read_rows(path, "SELECT fact FROM facts ORDER BY day")
    assert len(read_rows(path, "SELECT fact FROM facts LIMIT 40")) == 40
    many = memory(tmp_path, [("C-001", "d", "f")] * (sqlite_reader.MAX_ROWS + 1), name="many.sqlite3")
    with pytest.raises(ValueError, match="rows"):
        read_rows(many, "SELECT id FROM facts")


def test_a_sort_spills_to_memory_never_to_disk(tmp_path):
    with read_only(memory(tmp_path)) as db:
        assert db.execute("PRAGMA temp_store").fetchone() == (2,)
        assert db.execute("PRAGMA hard_heap_limit").fetchone()[0] == sqlite_reader.MAX_HEAP


def test_a_value_over_the_bound_is_refused(tmp_path):
    path = memory(tmp_path, [("C-001", "2026-11-30", "y" * (sqlite_reader.MAX_VALUE + 1))])
    with pytest.raises(ValueError, match="too big"):
        read_rows(path, "SELECT fact FROM facts")


def test_only_a_regular_file_of_bounded_size_is_opened(tmp_path):
    path = memory(tmp_path)
    link = tmp_path / "link.sqlite3"
    link.symlink_to(path)
    with pytest.raises(ValueError, match="not a regular file"):
        read_rows(link, "SELECT 1")
    with pytest.raises(ValueError, match="not a regular file"):
        read_rows(tmp_path, "SELECT 1")
    with pytest.raises(ValueError, match="did not write it"):
        read_rows(tmp_path / "missing.sqlite3", "SELECT 1")
    big = tmp_path / "big.sqlite3"
    with open(big, "wb") as f:
        f.truncate(sqlite_reader.MAX_BYTES + 1)
    with pytest.raises(ValueError, match="more than a test reads"):
        read_rows(big, "SELECT 1")
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ValueError, match="not a SQLite file"):
        read_rows(junk, "SELECT * FROM facts")


def test_the_connection_is_closed_after_its_block(tmp_path):
    with read_only(memory(tmp_path)) as db:
        assert db.execute("PRAGMA query_only").fetchone() == (1,)
    with pytest.raises(sqlite3.ProgrammingError):
        db.execute("SELECT 1")


def test_chapter_17s_tests_read_their_memory_through_the_one_reader():
    source = (ROOT / "solutions" / "17_agent_memory" / "17_agent_memory.py").read_text(encoding="utf-8")
    cells = source.split("\n# %%")
    tests = [c for c in cells if c.startswith(' nbgrader={"grade": true')]
    readers = [c.split('"grade_id": "')[1].split('"')[0] for c in tests if "SELECT" in c]
    assert readers, "chapter 17 has tests that read the memory file"
    for cell, grade_id in ((c, c.split('"grade_id": "')[1].split('"')[0]) for c in tests):
        if "SELECT" in cell:
            assert "read_rows(" in cell and "set_progress_handler" not in cell, (
                f"{grade_id} reads the memory file with a reader of its own, not sqlite_reader.read_rows")


def test_a_write_never_committed_is_refused_not_read_as_saved(tmp_path):
    """Red team 14: a `remember` that never committed, with SQLite's cache made to spill the
    uncommitted pages into the file, read as saved through `immutable=1` (which ignores the hot
    journal beside it): chapter 17's remember went from 0/4 to 4/4."""
    path = tmp_path / "memory.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE facts (fact TEXT)")
    db.commit()
    db.execute("PRAGMA cache_size = 1")
    db.execute("INSERT INTO facts VALUES ('never saved')")
    db.execute("CREATE TABLE pad (x BLOB)")
    for _ in range(60):
        db.execute("INSERT INTO pad VALUES (zeroblob(3000))")  # more than the cache: pages spill
    with pytest.raises(ValueError, match="never committed"):
        sqlite_reader.read_rows(path, "SELECT fact FROM facts")
    db.commit()
    assert sqlite_reader.read_rows(path, "SELECT fact FROM facts") == [("never saved",)]
    db.close()


def test_commits_still_in_a_wal_file_are_refused_not_read_as_never_made(tmp_path):
    """Red team 15: a `remember` that wrote an over-long fact in WAL mode and kept its connection
    open (no checkpoint) left the commit in `-wal`; the reader, which reads the file alone, saw no
    row, and chapter 17's visible test passed a wrong answer."""
    path = tmp_path / "memory.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE facts (fact TEXT)")
    db.execute("INSERT INTO facts VALUES ('kept in the WAL')")
    db.commit()
    with pytest.raises(ValueError, match="WAL file"):
        sqlite_reader.read_rows(path, "SELECT fact FROM facts")
    db.close()  # the last connection checkpoints and removes the WAL file
    assert sqlite_reader.read_rows(path, "SELECT fact FROM facts") == [("kept in the WAL",)]
