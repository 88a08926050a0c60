"""Chapter 19's judge-side memory store (`workbook/scenarios/attacks_memory.Memory`) on a file the
notebook can rewrite (the scratch mirror copies the kernel's version out to the judge): the red
team swapped it for a recursive view, and the judge's own connection hung inside SQLite and spilled
a sort into the host's /tmp. Its reads now go through `sqlite_reader` and its writes run on a
bounded connection: a swapped file is a ValueError or a SQLite error, never a hang."""

from __future__ import annotations

import contextlib
import datetime
import sqlite3
from pathlib import Path

import pytest

from workbook.link import sqlite_reader
from workbook.scenarios import attacks_memory

ROOT = Path(__file__).resolve().parent.parent
DAY = datetime.date(2026, 12, 1)
VIEW = ("CREATE VIEW facts AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200) "
        "SELECT x AS id, 'C-001' AS customer, '2026-12-01' AS day, hex(zeroblob(45000)) AS fact FROM n")


def swap(path: Path, schema: str) -> None:
    """What the attack did: overwrite the file in place with a database of the notebook's making."""
    other = path.with_name("evil.sqlite3")
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.executescript(schema)
    path.write_bytes(other.read_bytes())


def test_a_file_swapped_for_a_view_is_refused_not_read(tmp_path):
    path = tmp_path / "memory.sqlite3"
    memory = attacks_memory.Memory(str(path), today=DAY)
    memory.remember("Leave parcels at reception.")
    assert memory.facts() == [("2026-12-01", "Leave parcels at reception.")]
    assert memory.recall("parcels reception")[0]["fact"] == "Leave parcels at reception."
    swap(path, VIEW)  # 200 rows of 90 KB: 18 MB from a 4 KB file (unbounded: endless)
    with pytest.raises(ValueError, match="reads only plain tables"):
        memory.facts()
    with pytest.raises(ValueError, match="reads only plain tables"):
        memory.recall("delivery preference")
    memory.close()


def test_the_store_writes_on_a_bounded_connection(tmp_path):
    path = tmp_path / "memory.sqlite3"
    memory = attacks_memory.Memory(str(path), today=DAY)
    assert memory._db.execute("PRAGMA temp_store").fetchone() == (2,)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):  # the connection's step budget
        memory._db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
                           "SELECT COUNT(*) FROM n").fetchall()
    memory.close()


def test_in_memory_store_still_reads_its_own_connection():
    memory = attacks_memory.Memory(today=DAY)
    memory.remember("Call after 5 pm.")
    assert memory.facts() == [("2026-12-01", "Call after 5 pm.")]
    memory.close()


def test_chapter_19s_tests_read_the_memory_file_only_through_the_store():
    source = (ROOT / "solutions" / "19_attack_your_own_agent" / "19_attack_your_own_agent.py").read_text("utf-8")
    tests = [c for c in source.split("\n# %%") if c.startswith(' nbgrader={"grade": true')]
    assert any("memory.sqlite3" in c for c in tests), "chapter 19 has a test with a memory file"
    for cell in tests:
        assert "sqlite3.connect" not in cell and "import sqlite3" not in cell, (
            "a chapter 19 test opens a SQLite file of its own: read it through sqlite_reader")
    assert "read_rows" in (ROOT / "workbook" / "scenarios" / "attacks_memory.py").read_text("utf-8")
    assert sqlite_reader.MAX_TOTAL < 200 * 90_000
