"""Every student gets a row for every chapter, with the reason when there is no grade, and the
grades go into Canvas and Moodle (issue 46, items 2 and 5; docs/LMS.md).

A course of the first two chapters (the sample cohort's) is collected from the sample cohort's
folder, from a Canvas download, a Moodle download and nbgrader's exchange. Grading is not what is
tested here: each collected notebook gets a stand-in result (its chapter's tests, every point for
ada, none for the others) saved as `grade` saves one, so that export has grades to write.

Each file written is read back as the LMS's import reads it (`canvas_import`, `moodle_import`,
`moodle_worksheet`: the rules docs/SOURCES.md quotes, "LMS grade imports"), and checked to put each
student's score in their own cell. No file was imported into a live Canvas or Moodle (docs/LMS.md)."""

from __future__ import annotations

import csv
import os
import re
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from nbgrader.utils import notebook_hash

from autograder import notebooks
from autograder.course import REPO, AutograderError, Course
from autograder.pipeline import exchange, lms_export, results
from autograder.pipeline.collect import collect
from autograder.pipeline.export import export
from tests.lms_imports import canvas_import, moodle_import, moodle_worksheet

SAMPLE = REPO / "autograder" / "sample_cohort"
ONE, TWO = "00_start_here", "01_one_step"


@pytest.fixture
def course(tmp_path):
    for chapter in (ONE, TWO):
        (tmp_path / "solutions" / chapter).mkdir(parents=True)
        for suffix in (".py", ".ipynb"):
            shutil.copyfile(REPO / "solutions" / chapter / f"{chapter}{suffix}",
                            tmp_path / "solutions" / chapter / f"{chapter}{suffix}")
    return Course(root=tmp_path)


def _grade(course: Course) -> None:
    """A stand-in result for each collected notebook: every point for ada, none for the others."""
    for nb in sorted(course.submitted.glob("*/*/*.ipynb")):
        student, chapter = nb.parent.parent.name, nb.parent.name
        record = {"student": student, "chapter": chapter, "status": "ok", "message": "", "score": 0.0,
                  "max_score": 0.0, "tests": {}, "exercises": {}, "events": [], "sandbox": "bwrap", "seconds": 1.0}
        for test in notebooks.chapter_tests(notebooks.read(course.solution_ipynb(chapter))):
            results.add_test(record, test, test["points"] if student.startswith("ada") else 0.0, None)
        results.save(course, record)


def test_the_import_rules_take_the_documented_examples_and_refuse_broken_ones():
    """The check of the checks above: files in the shapes the LMSs document are taken; each
    broken one is refused for its own reason."""
    canvas = [["Student", "ID", "SIS Login ID", "Section", "Assignment 1"], ["Points Possible", "", "", "", "10"],
              ["Doe, Jane", "6", "jdoe", "My Course", "8"], ["Roe, Rick", "", "rroe", "My Course", "-"]]
    assert canvas_import(canvas) == {("6", "Assignment 1"): "8", ("rroe", "Assignment 1"): "-"}
    for broken, says in (([r[:3] + r[4:] for r in canvas], "must end with Section"),
                         ([canvas[0], canvas[1], [*canvas[2][:4], "eight"]], "is no score"),
                         ([canvas[0], canvas[2][:4]], "a row of 4 cells")):
        with pytest.raises(AssertionError, match=says):
            canvas_import(broken)
    moodle = [["First name", "Last name", "Email address", "Grade A"], ["Student", "1", "s1@example.com", "11"]]
    assert moodle_import(moodle, "Email address", {"s1@example.com"}, ["Grade A"]) == {("s1@example.com", "Grade A"): "11"}
    with pytest.raises(AssertionError, match="'Student' is no grade"):
        moodle_import(moodle, "Email address", {"s1@example.com"})  # a name column mapped to a grade item
    with pytest.raises(AssertionError, match="Moodle knows no user '    Points Possible'"):
        moodle_import([["Username", "01"], ["    Points Possible", "10"]], "Username", {"ada"})
    sheet = [["Identifier", "Full name", "Grade", "Last modified (grade)"],
             ["Participant 4001", "Ada", "5", "2026-12-06 12:00:00 UTC"]]
    assert moodle_worksheet(sheet) == {"4001": "5"}
    with pytest.raises(AssertionError, match=r"lacks \['Last modified \(grade\)'\]"):
        moodle_worksheet([[c for c in sheet[0] if c != "Last modified (grade)"]])


def _maximum(course: Course, chapter: str) -> str:
    """A chapter's maximum as export writes it (ada's score: every point)."""
    return str(int(sum(t["points"] for t in notebooks.chapter_tests(notebooks.read(course.solution_ipynb(chapter))))))


def _read(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _rows(course: Course) -> dict[tuple[str, str], dict]:
    export(course)
    with open(course.grades_csv, newline="", encoding="utf-8") as f:
        return {(r["student"], r["chapter"]): r for r in csv.DictReader(f)}


def test_canvas_and_moodle_files_from_the_sample_cohort(course):
    lines = collect(course, SAMPLE)
    assert lines[-1].startswith("collected 10 notebook(s) of 5 student(s)"), lines
    _grade(course)
    students = ["ada", "ben", "cy", "dan", "eve"]
    maximum = {c: _maximum(course, c) for c in (ONE, TWO)}

    printed = export(course, lms="canvas")
    table = _read(course.workspace / "canvas.csv")
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ONE, TWO]
    assert table[1] == ["    Points Possible", "", "", "", "", maximum[ONE], maximum[TWO]]
    assert [row[0] for row in table[2:]] == students and all(len(row) == 7 for row in table)
    assert [row[3] for row in table[2:]] == students  # no Canvas id: matched by SIS Login ID
    assert table[2][5:] == [maximum[ONE], maximum[TWO]] and table[3][5:] == ["0", "0"]
    assert printed[-1].startswith("export: Canvas gradebook import, 5 student(s)"), printed
    assert canvas_import(table) == {(s, c): maximum[c] if s == "ada" else "0" for s in students for c in (ONE, TWO)}

    printed = export(course, lms="moodle")
    table = _read(course.workspace / "moodle.csv")
    assert table == [["Username", ONE, TWO], *([s, *([maximum[ONE], maximum[TWO]] if s == "ada" else ["0", "0"])]
                                                for s in students)]
    assert not list(course.workspace.glob("moodle-*.csv")), "no Moodle participant: no grading worksheet"
    assert printed[-1].startswith("export: Moodle gradebook import, 5 student(s)"), printed
    assert moodle_import(table, "Username", set(students)) == canvas_import(_read(course.workspace / "canvas.csv"))


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o644) << 16  # as LMS zips mark their files
            zf.writestr(info, data)
    return path


def test_a_canvas_zip_of_two_chapters_carries_ids_late_and_every_odd_notebook(course, tmp_path):
    first, second = (SAMPLE / "ada" / c / f"{c}.ipynb" for c in (ONE, TWO))
    archive = _zip(tmp_path / "submissions.zip", {
        f"ada_1001_9001_{ONE}.ipynb": first.read_bytes(),
        f"ada_LATE_1001_9002_{TWO}.ipynb": second.read_bytes(),
        f"ben_1002_9003_{ONE}.ipynb": first.read_bytes(),
        "ben_1002_9004_homework.ipynb": second.read_bytes(),  # renamed: names no chapter
        f"cy_1003_9005_{ONE}.ipynb": b"{not json",
        f"cy_1003_9006_{TWO}.ipynb": first.read_bytes(),  # chapter 00's notebook handed in as 01
    })
    lines = collect(course, archive)
    text = "\n".join(lines)
    assert lines[-1].startswith("collected 3 notebook(s) of 2 student(s)"), lines
    assert "skipped: ben_1002_9004_homework.ipynb: the original file name 'homework.ipynb' names no known" in text
    assert f"skipped: cy_1003_9005_{ONE}.ipynb: file is not a notebook (not valid JSON)" in text
    assert f"skipped: cy_1003_9006_{TWO}.ipynb: wrong chapter: it is the notebook of chapter {ONE}, not of {TWO}" \
        in text
    _grade(course)

    rows = _rows(course)
    assert len(rows) == 6, rows
    assert rows[("ada_1001", TWO)]["status"] == "ok" and "handed in late (Canvas: LATE)" in rows[("ada_1001", TWO)]["notes"]
    assert rows[("ben_1002", TWO)]["status"] == "missing"
    assert "not collected: ben_1002_9004_homework.ipynb" in rows[("ben_1002", TWO)]["notes"]
    assert rows[("cy_1003", ONE)]["status"] == "unreadable"
    assert rows[("cy_1003", ONE)]["notes"] == "unreadable: not a notebook (not valid JSON)"
    assert rows[("cy_1003", TWO)]["status"] == "wrong_chapter"
    assert rows[("cy_1003", TWO)]["notes"].startswith(f"wrong chapter: it is the notebook of chapter {ONE}")

    printed = export(course, lms="canvas")
    table = _read(course.workspace / "canvas.csv")
    assert [row[:2] for row in table[2:]] == [["ada", "1001"], ["ben", "1002"], ["cy", "1003"]]
    assert [row[5:] for row in table[2:]] == [[table[1][5], table[1][6]], ["0", ""], ["", ""]]
    assert f"late: ada_1001 / {TWO} (Canvas's LATE; the score is not changed)" in printed
    assert canvas_import(table) == {("1001", ONE): table[1][5], ("1001", TWO): table[1][6], ("1002", ONE): "0",
                                    ("1002", TWO): "", ("1003", ONE): "", ("1003", TWO): ""}  # by Canvas user id
    assert any(line.startswith(f"left empty: cy_1003 / {TWO}: wrong_chapter") for line in printed), printed


def test_a_moodle_download_goes_into_worksheets_by_participant_id(course, tmp_path):
    first, second = (SAMPLE / "ada" / c / f"{c}.ipynb" for c in (ONE, TWO))
    archive = _zip(tmp_path / "moodle.zip", {
        f"Ada Lovelace_4001_assignsubmission_file_/{ONE}.ipynb": first.read_bytes(),
        f"Ada Lovelace_5001_assignsubmission_file_/{TWO}.ipynb": second.read_bytes(),
        f"Ben Bit_4002_assignsubmission_file_/work/{ONE}.ipynb": first.read_bytes(),
        f"dan/{ONE}.ipynb": first.read_bytes(),  # a student who handed in by hand: a username
    })
    collect(course, archive)
    _grade(course)
    printed = export(course, lms="moodle")
    assert _read(course.workspace / "moodle.csv") == [["Username", ONE, TWO], ["dan", "0", ""]]
    assert any("only Moodle participant ids): ada-lovelace, ben-bit" in line for line in printed), printed
    sheet = _read(course.workspace / f"moodle-{ONE}.csv")
    assert sheet[0] == ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"]
    assert [r[:3] for r in sheet[1:]] == [["Participant 4001", "Ada Lovelace", sheet[1][3]], ["Participant 4002", "Ben Bit", "0"]]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", r[4]) for r in sheet[1:]), sheet
    assert _read(course.workspace / f"moodle-{TWO}.csv")[1][:2] == ["Participant 5001", "Ada Lovelace"]
    assert moodle_import(_read(course.workspace / "moodle.csv"), "Username", {"dan"}) == {("dan", ONE): "0", ("dan", TWO): ""}
    assert moodle_worksheet(sheet) == {"4001": sheet[1][2], "4002": "0"} and sheet[1][2] == sheet[1][3] != "0"
    assert moodle_worksheet(_read(course.workspace / f"moodle-{TWO}.csv")) == {"5001": _maximum(course, TWO)}


def _inbound(tmp: Path, name: str, notebook: bytes | None, chapter: str) -> None:
    folder = tmp / "exchange" / "c" / "inbound" / name
    folder.mkdir(parents=True)
    if notebook is not None:
        (folder / f"{chapter}.ipynb").write_bytes(notebook)
    (folder / "timestamp.txt").write_text(name.split("+")[2])
    (folder / "submission_secret.txt").write_text(f"secret-{name.split('+')[0]}")


def test_the_exchange_gives_every_student_on_the_roster_a_row_and_a_page(course, tmp_path):
    good = (SAMPLE / "ada" / ONE / f"{ONE}.ipynb").read_bytes()
    stamp = "2026-12-01 10:00:00.000000 UTC"
    for chapter in (ONE, TWO):
        (tmp_path / "exchange" / "c" / "outbound" / chapter).mkdir(parents=True)
    _inbound(tmp_path, f"ann+{ONE}+{stamp}+a", good, ONE)
    _inbound(tmp_path, f"bob+{ONE}+{stamp}+b", b"{broken", ONE)
    _inbound(tmp_path, f"cat+{TWO}+{stamp}+c", good, TWO)  # chapter 00's notebook handed in as 01
    (tmp_path / "exchange" / "c" / "inbound" / "stray").mkdir()
    lines = exchange.collect_exchange(course, tmp_path / "exchange", "c", students="ann,bob,cat,dan",
                                      who=lambda _: os.getuid())
    assert lines[-1].startswith("collected 1 notebook(s) of 1 student(s)"), lines
    assert f"skipped: inbound/bob+{ONE}+{stamp}+b: file is not a notebook (not valid JSON)" in lines, lines
    assert any(line.startswith("skipped: stray: not a submission folder's name") for line in lines), lines

    rows = _rows(course)
    assert sorted(rows) == [(s, c) for s in ("ann", "bob", "cat", "dan") for c in (ONE, TWO)]
    assert rows[("ann", ONE)]["status"] == "not_graded" and rows[("ann", TWO)]["status"] == "missing"
    assert rows[("bob", ONE)]["status"] == "unreadable" and rows[("cat", TWO)]["status"] == "wrong_chapter"
    assert {rows[("dan", c)]["status"] for c in (ONE, TWO)} == {"missing"}

    lines = exchange.release_feedback(course, tmp_path / "exchange", "c")
    pages = tmp_path / "exchange" / "c" / "feedback"
    for student, chapter, why in (("ann", ONE, "it has not been graded yet"),
                                  ("bob", ONE, "it was not graded: unreadable: not a notebook (not valid JSON)"),
                                  ("cat", TWO, f"wrong chapter: it is the notebook of chapter {ONE}")):
        page = pages / (notebook_hash(secret=f"secret-{student}", notebook_id=chapter) + ".html")
        assert why in page.read_text(encoding="utf-8"), (student, page.read_text(encoding="utf-8"))
        assert any(line.startswith(student) and "no feedback page" in line for line in lines), lines
    assert lines[-1].startswith("released 3 feedback page(s)")


def test_export_without_anything_collected_or_graded_says_so(course):
    with pytest.raises(AutograderError, match="nothing collected: run `collect` and `grade` first"):
        export(course)
    with pytest.raises(AutograderError, match="unknown; choose canvas or moodle"):
        lms_export.write(course, "blackboard", [{"student": "a"}], {})
