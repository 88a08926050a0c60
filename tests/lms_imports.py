"""Canvas's and Moodle's grade imports as they read a CSV file, for tests/test_export_lms.py: the
rules docs/SOURCES.md quotes ("LMS grade imports", read 2026-12-06) from Canvas's
gradebook_importer.rb and its spec fixtures, MoodleDocs' "Grade import" and Moodle's
grade/import/csv (load_data.php, its behat test and fixtures) and assignfeedback_offline
(importgradeslib.php, its behat test). Each reader returns where every score lands, or fails
with what the import would refuse. They model the documented rules; no live LMS was at hand.
"""

from __future__ import annotations

import re
from datetime import datetime


def _number(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False


def canvas_import(table: list[list[str]]) -> dict[tuple[str, str], str]:
    """(student, assignment) -> the cell, as Canvas's gradebook import reads `table`; an
    AssertionError says what it would refuse. The header: Student, ID, [SIS User ID, SIS Login ID |
    SIS Login ID], Section, then one column an assignment; an optional Points Possible row; a
    student found by ID, else SIS Login ID, else name; a score a number, or empty or `-` (none)."""
    header = table[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], f"not a Canvas header: {header}"
    login = 3 if "SIS User ID" in header[2] and "SIS Login ID" in header[3] else 2 if "SIS Login ID" in header[2] else None
    students = {3: 5, 2: 4, None: 3}[login]
    assert "Section" in header[students - 1], f"the student columns must end with Section: {header}"
    assignments = header[students:]
    assert assignments and all(assignments) and len(set(assignments)) == len(assignments), assignments
    rows = table[1:]
    if rows and "Points Possible" in rows[0][0]:
        assert all(_number(p) for p in rows.pop(0)[students:]), "Points Possible must be numbers"
    found = {}
    for row in rows:
        assert len(row) == len(header), f"a row of {len(row)} cells under {len(header)} columns: {row}"
        who = row[1] or (row[login] if login else "") or row[0]
        assert who, f"a row Canvas can match to no student: {row}"
        for title, cell in zip(assignments, row[students:], strict=True):
            assert cell in ("", "-") or _number(cell), f"{who} / {title}: {cell!r} is no score"
            found[(who, title)] = cell
    return found


def moodle_import(table: list[list[str]], identify_by: str, users: set[str],
                  items: list[str] | None = None) -> dict[tuple[str, str], str]:
    """(user, grade item) -> the cell, as Moodle's gradebook CSV import reads `table` with the column
    `identify_by` mapped to a user field and `items` (default: every other column) to grade items;
    a user Moodle does not know stops the whole import."""
    header = table[0]
    assert identify_by in header, f"no column {identify_by!r} to identify users by: {header}"
    at = header.index(identify_by)
    items = items if items is not None else [h for i, h in enumerate(header) if i != at]
    assert items and all(items) and len(set(items)) == len(items) and set(items) <= set(header), items
    found = {}
    for row in table[1:]:
        assert len(row) == len(header), f"a row of {len(row)} cells under {len(header)} columns: {row}"
        assert row[at] in users, f"Moodle knows no user {row[at]!r}: the import stops"
        for title in items:
            cell = row[header.index(title)]
            assert cell in ("", "-") or _number(cell), f"{row[at]} / {title}: {cell!r} is no grade"
            found[(row[at], title)] = cell
    return found


def moodle_worksheet(table: list[list[str]]) -> dict[str, str]:
    """participant id -> grade, as an assignment's "Upload grading worksheet" reads `table`: the
    columns Identifier, Grade and Last modified (grade) found by their headers, all three needed."""
    header = table[0]
    missing = [c for c in ("Identifier", "Grade", "Last modified (grade)") if c not in header]
    assert not missing, f"the worksheet lacks {missing}"
    ident, grade, modified = (header.index(c) for c in ("Identifier", "Grade", "Last modified (grade)"))
    found = {}
    for row in table[1:]:
        assert re.fullmatch(r"Participant \d+", row[ident]), f"{row[ident]!r} is no participant"
        assert _number(row[grade]), f"{row[ident]}: {row[grade]!r} is no grade"
        datetime.strptime(row[modified], "%Y-%m-%d %H:%M:%S UTC")  # a time PHP's strtotime reads
        found[row[ident].removeprefix("Participant ")] = row[grade]
    return found
