"""`collect` takes regular files only (issue 25, item 3) and knows the names LMS downloads give.

A symlink (to the solution source, or a folder), a hard link, a fifo and a zip's symlink entry are
refused and listed while the rest is collected; Canvas (with LATE), Moodle and Blackboard names
map to a student and a chapter.
"""

import os
import shutil
import signal
import stat
import zipfile
from pathlib import PurePosixPath

import pytest

from autograder.course import REPO, AutograderError, Course
from autograder.pipeline import collect as collect_module
from autograder.pipeline.collect import collect, lms_place, read_regular

PILOT = REPO / "tests" / "pilot"
CHAPTER = "00_pilot"


@pytest.fixture
def course(tmp_path):
    shutil.copytree(PILOT / "solutions", tmp_path / "course" / "solutions")
    shutil.copytree(PILOT / "chapters", tmp_path / "course" / "chapters")
    return Course(root=tmp_path / "course")


@pytest.fixture
def inbox(tmp_path, course):
    """A folder with one honest submission (bob)."""
    src = tmp_path / "inbox"
    src.mkdir()
    shutil.copyfile(course.released(CHAPTER), src / f"bob_{CHAPTER}.ipynb")
    return src


@pytest.fixture(autouse=True)
def no_hang():
    """A fifo that blocks an open() must fail the test, not hang it."""
    old = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("collect hung"))
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _submitted(course):
    return sorted(p.relative_to(course.submitted).as_posix() for p in course.submitted.rglob("*.ipynb"))


def _refused(lines, name):
    return [line for line in lines if line.startswith("refused: ") and name in line]


def test_a_symlink_to_the_solution_is_refused_and_the_rest_collected(course, inbox):
    (inbox / f"ann_{CHAPTER}.ipynb").symlink_to(course.solution_ipynb(CHAPTER))
    lines = collect(course, inbox)
    assert _submitted(course) == [f"bob/{CHAPTER}/{CHAPTER}.ipynb"], lines
    assert "symbolic link" in _refused(lines, f"ann_{CHAPTER}.ipynb")[0], lines
    assert "1 entr(ies) refused" in lines[-1]


def test_a_symlinked_folder_is_refused(course, inbox, tmp_path):
    (tmp_path / "elsewhere" / CHAPTER).mkdir(parents=True)
    shutil.copyfile(course.solution_ipynb(CHAPTER), tmp_path / "elsewhere" / CHAPTER / "x.ipynb")
    (inbox / "cat").symlink_to(tmp_path / "elsewhere")
    lines = collect(course, inbox)
    assert _submitted(course) == [f"bob/{CHAPTER}/{CHAPTER}.ipynb"], lines
    assert "symbolic link" in _refused(lines, "cat")[0]


def test_a_hard_link_is_refused(course, inbox, tmp_path):
    shutil.copyfile(course.solution_ipynb(CHAPTER), tmp_path / "solution-copy.ipynb")
    os.link(tmp_path / "solution-copy.ipynb", inbox / f"dan_{CHAPTER}.ipynb")
    lines = collect(course, inbox)
    assert _submitted(course) == [f"bob/{CHAPTER}/{CHAPTER}.ipynb"], lines
    assert "hard link" in _refused(lines, f"dan_{CHAPTER}.ipynb")[0]


def test_a_fifo_is_refused_without_hanging(course, inbox):
    os.mkfifo(inbox / f"eve_{CHAPTER}.ipynb")
    lines = collect(course, inbox)
    assert _submitted(course) == [f"bob/{CHAPTER}/{CHAPTER}.ipynb"], lines
    assert "not a regular file" in _refused(lines, f"eve_{CHAPTER}.ipynb")[0]


def test_the_read_itself_follows_no_link(course, inbox, tmp_path):
    """What the walk saw can be swapped before the read: the read checks again, on the open file."""
    (inbox / "swapped.ipynb").symlink_to(course.solution_ipynb(CHAPTER))
    with pytest.raises(ValueError, match="without following a link"):
        read_regular(inbox, PurePosixPath("swapped.ipynb"))
    (inbox / "dir").symlink_to(course.solution_ipynb(CHAPTER).parent)
    with pytest.raises(ValueError, match="folder on its path"):
        read_regular(inbox, PurePosixPath("dir") / f"{CHAPTER}.ipynb")
    os.mkfifo(inbox / "fifo.ipynb")
    with pytest.raises(ValueError, match="not a regular file"):
        read_regular(inbox, PurePosixPath("fifo.ipynb"))
    assert read_regular(inbox, PurePosixPath(f"bob_{CHAPTER}.ipynb")) == course.released(CHAPTER).read_bytes()


def test_the_walk_is_raced_by_a_swap_and_loses(course, inbox, monkeypatch):
    """A file that is regular when the folder is listed and a symlink when it is read is refused."""
    real_walk = collect_module.walk

    def walk_then_swap(root):
        found, refused = real_walk(root)
        (root / f"bob_{CHAPTER}.ipynb").unlink()
        (root / f"bob_{CHAPTER}.ipynb").symlink_to(course.solution_ipynb(CHAPTER))
        return found, refused

    monkeypatch.setattr(collect_module, "walk", walk_then_swap)
    with pytest.raises(AutograderError, match="nothing to collect") as error:
        collect(course, inbox)
    assert "without following a link" in str(error.value)
    assert not course.submitted.exists()


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zf.writestr(info, data)
    return path


def test_zip_entries_that_are_links_or_escape_are_refused(course, tmp_path):
    good = course.released(CHAPTER).read_bytes()
    link = stat.S_IFLNK | 0o777
    archive = _zip(tmp_path / "lms.zip", [
        (f"ann_{CHAPTER}.ipynb", str(course.solution_ipynb(CHAPTER)), link),
        (f"/abs_{CHAPTER}.ipynb", good, stat.S_IFREG | 0o644),
        (f"x/../../up_{CHAPTER}.ipynb", good, stat.S_IFREG | 0o644),
        (f"bob_{CHAPTER}.ipynb", good, stat.S_IFREG | 0o644),
    ])
    lines = collect(course, archive)
    assert _submitted(course) == [f"bob/{CHAPTER}/{CHAPTER}.ipynb"], lines
    assert "symbolic link in the zip" in _refused(lines, f"ann_{CHAPTER}.ipynb")[0]
    assert "unsafe path" in _refused(lines, f"/abs_{CHAPTER}.ipynb")[0]
    assert "unsafe path" in _refused(lines, f"up_{CHAPTER}.ipynb")[0]


# -- LMS download names (docs/SOURCES.md, "LMS exports")

CHAPTERS = {CHAPTER, "01_one_step"}


@pytest.mark.parametrize("rel, student, chapter, note", [
    (f"doejane_12345_67890_{CHAPTER}.ipynb", "doejane_12345", CHAPTER, "Canvas"),
    (f"doejane_LATE_12345_67890_{CHAPTER}-1.ipynb", "doejane_12345", CHAPTER, "Canvas, LATE"),
    (f"Jane Doe_4321_assignsubmission_file_/{CHAPTER}.ipynb", "jane-doe", CHAPTER, "Moodle participant 4321"),
    (f"Jane Doe_4321_assignsubmission_file/work/{CHAPTER}.ipynb", "jane-doe", CHAPTER, "Moodle participant 4321"),
    (f"Participant_4321_assignsubmission_file_/{CHAPTER}.ipynb", "participant-4321", CHAPTER,
     "Moodle participant 4321"),
    (f"Pilot Chapter_bitdiddle_attempt_2026-11-30-10-00-00_{CHAPTER}.ipynb", "bitdiddle", CHAPTER,
     "Blackboard attempt 2026-11-30-10-00-00"),
    ("00_pilot_jdoe_attempt_2026-11-30-10-00-00_homework.ipynb", "jdoe", CHAPTER,
     "Blackboard attempt 2026-11-30-10-00-00"),
    # an uploader's file name that spells another student's attempt stays the uploader's
    (f"Pilot Chapter_alice_attempt_2026-12-01-12-00-00_x_bob_attempt_2099-01-01-00-00-00_{CHAPTER}.ipynb",
     "alice", CHAPTER, "Blackboard attempt 2026-12-01-12-00-00"),
])
def test_lms_names_map_to_a_student_and_a_chapter(rel, student, chapter, note):
    assert lms_place(PurePosixPath(rel), CHAPTERS) == (student, chapter, note)


def test_an_lms_name_without_a_chapter_needs_the_chapter_option():
    rel = PurePosixPath("doejane_12345_67890_homework.ipynb")
    with pytest.raises(ValueError, match="pass --chapter"):
        lms_place(rel, CHAPTERS)
    assert lms_place(rel, CHAPTERS, CHAPTER) == ("doejane_12345", CHAPTER, "Canvas")
    with pytest.raises(ValueError, match="says chapter 01_one_step but --chapter is 00_pilot"):
        lms_place(PurePosixPath("doejane_12345_67890_01_one_step.ipynb"), CHAPTERS, CHAPTER)


def test_an_lms_zip_is_collected_end_to_end(course, tmp_path):
    good = course.released(CHAPTER).read_bytes()
    reg = stat.S_IFREG | 0o644
    archive = _zip(tmp_path / "lms.zip", [
        (f"submissions/doejane_LATE_12345_67890_{CHAPTER}.ipynb", good, reg),
        (f"submissions/Ann Lee_77_assignsubmission_file_/{CHAPTER}.ipynb", good, reg),
        (f"submissions/Pilot_bitdiddle_attempt_2026-11-30-10-00-00_{CHAPTER}.ipynb", good, reg),
        (f"submissions/Pilot_bitdiddle_attempt_2026-12-01-09-00-00_{CHAPTER}.ipynb", good, reg),
    ])
    lines = collect(course, archive)
    assert _submitted(course) == [f"{s}/{CHAPTER}/{CHAPTER}.ipynb" for s in ("ann-lee", "bitdiddle", "doejane_12345")]
    assert any("(Canvas, LATE)" in line for line in lines), lines
    older = [line for line in lines if line.startswith("not collected: ")]
    assert len(older) == 1 and "2026-11-30" in older[0] and "older Blackboard attempt" in older[0], lines
