"""A graded test reads and writes the notebook's files on request, by descriptor, capped (issue 44).

The red team's cases against the scratch mirror that came before: sparse 16 MB files copied out as
real bytes onto the grader's disk, 1.5-2 GiB in about a second; a kernel's link followed from the
grader; with TMPDIR outside /tmp every notebook graded `error`. The `SandboxFiles` tests use a
folder standing for the sandbox's root; the last ones grade a notebook in a real sandbox with
TMPDIR=/var/tmp/<unique>."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import nbformat
import pytest

from autograder.judge.files import FILE_CAP, TOTAL_CAP, FilesFull, SandboxFiles
from autograder.sandbox import sandbox
from autograder.sandbox.sandbox import remove_tree

MB = 2**20


@pytest.fixture
def files(tmp_path):
    (tmp_path / "root" / "tmp").mkdir(parents=True)
    return SandboxFiles(str(tmp_path / "root"))


def kernel_side(files: SandboxFiles, path) -> Path:
    """Where the sandbox has `path` (the fixture's stand-in root)."""
    return Path(files.root + str(path))


def test_a_folder_is_made_in_the_sandbox_and_removed_after(files):
    with files.folder() as folder:
        assert str(folder).startswith("/tmp/agentloop-files-") and kernel_side(files, folder).is_dir()
        (folder / "a" / "b").mkdir(parents=True)
        (folder / "a" / "b" / "note.md").write_text("Ünï\n", encoding="utf-8")
        assert kernel_side(files, folder / "a" / "b" / "note.md").read_text(encoding="utf-8") == "Ünï\n"
        assert (folder / "a" / "b" / "note.md").read_text(encoding="utf-8") == "Ünï\n"
        assert sorted(p.name for p in folder.rglob("*")) == ["a", "b", "note.md"]
        (folder / "a" / "b" / "note.md").replace(folder / "moved.md")
        assert [(folder / n).exists() for n in ("a/b/note.md", "moved.md")] == [False, True]
    assert not kernel_side(files, folder).exists()


def test_no_link_is_followed_out_of_the_tests_folders(files, tmp_path):
    """The kernel's links, absolute or relative, to the grader's files: a read is a PermissionError,
    never a read of the grader's file; a link inside the folder resolves as in the kernel."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the grader's")
    with files.folder() as folder:
        inside = kernel_side(files, folder)
        (inside / "abs").symlink_to(secret)
        (inside / "up").symlink_to("../../../secret.txt")
        (inside / "dir").symlink_to(tmp_path)
        (folder / "real.md").write_text("ok")
        (folder / "alias.md").symlink_to(folder / "real.md")
        for name in ("abs", "up", "dir/secret.txt"):
            with pytest.raises(PermissionError, match="only the folders it made"):
                (folder / name).read_text()
        assert (folder / "alias.md").read_text() == "ok" and (folder / "alias.md").is_symlink()
        assert (folder / "alias.md").resolve() == folder / "real.md"
        with pytest.raises(PermissionError):
            (folder / "dir" / "new.txt").write_text("x")
    assert secret.read_text() == "the grader's" and sorted(p.name for p in tmp_path.iterdir()) == ["root", "secret.txt"]


def test_dot_dot_after_a_link_goes_up_from_where_the_link_led(files):
    """Red team 15: `folder/link/../x` is `<the link's target's parent>/x` to the kernel; the judge
    once collapsed the `..` first and read `folder/x`, another file."""
    with files.folder() as folder:
        inside = kernel_side(files, folder)
        (inside / "a" / "b").mkdir(parents=True)
        (inside / "link").symlink_to("a/b")
        (inside / "a" / "x").write_text("where the kernel looks")
        (inside / "x").write_text("elsewhere")
        path = folder / "link" / ".." / "x"
        assert path.read_text() == (inside / "link" / ".." / "x").read_text() == "where the kernel looks"
        assert path.resolve() == folder / "a" / "x"
        (inside / "loop1").symlink_to("loop2")
        (inside / "loop2").symlink_to("loop1")
        with pytest.raises(OSError, match="too many levels"):
            (folder / "loop1").read_text()


def test_a_file_that_grows_after_it_was_counted_is_counted_as_read(files, monkeypatch):
    """Red team 15: a file emptied, counted at 0 bytes, then filled again before the read."""
    import autograder.judge.files as files_module

    real = os.fstat

    def emptied(fd):
        st = real(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 0,
                               st.st_atime, st.st_mtime, st.st_ctime))

    with files.folder() as folder:
        (kernel_side(files, folder) / "f").write_bytes(b"x" * 1000)
        monkeypatch.setattr(files_module.os, "fstat", emptied)
        assert len((folder / "f").read_bytes()) == 1000
        monkeypatch.undo()
    assert files.read_total == 1000


def test_a_path_outside_the_tests_folders_is_refused(files):
    with files.folder():
        for path in ("/etc/passwd", "/tmp", "/tmp/agentloop-files-x/../../etc/passwd"):
            with pytest.raises(PermissionError):
                files.Path(path).read_bytes()


def sparse(path: Path, size: int) -> None:
    with open(path, "wb") as f:
        f.truncate(size)


def test_reads_count_sparse_files_at_their_size_up_to_the_total(files):
    with files.folder() as folder:
        sparse(kernel_side(files, folder) / "big", FILE_CAP + 1)
        with pytest.raises(FilesFull, match="16 MB of one file"):
            (folder / "big").read_bytes()
        (folder / "small").write_bytes(b"x")
        assert (folder / "small").read_bytes() == b"x", "a file over the cap fails its own read only"
        sparse(kernel_side(files, folder) / "big", FILE_CAP)
        for _ in range(TOTAL_CAP // FILE_CAP - 1):
            assert len((folder / "big").read_bytes()) == FILE_CAP  # read again: counted again
        with pytest.raises(FilesFull, match="64 MB of the notebook's files in all"):
            (folder / "big").read_bytes()
        with pytest.raises(FilesFull):
            (folder / "small").read_bytes()
    assert files.read_total <= TOTAL_CAP


def test_a_huge_folder_is_refused(files):
    with files.folder() as folder:
        for i in range(2_001):
            (kernel_side(files, folder) / str(i)).touch()
        with pytest.raises(FilesFull, match="names in one folder"):
            list(folder.iterdir())


def test_remove_tree_removes_a_tree_too_deep_for_shutil(tmp_path):
    top = tmp_path / "top"
    fd = os.open(tmp_path, os.O_RDONLY)
    try:  # 1,500 levels, made one descriptor at a time (a path that long is past PATH_MAX)
        os.mkdir("top", dir_fd=fd)
        cur = os.open("top", os.O_RDONLY, dir_fd=fd)
        for _ in range(1_500):
            os.mkdir("d", dir_fd=cur)
            nxt = os.open("d", os.O_RDONLY, dir_fd=cur)
            os.close(cur)
            cur = nxt
        os.close(cur)
    finally:
        os.close(fd)
    remove_tree(top)
    assert not top.exists()


# -- a notebook graded in a real sandbox, with TMPDIR outside /tmp -----------------------------------

ANSWER = '''import os

def shout(folder):
    with open(os.path.join(folder, "in.txt")) as f:
        text = f.read()
    with open(os.path.join(folder, "out.txt"), "w") as f:
        f.write(text.upper())
    return os.path.join(folder, "out.txt")

def fill(folder, n):
    for i in range(n):
        with open(os.path.join(folder, f"big{i}"), "wb") as f:
            f.truncate(16 << 20)  # sparse: no block in the sandbox's tmpfs
    return n
'''
ROUND_TRIP = '''import pathlib
from workbook.notebook_side import notebook_folder, notebook_path
with notebook_folder() as d:
    print("folder", d, type(d).__name__)
    (d / "in.txt").write_text("hello")
    out = notebook_path(shout(str(d)))
    assert out.read_text() == "HELLO"
    assert not pathlib.Path(d).exists(), "the folder is the sandbox's only"
'''
FLOOD = '''import resource
from workbook.notebook_side import notebook_folder
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    with notebook_folder() as d:
        for _ in range(30):
            fill(str(d), 4)
            for i in range(4):
                (d / f"big{i}").read_bytes()
finally:
    print("judge grew", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, "KB")
'''


def _cell(source: str, grade_id: str, test: bool):
    meta = {"grade": test, "solution": not test, "grade_id": grade_id, "locked": test, "schema_version": 3}
    if test:
        meta["points"] = 1
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})


def _notebook():
    nb = nbformat.v4.new_notebook(cells=[_cell(ANSWER, "answer", False), _cell(ROUND_TRIP, "round_trip", True),
                                         _cell(FLOOD, "flood", True)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if sandbox.bwrap_problem() is not None:
        pytest.skip(str(sandbox.bwrap_problem()))
    from autograder.pipeline.execute import SafeExecute

    source = tmp_path_factory.mktemp("course")
    (source / "ch").mkdir()
    nbformat.write(_notebook(), source / "ch" / "nb.ipynb")
    outside = Path("/var/tmp") / f"agentloop-tmpdir-{uuid.uuid4().hex[:12]}"
    outside.mkdir()
    nb = _notebook()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TMPDIR", str(outside))
        mp.setattr(tempfile, "tempdir", None)
        assert tempfile.gettempdir() == str(outside)
        try:
            SafeExecute(timeout=60, notebook_timeout=300, private_paths=[], memory_mb=0, sandbox="bwrap",
                        judge=True, source_directory=str(source)).preprocess(
                nb, {"nbgrader": {"assignment": "ch", "notebook": "nb"}, "metadata": {"path": str(source)}})
            yield nb, sorted(p.name for p in outside.iterdir())
        finally:
            shutil.rmtree(outside, ignore_errors=True)


def _text(cell, kind: str) -> str:
    return "".join(o.get("text", "") + o.get("evalue", "") for o in cell.outputs if o.get("output_type") == kind)


def test_a_notebook_grades_with_tmpdir_outside_tmp(graded):
    nb, left = graded
    cell = nb.cells[1]
    assert nb.metadata["autograder"]["status"] == "ok", nb.metadata["autograder"]
    assert "round_trip" in nb.metadata["autograder"]["ended"], _text(cell, "error")
    assert not _text(cell, "error"), "the judge wrote the kernel's file and read what the kernel wrote"
    assert "KernelPath" in _text(cell, "stream"), _text(cell, "stream")
    assert left == [], f"the grader's own folders under TMPDIR are removed: {left}"


def test_a_sparse_file_flood_fails_its_test_within_the_cap(graded):
    nb, _ = graded
    cell = nb.cells[2]
    assert "flood" not in nb.metadata["autograder"]["ended"]
    assert "64 MB of the notebook's files in all" in _text(cell, "error"), cell.outputs
    grew = int(_text(cell, "stream").split("judge grew ", 1)[1].split()[0])
    assert grew * 1024 <= 2 * FILE_CAP + 8 * MB, f"the judge grew by {grew / 1024:.0f} MB reading the files"
