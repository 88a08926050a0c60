"""The instructor CLI: collect's placement rules and errors, check's exit codes, release's
idempotence, export/report from results, and readable errors instead of tracebacks."""

import csv
import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from autograder.__main__ import main
from autograder.course import REPO, AutograderError, Course
from autograder.gates import variants
from autograder.pipeline import results
from autograder.pipeline.collect import collect
from autograder.pipeline.export import export, report
from autograder.release.release import release

PILOT = REPO / "tests" / "pilot"
CHAPTER = "00_pilot"


@pytest.fixture
def course(tmp_path):
    """A copy of the pilot course, safe to release into and grade in."""
    shutil.copytree(PILOT / "solutions", tmp_path / "solutions")
    shutil.copytree(PILOT / "chapters", tmp_path / "chapters")
    return Course(root=tmp_path)


def _released(course):
    return course.released(CHAPTER).read_text()


def test_release_is_idempotent_and_marks_chapters_generated(course):
    (course.release / "README.md").unlink()
    first = release(course)
    assert any("README.md" in line for line in first)
    again = release(course)
    assert again[-1].endswith("0 file(s) changed"), again
    assert "generated, do not edit" in (course.release / "README.md").read_text()
    assert "BEGIN SOLUTION" not in _released(course) and "BEGIN HIDDEN" not in _released(course)
    assert not list(course.release.rglob("*.py")), "the chapter source must never be released"


def test_release_of_one_chapter_leaves_the_others_alone(course):
    other = course.release / "99_in_progress"  # another author's chapter, not in solutions/ yet
    other.mkdir()
    lines = release(course, only=[CHAPTER])
    assert other.is_dir() and lines[-1].startswith("release: 1 chapter(s)"), lines
    with pytest.raises(SystemExit, match="no chapter 42_nope"):
        release(course, only=["42_nope"])


def test_collect_accepts_three_layouts_and_a_zip(course, tmp_path):
    src = tmp_path / "inbox"
    for rel in (f"ann/{CHAPTER}/whatever.ipynb", f"bob/{CHAPTER}.ipynb", f"cat_{CHAPTER}.ipynb"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(course.released(CHAPTER), src / rel)
    (src / "notes.txt").write_text("ignored")
    lines = collect(course, src)
    assert lines[-1].startswith("collected 3 notebook(s) of 3 student(s)")
    for student in ("ann", "bob", "cat"):
        assert (course.submitted / student / CHAPTER / f"{CHAPTER}.ipynb").is_file()
    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(course.released(CHAPTER), f"export/dee_{CHAPTER}.ipynb")
    assert collect(course, archive)[-1].startswith("collected 1 notebook(s)")
    assert (course.submitted / "dee" / CHAPTER / f"{CHAPTER}.ipynb").is_file()


def test_collect_refuses_what_it_cannot_place(course, tmp_path):
    src = tmp_path / "inbox"
    src.mkdir()
    shutil.copyfile(course.released(CHAPTER), src / "ann_99_unknown.ipynb")
    (src / f"bob_{CHAPTER}.ipynb").write_text("{not json")
    shutil.copyfile(course.released(CHAPTER), src / f"cat_{CHAPTER}.ipynb")
    lines = collect(course, src)  # what cannot be placed or read never blocks the rest (issue 46)
    text = "\n".join(lines)
    assert "skipped: ann_99_unknown.ipynb: a flat file must be named <student>_<chapter>.ipynb" in text
    assert f"skipped: bob_{CHAPTER}.ipynb: file is not a notebook (not valid JSON)" in text
    assert lines[-1].startswith("collected 1 notebook(s)") and sum(x.startswith("skipped") for x in lines) == 2
    assert [p.parent.parent.name for p in course.submitted.rglob("*.ipynb")] == ["cat"]
    (src / f"cat_{CHAPTER}.ipynb").unlink()
    with pytest.raises(AutograderError, match="nothing to collect"):
        collect(course, src)


def test_collect_refuses_unsafe_zips(course, tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape.ipynb", "{}")
    with pytest.raises(AutograderError, match="unsafe path"):
        collect(course, archive)
    (tmp_path / "not.zip").write_text("nope")
    with pytest.raises(AutograderError, match="is not a zip file"):
        collect(course, tmp_path / "not.zip")


def _record(student, chapter, scores, status="ok", events=()):
    tests = {f"{ex}_tests": {"score": s, "max": 1.0, "exercise": ex, "error": None if s else "AssertionError: x"}
             for ex, s in scores.items()}
    return {"student": student, "chapter": chapter, "status": status, "message": "", "seconds": 1.0,
            "score": float(sum(scores.values())), "max_score": float(len(scores)), "tests": tests,
            "exercises": {ex: {"score": s, "max": 1.0} for ex, s in scores.items()},
            "events": list(events)}


def test_export_and_report_from_results(course):
    results.save(course, _record("ann", CHAPTER, {"add": 1, "one_step": 1}))
    results.save(course, _record("bob", CHAPTER, {"add": 0, "one_step": 0}, "dead_kernel",
                                 [{"kind": "dead_kernel", "cell": 4, "grade_id": "add_tests", "detail": "x"}]))
    results.save(course, _record("cat", "01_other", {"loop": 0}, "timeout",
                                 [{"kind": "timeout", "cell": 2, "grade_id": "loop_tests", "detail": "x"}]))
    assert export(course)[0].startswith("export: 6 row(s)")
    with open(course.grades_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["student", "chapter", "status", "score", "max_score", "add", "one_step", "loop", "notes"]
    by = {(r["student"], r["chapter"]): r for r in rows}
    assert by[("ann", "01_other")]["status"] == "missing"
    assert by[("bob", CHAPTER)]["status"] == "dead_kernel" and "dead kernel at add_tests" in by[("bob", CHAPTER)]["notes"]
    assert "timeout at loop_tests" in by[("cat", "01_other")]["notes"]
    table = "\n".join(report(course))
    assert "01_other" in table and "  loop" in table and "not graded because of errors" not in table


def _cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_cli_errors_are_one_line_not_tracebacks(course, tmp_path):
    """One process proves `python -m autograder` turns an AutograderError into one line and exit 2;
    the other errors are the same AutograderError path, checked in this process (a CLI start costs
    seconds)."""
    done = _cli("--root", course.root, "grade")
    assert done.returncode == 2 and done.stderr.startswith("error: nothing to grade"), done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(AutograderError, match="no such notebook"):
        main(["check", str(tmp_path / "missing.ipynb")])
    (tmp_path / "broken.ipynb").write_text("{")
    with pytest.raises(AutograderError, match="not a notebook"):
        main(["check", str(tmp_path / "broken.ipynb")])
    with pytest.raises(AutograderError, match="unknown chapter '99_nope'"):
        variants.save(variants.stub(course, CHAPTER), course.submitted / "ann" / CHAPTER / f"{CHAPTER}.ipynb")
        main(["--root", str(course.root), "grade", "--chapter", "99_nope"])


@pytest.mark.slow
def test_check_exit_codes(course, tmp_path, capsys):
    """`check`'s exit code is main's return value (`sys.exit(main())`; the process itself is
    proved by the test above and by test_make_check), so it runs here, without a CLI start."""
    solved = variants.save(variants.solved(course, CHAPTER), tmp_path / "solved" / f"{CHAPTER}.ipynb")
    code, out = main(["check", str(solved)]), capsys.readouterr().out
    assert code == 0, out
    assert "All 3 test cell(s) passed." in out
    stub = variants.stub(course, CHAPTER)
    next(c for c in stub.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add_tests").source = "pass"
    stub_path = variants.save(stub, tmp_path / "stub" / f"{CHAPTER}.ipynb")
    code, out = main(["check", str(stub_path)]), capsys.readouterr().out
    assert code == 1, out
    assert "TODO  parse_reply_tests: not answered yet" in out
    assert "hidden tests, run when your notebook is graded" in out
    assert "you edited the locked cell 'add_tests'" in out
    assert json.loads(stub_path.read_text())["cells"], "check must not modify the notebook"
